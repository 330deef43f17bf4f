"""The bundle fails a triage whose differing records were never sampled, and says why; a triage
document that passes such a record is refused, whoever wrote it (the new-user trial: a triage
of a log holding only the matching records passed, and the bundle with it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from triage.helpers import compare_texts, side, write_samples


def _triage(tmp_path: Path) -> dict[str, Any]:
    """k1's captures differ and it was never sampled; k2 matches and was."""
    compare_texts(tmp_path, {"k1": ("a", "b"), "k2": ("same", "same")})
    samples = side("k2", "base", ["same"] * 3) + side("k2", "patch", ["same"] * 3)
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "triage.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    document: dict[str, Any] = json.loads((tmp_path / "triage.json").read_text())
    return document


def test_the_bundle_fails_it_and_says_why(tmp_path: Path) -> None:
    _triage(tmp_path)
    result = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "triage.json", "--out", "bundle", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "bundle/summary.json").read_text())
    row = next(r for r in summary["matrix"] if r["evidence"] == "nondeterminism follow-up")
    assert row["status"] == "FAIL"
    markdown = (tmp_path / "bundle/REPORT.md").read_text()
    assert "1 record inconclusive (k1): never sampled on one side or both" in markdown
    assert "too few samples" not in markdown
    assert "1 record whose captures differ was never sampled" in markdown


def test_a_triage_that_passes_it_is_refused(tmp_path: Path) -> None:
    """A document as a k3diff before the rule wrote it (no flag, no count, ok), or edited."""
    document = _triage(tmp_path)
    k1 = next(r for r in document["records"] if r["key"] == "k1")
    k1["flags"] = [flag for flag in k1["flags"] if flag != "unsampled"]
    del document["summary"]["unsampled"]
    document["summary"]["held"] = 0
    document["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "old.json").write_text(json.dumps(document))
    result = run_k3diff("report", "old.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2
    assert "old.json" in result.stderr
    assert "verdict.exit_code 0 does not follow from its records" in result.stderr
    assert "never sampled" in result.stderr


def test_a_triage_the_new_rule_wrote_reads_fine(tmp_path: Path) -> None:
    _triage(tmp_path)
    result = run_k3diff("report", "triage.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr


def test_a_triage_whose_record_status_was_edited_to_hide_it_is_refused(tmp_path: Path) -> None:
    """The unsampled record's comparison_status made one no comparison writes, or 'match' (a
    record whose captured texts are equal and that has no samples is a match, never left
    undecided), its flag and counts dropped and its verdict made to pass: both read as a
    cross-checked pass (review56c)."""
    for status, said in (
        ("skipped", "comparison_status 'skipped' is none a comparison writes"),
        ("match", "undecided without samples although its captured texts are equal"),
    ):
        document = _triage(tmp_path)
        k1 = next(r for r in document["records"] if r["key"] == "k1")
        k1["flags"] = [flag for flag in k1["flags"] if flag != "unsampled"]
        k1["comparison_status"] = status
        document["summary"]["unsampled"] = 0
        document["summary"]["held"] = 0
        document["verdict"] = {"ok": True, "exit_code": 0}
        (tmp_path / "edited.json").write_text(json.dumps(document))
        result = run_k3diff("report", "edited.json", "--out", f"bundle-{status}", cwd=tmp_path)
        assert result.exit_code == 2, (status, result.stderr)
        assert "edited.json" in result.stderr and "'k1'" in result.stderr
        assert said in result.stderr
