"""A greedy mode held `novel-undecided` cannot be passed off as sampled (forge59, review59a).

The forgery: a triage document with a greedy mode held novel-undecided at 3 samples a side,
its mode's `sampled` set true, a distribution test pasted in from another document (12 samples
a side, `detectable_shift` 0.22 below `--shift` 0.35), the flags dropped and a pass written.
`report` alone accepted it with exit 0. Each mode now records the sampling fields its requests
sent (`requests`), from which `report` recounts `sampled`; and a distribution test must agree
with its document's family (`distribution_tests`, each `level` α over it) and with its mode's
samples (`moved`). Each refusal is exit 2 with one line naming the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .helpers import S, compare_texts, write_samples


def _greedy_held(where: Path) -> dict[str, Any]:
    """Base A, B, A against a patch stable on C (greedy, 3 a side): held novel-undecided."""
    where.mkdir()
    compare_texts(where, {"q": ("A", "C")})
    samples = [S("base", "q", t) for t in "ABA"] + [S("patch", "q", "C") for _ in range(3)]
    write_samples(where / "run" / "samples.jsonl", samples)
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", cwd=where
    )
    assert result.exit_code == 1, result.stderr
    document: dict[str, Any] = json.loads((where / "t.json").read_text())
    assert "novel-undecided" in document["records"][0]["flags"]
    return document


def _donor_test(where: Path) -> dict[str, Any]:
    """A sampled mode's distribution test of another run: 12 answers a side at temperature 1."""
    where.mkdir()
    compare_texts(where, {"q": ("The answer is 0.", "The answer is 0.")})
    answers = {"base": range(1, 13), "patch": range(2, 14)}
    samples = [S(side, "q", f"The answer is {i}.") for side, got in answers.items() for i in got]
    write_samples(where / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", cwd=where
    )
    assert result.exit_code in (0, 1), result.stderr
    document = json.loads((where / "t.json").read_text())
    test: dict[str, Any] = document["records"][0]["modes"][0]["distribution"]
    assert test["sampled"] and test["moved"][0]["n"] == 12
    return test


def _forge(tmp_path: Path) -> dict[str, Any]:
    """review59a's forgery: sampled, a pasted test that could detect 0.22, flags dropped, a pass."""
    document = _greedy_held(tmp_path / "greedy")
    test = _donor_test(tmp_path / "donor")
    test.update(p=0.9, p_adjusted=0.9, detectable_shift=0.22)
    record = document["records"][0]
    mode = record["modes"][0]
    mode.update(sampled=True, distribution=test, flags=[])
    record["flags"] = []
    document["summary"]["held"] = 0
    document["verdict"] = {**document["verdict"], "ok": True, "exit_code": 0}
    return document


def _report(tmp_path: Path, document: dict[str, Any]) -> Any:
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(document))
    return run_k3diff("report", str(forged), "--out", str(tmp_path / "bundle"), cwd=tmp_path)


def test_the_forgery_is_refused_naming_sampled(tmp_path: Path) -> None:
    result = _report(tmp_path, _forge(tmp_path))
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "records[0].modes[0].sampled is true but its requests make it false" in line
    assert "base: 3 at temperature 0; patch: 3 at temperature 0" in line


def _with_sampling_requests(document: dict[str, Any]) -> dict[str, Any]:
    """The forger also rewrites the requests the mode records as sampled ones."""
    mode = document["records"][0]["modes"][0]
    for side in ("base", "patch"):
        (fields,) = mode["requests"][side]
        fields["temperature"] = 1.0
    return document


def test_a_pasted_test_disagrees_with_its_mode(tmp_path: Path) -> None:
    # The greedy mode had a count test of its own (the base gave A and B), so the family's
    # size still agrees; the pasted test's counts say 12 a side where the mode has 3.
    document = _with_sampling_requests(_forge(tmp_path))
    result = _report(tmp_path, document)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "moved[0] counts 12 patch and 12 base samples but the mode has 3 and 3" in line, line


def _moved_fixed(document: dict[str, Any]) -> dict[str, Any]:
    for moved in document["records"][0]["modes"][0]["distribution"]["moved"]:
        moved.update(n=3, other_n=3, count=min(moved["count"], 3), other=min(moved["other"], 3))
    return document


def test_a_family_count_that_disagrees_is_refused(tmp_path: Path) -> None:
    document = _moved_fixed(_with_sampling_requests(_forge(tmp_path)))
    document["distribution_tests"] = 4
    result = _report(tmp_path, document)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "distribution_tests is 4 but its records carry 1 distribution test" in line, line


def test_a_level_of_another_family_is_refused(tmp_path: Path) -> None:
    # A test pasted from a run of four tests: its level is α / 2 / 4 (a sampled test shares α
    # with the novelty test, aa77), this document's family is 1.
    document = _moved_fixed(_with_sampling_requests(_forge(tmp_path)))
    document["records"][0]["modes"][0]["distribution"]["level"] = 0.00625
    result = _report(tmp_path, document)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "distribution.level is 0.00625, α / 2 / 4, but the document's family holds 1" in line


def test_a_sampled_test_claiming_the_whole_alpha_is_refused(tmp_path: Path) -> None:
    # aa77: a sampled mode's test is judged at α / 2 over its family (the novelty test has the
    # other half); a document stating α over the family (its power, detectable_shift, computed
    # there) claims more power than its test had. Passed before (exit 0: the level of stop 76).
    document = _moved_fixed(_with_sampling_requests(_forge(tmp_path)))
    test = document["records"][0]["modes"][0]["distribution"]
    assert test["level"] == 0.025, test["level"]
    test["level"] = 0.05
    result = _report(tmp_path, document)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "distribution.level is 0.05, α / 2 / 0.5, but the document's family holds 1" in line
