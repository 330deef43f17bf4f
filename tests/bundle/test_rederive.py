"""`k3diff report` runs triage again on the comparison and logs given with a triage document:
a triage that does not follow from them is refused, one that does explains its comparison
wherever the files lie, and one given without its evidence explains nothing."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from cli_support import CliResult, run_k3diff
from triage.helpers import compare_texts, side, write_samples


def _base_flaky(tmp_path: Path) -> None:
    """k1 differs in the capture; the base gives both outputs, the patch its most common one:
    the base's nondeterminism explains the difference (k2 matches)."""
    compare_texts(tmp_path, {"k1": ("a", "b"), "k2": ("same", "same")})
    samples = side("k1", "base", ["b", "b", "b", "a"] * 2) + side("k1", "patch", ["b"] * 8)
    samples += side("k2", "base", ["same"] * 8) + side("k2", "patch", ["same"] * 8)
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "triage.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr


def _report(cwd: Path, *inputs: str | Path, out: str = "bundle") -> tuple[CliResult, Any]:
    result = run_k3diff("report", *map(str, inputs), "--out", out, cwd=cwd)
    summary = None
    if result.exit_code != 2:
        summary = json.loads((cwd / out / "summary.json").read_text())
    return result, summary


def _row(summary: Any, evidence: str) -> dict[str, Any]:
    row: dict[str, Any] = next(r for r in summary["matrix"] if r["evidence"] == evidence)
    return row


def test_a_triage_that_follows_explains_its_comparison_from_any_directory(tmp_path: Path) -> None:
    _base_flaky(tmp_path)
    result, summary = _report(tmp_path, "cmp.json", "run/samples.jsonl", "triage.json")
    assert result.exit_code == 0, result.stderr
    assert _row(summary, "record-level comparison")["status"] == "explained"
    # The same files by absolute path, and the comparison copied elsewhere: still explained.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(tmp_path / "cmp.json", elsewhere / "cmp.json")
    for inputs in (
        (tmp_path / "cmp.json", tmp_path / "run/samples.jsonl", tmp_path / "triage.json"),
        (elsewhere / "cmp.json", tmp_path / "run/samples.jsonl", tmp_path / "triage.json"),
    ):
        result, summary = _report(tmp_path, *inputs, out="b2")
        assert result.exit_code == 0, result.stderr
        assert _row(summary, "record-level comparison")["status"] == "explained"


def test_a_stale_triage_of_another_comparison_is_refused(tmp_path: Path) -> None:
    _base_flaky(tmp_path)
    other = tmp_path / "X"
    other.mkdir()
    compare_texts(other, {"k1": ("b", "b"), "k2": ("same", "same")})  # matched there
    shutil.copytree(tmp_path / "run", other / "run")
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "triage.json",
        cwd=other,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    result, _ = _report(tmp_path, "cmp.json", "run/samples.jsonl", "X/triage.json")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "X/triage.json: does not follow from the evidence given with it" in result.stderr
    # The first field that differs: the captures' reproduction counts, or the status.
    assert re.search(r"records\[0\]\.(comparison_status|captures)", result.stderr)


def test_a_triage_edited_to_clear_a_record_is_refused(tmp_path: Path) -> None:
    _base_flaky(tmp_path)
    document = json.loads((tmp_path / "triage.json").read_text())
    k2 = next(r for r in document["records"] if r["key"] == "k2")
    k2["flags"] = [*k2["flags"], "not-a-real-flag"]
    (tmp_path / "edited.json").write_text(json.dumps(document))
    result, _ = _report(tmp_path, "cmp.json", "run/samples.jsonl", "edited.json")
    assert result.exit_code == 2  # refused by its reader, before it is run again
    assert "records[1].flags[1]' must be one of" in result.stderr
    assert 'not "not-a-real-flag"' in result.stderr


def test_a_triage_without_its_logs_explains_nothing(tmp_path: Path) -> None:
    _base_flaky(tmp_path)
    result, summary = _report(tmp_path, "cmp.json", "triage.json")
    assert result.exit_code == 1, result.stderr
    assert _row(summary, "record-level comparison")["status"] == "FAIL"


def test_a_triage_with_undecided_records_is_an_inconclusive_row_not_a_pass(
    tmp_path: Path,
) -> None:
    compare_texts(tmp_path, {"k1": ("a", "a")})
    # One base sample (its other request failed): too few to say, and no patch output the base never gave (a patch `x`
    # beside a base `a, a` is held novel-undecided and fails: tests/triage/test_novel_undecided)
    samples = side("k1", "base", ["a", None]) + side("k1", "patch", ["a", "a"])
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "triage.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    result, summary = _report(tmp_path, "cmp.json", "run/samples.jsonl", "triage.json")
    assert result.exit_code == 0, result.stderr
    assert _row(summary, "nondeterminism follow-up")["status"] == "inconclusive"
    markdown = (tmp_path / "bundle/REPORT.md").read_text()
    assert "| nondeterminism follow-up | inconclusive |" in markdown
