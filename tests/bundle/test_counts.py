"""Every count the bundle prints recounts from the records it names, and its advice follows the
real cause of an undecided record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .helpers import MISMATCHED, seed


def _bundle(work: Path, **options: bool) -> Any:
    comparison, samples, triage = seed(work, **options)
    result = run_k3diff("report", comparison, samples, triage, "--out", "bundle", cwd=work)
    assert result.exit_code in (0, 1), result.stderr
    return json.loads((work / "bundle/summary.json").read_text())


def test_differing_records_without_samples_are_said_never_sampled(tmp_path: Path) -> None:
    summary = _bundle(tmp_path, sample_mismatched=False)
    undecided = [q for q in summary["qualifications"] if "inconclusive" in q]
    assert undecided == [
        f"4 records inconclusive ({', '.join(MISMATCHED)}): never sampled on one side or both "
        "although their captures differ: the difference is unexplained, and samples of "
        "both sides would decide them"
    ]


def test_the_bottom_line_names_the_regression_candidates_first(tmp_path: Path) -> None:
    summary = _bundle(tmp_path, base_stable=True)
    first = summary["bottom_line"][0]
    assert first.startswith(f"FAIL: 4 regression candidates {', '.join(MISMATCHED)}; ")
    assert first.endswith("fail their policies")
    comparison = next(s for s in summary["bottom_line"] if "paired records differ" in s)
    # Recounted from the records: 4 differ, each named; 8 - 4 match exactly. A failing row's
    # sentence comes first, named by its row (report67).
    assert comparison == (
        "FAIL (record-level comparison): "
        f"4 of 8 paired records differ: text differs on 4 ({', '.join(MISMATCHED)}); "
        "exact text match 4"
    )


def test_the_follow_up_names_regression_candidates_without_doubled_parentheses(
    tmp_path: Path,
) -> None:
    # Found by the new-user trial: "it is deterministic divergence (regression candidates)
    # (base 1 distinct of 6)": a singular record was plural, and two parentheses followed.
    summary = _bundle(tmp_path, base_stable=True)
    row = next(r for r in summary["matrix"] if r["evidence"] == "nondeterminism follow-up")
    finding = row["finding"]
    assert "; all 4 are regression candidates: deterministic divergence (the base gave " in finding
    # small71: English, singular where one ("base 1 distinct of 3 each" before)
    assert "(the base gave 1 distinct output in " in finding and " distinct of " not in finding
    assert ") (" not in row["finding"]
