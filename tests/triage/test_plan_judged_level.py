"""A run sized by `triage --plan --shift S --prompts P` has the power the plan states at the
level triage judges it at: α / 2 (the novelty test has the other half: `sampledlevel`) over
the run's distribution tests.

plan77: aa77 halved a sampled test's level, but the plan still sized at α over the tests, so a
run of the plan's figure was held `no-power` (exit 1): 3 prompts at --shift 0.5, the plan said
15 a side (at α / 4); triage, judging at α / 2 / 4 = 0.00625, could detect only 56 % there
and asked for more. The plan now says 17 (failed before at 0.5 and 0.6 on 3 prompts and at 0.5
on one: 10 a side, 68 %).

The samples log texts as digests only, so triage runs its count test, whose stated power on a
base of one answer is the plan's one-new-answer count (the MMD test on real answers can need
more, as the plan says)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples

PROMPTS = ("p1", "p2", "p3")


def _digests_only(log: Path) -> None:
    """The log's answers as digests alone (`text` null, `text_xxh3` kept)."""
    lines = log.read_text().splitlines()
    rows = [json.loads(line) for line in lines[1:]]
    for row in rows:
        row["text"] = None
    log.write_text("\n".join([lines[0], *(json.dumps(row) for row in rows)]) + "\n")


def _run_of(tmp_path: Path, prompts: tuple[str, ...], n: int) -> None:
    """A temperature-1 run of `n` samples a side per prompt: the base always one answer, the
    patch the same but for 2 answers the base never gave (too few to be a shift)."""
    compare_texts(tmp_path, {key: ("The answer is 3.", "The answer is 3.") for key in prompts})
    patch = ["The answer is 5."] * 2 + ["The answer is 3."] * (n - 2)
    samples = [
        S(side, key, text)
        for key in prompts
        for side, texts in (("base", ["The answer is 3."] * n), ("patch", patch))
        for text in texts
    ]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    _digests_only(log)


@pytest.mark.parametrize(("shift", "prompts"), [("0.5", 3), ("0.6", 3), ("0.5", 1)])
def test_a_run_of_the_plans_figure_is_not_held_no_power(
    tmp_path: Path, shift: str, prompts: int
) -> None:
    sized = run_k3diff(
        "triage", "--plan", "--shift", shift, "--prompts", str(prompts), "--format", "json"
    )
    assert sized.exit_code == 0, sized.stderr
    plan = json.loads(sized.stdout)["plan"]
    n = plan["per_prompt"]
    _run_of(tmp_path, PROMPTS[:prompts], n)
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--shift", shift, "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    document = json.loads(made.stdout)
    for record in document["records"]:
        assert "no-power" not in record["flags"], (n, record["reason"])
        (mode,) = record["modes"]
        assert mode["distribution"]["test"] == "counts"
        assert mode["distribution"]["level"] == pytest.approx(plan["level"])
        assert mode["distribution"]["detectable_shift"] <= float(shift)
    assert made.exit_code == 0, made.stdout


def test_an_untested_modes_plan_command_answers_its_figure(tmp_path: Path) -> None:
    """A sampled mode no test ran on (the patch answered once) names the plan's figure at α / 2
    (12 a side at --shift 0.5) and the command that answers it: it passed `--alpha 0.025`,
    which the plan now halves (15 there), so it passes α (plan77)."""
    import re
    import shlex

    base = ["The answer is 3.", "The answer is 5.", "The answer is 8.", "The answer is 1."]
    compare_texts(tmp_path, {"q": (base[0], "Z")})
    samples = [S("base", "q", t) for t in base[1:]] + [S("patch", "q", t) for t in ("Z", None)]
    write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--shift", "0.5", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    reason = " ".join(json.loads(made.stdout)["records"][0]["reason"].split())
    found = re.search(
        r"\((\d+) a side, the plan's exact Fisher figure .*?: (triage --plan [^)]*)\)", reason
    )
    assert found is not None, reason
    plan = run_k3diff(*shlex.split(found.group(2)), "--format", "json")
    assert plan.exit_code == 0, plan.stderr
    assert json.loads(plan.stdout)["plan"]["per_prompt"] == int(found.group(1)), reason
