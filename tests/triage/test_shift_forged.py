"""`k3diff report` recounts the no-power holds of a triage document from its numbers (each sampled
test's `detectable_shift`, whether it rejects, and the document's `shift`), not from the flag: a
document edited to clear a sampled mode whose test could not detect the shift is refused
(exit 2), and so is one whose `shift` is missing, out of (0, 1], or disagrees with its holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import CliResult, run_k3diff

from triage.test_distribution import BASE_MASS, _sampled_logs

FEW = 6
"""Samples a side (5 until aa77: at α / 2 / 4 tests no permutation of 5 a side rejects)."""


def _held(tmp_path: Path) -> dict[str, Any]:
    """A triage document of 3 sampled records, each held no-power at --shift 0.35."""
    _sampled_logs(tmp_path, 0, BASE_MASS, "The answer is {}.", n=FEW)
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    document: dict[str, Any] = json.loads((tmp_path / "t.json").read_text())
    for record in document["records"]:
        assert "no-power" in record["flags"]
        assert record["modes"][0]["distribution"]["detectable_shift"] > 0.35
    return document


def _report(tmp_path: Path, document: dict[str, Any], *evidence: str) -> CliResult:
    (tmp_path / "forged.json").write_text(json.dumps(document))
    return run_k3diff("report", *evidence, "forged.json", "--out", "bundle", cwd=tmp_path)


def _unflag(document: dict[str, Any], passing: bool) -> None:
    """Drop every no-power flag; `passing`: also relabel the records and the verdict a pass."""
    for record in document["records"]:
        record["flags"] = [f for f in record["flags"] if f != "no-power"]
        for mode in record["modes"]:
            mode["flags"] = [f for f in mode["flags"] if f != "no-power"]
            if passing:
                mode["category"] = "both-nondeterministic"
        if passing:
            record["category"] = "both-nondeterministic"
    summary = document["summary"]
    summary["held"] = 0
    if passing:
        summary["both-nondeterministic"] = summary.pop("inconclusive")
        summary["inconclusive"] = 0
        document["verdict"] = {"ok": True, "exit_code": 0}


def test_the_document_as_written_is_read(tmp_path: Path) -> None:
    result = _report(tmp_path, _held(tmp_path), "cmp.json", "run/samples.jsonl")
    assert result.exit_code == 1, result.stderr
    markdown = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "3 sampled, judged at --shift 35 %" in markdown
    assert "3 held no-power (p1, p2, p3: their tests could not have detected 35 %)" in markdown
    assert "could not have detected --shift 35 % of the answers moved" in markdown


def test_dropping_the_flag_and_passing_is_refused(tmp_path: Path) -> None:
    document = _held(tmp_path)
    _unflag(document, passing=True)
    result = _report(tmp_path, document)
    assert result.exit_code == 2, result.stdout
    assert "sampled without power (no-power) but not held" in result.stderr
    assert "above the document's shift 0.35, but it is not held no-power" in result.stderr


def test_dropping_the_flag_of_a_failing_document_is_refused(tmp_path: Path) -> None:
    document = _held(tmp_path)
    _unflag(document, passing=False)
    result = _report(tmp_path, document)
    assert result.exit_code == 2, result.stdout
    assert "records[0].modes[0]'s sampled test did not reject and could detect only" in (
        result.stderr
    )


def test_raising_the_shift_above_the_holds_is_refused(tmp_path: Path) -> None:
    # At 5 a side the permutation test detects only every answer moved (mmdpower75): its
    # detectable shift is 1, at or below a document shift raised to 1.
    document = _held(tmp_path)
    document["shift"] = 1.0
    result = _report(tmp_path, document)
    assert result.exit_code == 2, result.stdout
    assert "is held no-power but its sampled test could detect" in result.stderr
    assert "at or below the document's shift 1" in result.stderr


def test_lowering_a_detectable_shift_to_pass_is_refused_against_the_logs(tmp_path: Path) -> None:
    # Consistent with itself (each test claims 30 %, below the shift): only triage run again
    # on the evidence shows the claim false, which report does when the logs come with it.
    document = _held(tmp_path)
    _unflag(document, passing=True)
    for record in document["records"]:
        record["modes"][0]["distribution"]["detectable_shift"] = 0.3
    result = _report(tmp_path, document, "cmp.json", "run/samples.jsonl")
    assert result.exit_code == 2, result.stdout
    assert "does not follow from the evidence given with it" in result.stderr


def test_raising_a_detectable_shift_of_a_passing_document_is_refused(tmp_path: Path) -> None:
    # 36 a side: each test detects about 40 % (mmdpower75's honest figure), so --shift 0.5 passes.
    _sampled_logs(tmp_path, 0, BASE_MASS, "The answer is {}.")
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "--shift", "0.5",
        "-o", "t.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    document = json.loads((tmp_path / "t.json").read_text())
    document["records"][1]["modes"][0]["distribution"]["detectable_shift"] = 0.98
    result = _report(tmp_path, document)
    assert result.exit_code == 2, result.stdout
    assert "records[1].modes[0]'s sampled test did not reject and could detect only 0.98" in (
        result.stderr
    )


def test_a_missing_or_impossible_shift_is_refused_in_one_line(tmp_path: Path) -> None:
    document = _held(tmp_path)
    del document["shift"]
    result = _report(tmp_path, document)
    assert result.exit_code == 2, result.stdout
    assert "field 'shift' is missing, and 3 sampled modes whose distribution test did not " in (
        result.stderr
    )
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for bad in (0, -0.2, 1.5):
        document["shift"] = bad
        result = _report(tmp_path, document)
        assert result.exit_code == 2, (bad, result.stdout)
        said = f"field 'shift' must be a number above 0 and at most 1 or null, not {bad!r}"
        assert said in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    document["shift"] = "0.35"
    result = _report(tmp_path, document)
    assert result.exit_code == 2 and "shift" in result.stderr, result.stderr
