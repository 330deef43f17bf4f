"""A triage document is checked against what triage ever writes of a record
(`k3diff.documents.triagewritten`): `report` refuses (exit 2, one line) a record whose `modes`
were deleted or emptied where it was sampled, a `regression_candidate` its modes' categories and
corrected p-values do not give, and a side's `captured` where `--capture-mode` counts none.

Triage writes a record without modes only where its key has no samples (no deciding mode, no
sampled captures, a match only where the captured texts agree), and `captured` true only in
the mode `--capture-mode` names, on a side that had a capture. Found at stop 58's end: each of
these edits, with the summary and verdict made to agree, was read as the real run's."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from cli_support import CliResult, run_k3diff
from triage.helpers import compare_texts, side, write_samples


def _triage(tmp_path: Path, *args: str) -> dict[str, Any]:
    """dd: a deterministic divergence (A, A, A against Z, Z, Z); ok: a match; quiet: captures
    that agree, never sampled (a record without modes)."""
    compare_texts(tmp_path, {"dd": ("A", "Z"), "ok": ("B", "B"), "quiet": ("C", "C")})
    write_samples(
        tmp_path / "run" / "samples.jsonl",
        side("dd", "base", ["A"] * 3)
        + side("dd", "patch", ["Z"] * 3)
        + side("ok", "base", ["B"] * 3)
        + side("ok", "patch", ["B"] * 3),
    )
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", *args,
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    document: dict[str, Any] = json.loads((tmp_path / "t.json").read_text())
    return document


def _restated(document: dict[str, Any]) -> dict[str, Any]:
    """The summary recounted from the (edited) records and the verdict made to pass."""
    records = document["records"]
    summary = document["summary"]
    counts = Counter(r["category"] for r in records)
    for category in ("match", "inconclusive", "deterministic-divergence"):
        summary[category] = counts.get(category, 0)
    summary["regression_candidates"] = sum(1 for r in records if r["regression_candidate"])
    document["verdict"] = {"ok": True, "exit_code": 0}
    return document


def _report(tmp_path: Path, document: dict[str, Any]) -> CliResult:
    (tmp_path / "forged.json").write_text(json.dumps(document))
    return run_k3diff("report", "forged.json", "--out", "bundle", cwd=tmp_path)


def _refused(result: CliResult, *fragments: str) -> None:
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("k3diff: error: forged.json: "), line
    for fragment in fragments:
        assert fragment in line, line


def _record(document: dict[str, Any], key: str) -> dict[str, Any]:
    return next(r for r in document["records"] if r["key"] == key)


def _cleared(record: dict[str, Any], category: str = "match") -> None:
    record.update(category=category, flags=[], regression_candidate=False, deciding_mode=None)


def test_triage_writes_a_record_without_modes_only_where_nothing_was_sampled(
    tmp_path: Path,
) -> None:
    document = _triage(tmp_path)
    quiet = _record(document, "quiet")
    assert quiet["modes"] == [] and quiet["captures"] == {} and quiet["deciding_mode"] is None
    assert quiet["category"] == "match" and quiet["comparison_status"] == "match"
    assert all(r["modes"] for r in document["records"] if r["key"] != "quiet")
    ok = run_k3diff("report", "t.json", "--out", "bundle", cwd=tmp_path)
    assert ok.exit_code == 1, ok.stderr  # the true document reads, and fails on dd


def test_modes_deleted_are_refused(tmp_path: Path) -> None:
    document = _triage(tmp_path)
    del _record(document, "dd")["modes"]
    result = _report(tmp_path, document)
    assert result.exit_code == 2 and "modes" in result.stderr, result.stderr


def test_modes_emptied_where_the_record_was_sampled_are_refused(tmp_path: Path) -> None:
    document = _triage(tmp_path)
    dd = _record(document, "dd")
    dd["modes"] = []
    _cleared(dd)
    _refused(_report(tmp_path, _restated(document)), "records[0] has no modes but its captures")


def test_modes_and_captures_emptied_on_differing_captures_are_refused(tmp_path: Path) -> None:
    document = _triage(tmp_path)
    dd = _record(document, "dd")
    dd.update(modes=[], captures={})
    _cleared(dd)
    _refused(
        _report(tmp_path, _restated(document)),
        "records[0] has no modes and is a match, but its captures are text-differs",
    )
    _cleared(dd, "inconclusive")  # never sampled on differing captures: held unsampled
    _refused(_report(tmp_path, _restated(document)), "never sampled on a side")


def test_a_record_candidacy_its_modes_do_not_give_is_refused(tmp_path: Path) -> None:
    document = _triage(tmp_path)
    _record(document, "dd")["regression_candidate"] = False
    _refused(
        _report(tmp_path, _restated(document)),
        "records[0].regression_candidate is false but its modes make it one "
        "(serial deterministic-divergence)",
    )
    document = _triage(tmp_path)
    dd = _record(document, "dd")
    dd["regression_candidate"] = dd["modes"][0]["regression_candidate"] = False
    _refused(
        _report(tmp_path, _restated(document)),
        "records[0].modes[0].regression_candidate is false but its category "
        "deterministic-divergence",
    )


def test_a_candidate_triage_never_writes_is_refused(tmp_path: Path) -> None:
    # a record made a candidate (failing, so nothing passes by it): still not what triage wrote
    document = _triage(tmp_path)
    _record(document, "ok")["regression_candidate"] = True
    document = _restated(document)
    document["verdict"] = {"ok": False, "exit_code": 1}
    _refused(_report(tmp_path, document), "records[1].regression_candidate is true but none")


def test_captured_without_capture_mode_is_refused(tmp_path: Path) -> None:
    document = _triage(tmp_path)
    _record(document, "ok")["modes"][0]["base"]["captured"] = True
    document["verdict"] = {"ok": False, "exit_code": 1}
    _refused(
        _report(tmp_path, document),
        "records[1].modes[0].base.captured is true but the document counts no capture",
    )


def test_a_capture_dropped_from_its_mode_is_refused(tmp_path: Path) -> None:
    """Under --capture-mode serial each side's capture is one of the serial n; a document that
    says it was not (so the capture reads as a sample sent) is refused."""
    document = _triage(tmp_path, "--capture-mode", "serial")
    ok = _record(document, "ok")
    assert ok["modes"][0]["base"]["captured"] is True and ok["modes"][0]["base"]["n"] == 4
    ok["modes"][0]["base"]["captured"] = False
    _refused(
        _report(tmp_path, document),
        "records[1].modes[0].base.captured is false but its capture counts in serial only",
    )
