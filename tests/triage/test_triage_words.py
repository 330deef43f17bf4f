"""Triage's text says what its JSON says, in English (triage69): a record's `more` cell is its
`more_samples` (none for a record samples cannot clear), causes join as a list does ("a or b",
not "a, or b"), and two of something are "both", not "all 2"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .helpers import S, compare_texts, side, write_samples
from .test_not_comparable import _setup

FAILED = S("patch", "1", None, status=500, error="HTTP 500: boom")


def _more_cell(stdout: str, key: str) -> str:
    """The record's `more` cell, cut at the header's column edges."""
    lines = stdout.splitlines()
    header = next(line for line in lines if line.startswith("key "))
    (row,) = [line for line in lines if line.startswith(f"{key}  ")]
    return row[header.index("  more per side  ") + 2 : header.index("  flags")].strip()


def test_a_not_comparable_record_shows_no_more_samples(tmp_path: Path) -> None:
    """Failed on base69: the `more` cell read 57 (its mode's), while JSON's `more_samples` is
    null (no sample clears a record whose captured prompts differ)."""
    _setup(tmp_path, "42")
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    document = json.loads(
        run_k3diff(
            "triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path
        ).stdout
    )
    first = document["records"][0]
    assert "not-comparable" in first["flags"] and first["more_samples"] is None
    assert _more_cell(result.stdout, "0") == "—"
    assert _more_cell(result.stdout, "1") == str(document["records"][1]["more_samples"])


def test_two_causes_join_with_or(tmp_path: Path) -> None:
    """Failed on base69 (once a failing side held a record): '..., or ...' between two
    causes."""
    samples = side("0", "base", ["42"] * 3) + side("0", "patch", ["42"] * 3)
    _setup(tmp_path, "42", samples + side("1", "base", ["42"] * 3) + [FAILED] * 3)
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("result: ")]
    assert (
        "(captures whose prompts differ (not-comparable) or every patch request failed on 1 "
        "(unanswered))" in line
    ), line
    assert ", or " not in line


def _bundle(tmp_path: Path) -> dict[str, Any]:
    triage = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert triage.exit_code == 1, triage.stderr
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert bundle.exit_code == 1, bundle.stderr
    summary: dict[str, Any] = json.loads((tmp_path / "b" / "summary.json").read_text())
    return summary


def test_two_records_of_one_category_are_both(tmp_path: Path) -> None:
    """Failed on base69: 'all 2 are inconclusive'."""
    compare_texts(tmp_path, {"k1": ("a", "b"), "k2": ("c", "d"), "k3": ("e", "e")})
    samples = side("k3", "base", ["e"] * 3) + side("k3", "patch", ["e"] * 3)
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    _bundle(tmp_path)
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert "text differs on 2 of 3 records; both are inconclusive" in report
    assert "all 2" not in report


def test_a_run_whose_two_samples_failed_says_both(fault_server: Any, tmp_path: Path) -> None:
    """Failed on base69: 'all 2 failed'."""
    server = fault_server("--faults", json.dumps({"a": {"status": 500, "times": -1}}))
    (tmp_path / "p.jsonl").write_text(json.dumps({"key": "a", "prompt": "a"}) + "\n")
    result = run_k3diff(
        "sample", "--base", server.url, "--prompts", "p.jsonl", "--repeats", "2",
        "--retries", "0", "--out", "run", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    flat = " ".join(result.stdout.split())
    assert "both failed" in flat and "all 2" not in flat
    lines = (tmp_path / "run" / "samples.jsonl").read_text().splitlines()[1:]
    assert [json.loads(line)["status"] for line in lines] == [500, 500]  # kept on disk
