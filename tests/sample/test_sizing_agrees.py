"""`sample`'s summary and `triage` state one figure for the samples a sampled run needs
(newuser61: a run of one greedy and one sampled prompt read "22 a side" in the summary, as if
both were sampled, while triage ran one distribution test and asked for 18): both take it from
`triage.plan.sampled_figure`, over the records triage tests by distribution."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .support import flat, read_samples, sample, write_prompts

GREEDY = {"key": "g", "prompt": "g", "temperature": 0}
SAMPLED = {"key": "s", "prompt": "s", "temperature": 0.8, "fault": {"output": "rand"}}


def _comparison(tmp_path: Path, keys: list[str]) -> None:
    _, samples = read_samples(tmp_path / "out")
    first = {(s["key"], s["side"]): s["text_xxh3"] for s in reversed(samples)}
    records = [
        {
            "key": key,
            "status": "text-differs",
            "base": {"text_xxh3": first[(key, "base")]},
            "patch": {"text_xxh3": first[(key, "patch")] + ("" if key == "s" else "0")},
        }
        for key in keys
    ]
    summary = {"records": len(keys), "paired": len(keys), "exact_match": 0, "only_base": 0}
    summary |= {"only_patch": 0, "differing": len(keys), "errors": 0}
    doc = {"schema": "k3diff.responses/1", "summary": summary, "records": records}
    doc["verdict"] = {"ok": False, "exit_code": 1}
    (tmp_path / "cmp.json").write_text(json.dumps(doc))


@pytest.mark.parametrize(
    ("prompts", "tested"),
    [([GREEDY, SAMPLED], 1), ([SAMPLED, {**SAMPLED, "key": "t"}], 3), ([GREEDY], 0)],
    ids=["mixed", "all-sampled", "all-greedy"],
)
def test_the_summary_and_triage_need_the_same_samples(
    fault_server: Any, tmp_path: Path, prompts: list[dict[str, Any]], tested: int
) -> None:
    # Two servers of one seed: each side draws the same outputs whatever order the requests
    # arrive in (one server shared by both sides dealt its draws to the sides in arrival order,
    # and the pooled test rejected one run in about 60).
    base, patch = fault_server().url, fault_server().url
    file = write_prompts(tmp_path / "p.jsonl", prompts)
    run = sample("--base", base, "--patch", patch, "--prompts", file, "--repeats", "3",
                 "--out", tmp_path / "out")  # fmt: skip
    assert run.exit_code == 0, run.stderr
    summary = flat(run.stdout)
    _comparison(tmp_path, [p["key"] for p in prompts])
    triage = run_k3diff("triage", "cmp.json", "out/samples.jsonl", "--format", "json",
                        cwd=tmp_path)  # fmt: skip
    doc = json.loads(triage.stdout)
    assert doc["distribution_tests"] == tested, triage.stdout
    if not tested:
        assert "samples per side per prompt" not in summary, summary
        return
    found = re.search(r"from (\d+) samples per side per prompt", summary)
    assert found is not None, summary
    held = [r for r in doc["records"] if r["key"] != "g" and r.get("more_samples")]
    assert held, triage.stdout
    for record in held:
        assert int(found.group(1)) == 3 + record["more_samples"], (summary, record)
    # The hint's plan (`--prompts`, or `--alpha` where the tests are not a grid) answers the
    # summary's figure at the level triage judges at (plan77: the plan halves α as triage does).
    command = summary.split("size a run with: ")[1].split(" result: ")[0].split()
    assert command[:3] == ["k3diff", "triage", "--plan"], summary
    plan = json.loads(run_k3diff(*command[1:], "--format", "json").stdout)["plan"]
    assert plan["per_prompt"] == int(found.group(1)), (summary, plan)
    levels = [r["modes"][0]["distribution"]["level"] for r in doc["records"] if r["key"] != "g"]
    assert levels == [pytest.approx(plan["level"])] * len(levels), (levels, plan)


def test_the_sizing_hint_prints_a_command_to_paste_as_it_stands(
    fault_server: Any, tmp_path: Path
) -> None:
    """newuser61 pasted `size a run with '… triage --plan --shift 0.35 --prompts 4'` with its
    quotes, and the shell read one word: the command stands on a line of its own, unquoted,
    and runs (`--plan` needs no files)."""
    import shlex

    url = fault_server().url
    file = write_prompts(tmp_path / "p.jsonl", [SAMPLED])
    run = sample("--base", url, "--patch", url, "--prompts", file, "--repeats", "3",
                 "--out", tmp_path / "out")  # fmt: skip
    lines = run.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == "size a run with:")
    command = shlex.split(lines[at + 1])
    assert command[:3] == ["k3diff", "triage", "--plan"], lines[at + 1]
    assert "'" not in run.stdout.split("size a run with")[1]
    plan = run_k3diff(*command[1:])
    assert plan.exit_code == 0, plan.stdout + plan.stderr
