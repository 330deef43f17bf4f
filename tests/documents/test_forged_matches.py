"""Passes a document's verdict rests on beyond its failing findings: a comparison's record said
to match although it compares no texts or was normalised by a run that normalised nothing, or
given a status no run writes or a side it says it lacks, is refused (exit 2), a match after a real `--normalize` and an audit finding a waiver covers are
named in the bundle, never read as a plain pass."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from bundle.helpers import seed
from cli_support import CliResult, run_k3diff
from triage.helpers import compare_texts

Edit = Callable[[dict[str, Any]], None]


def _report(tmp_path: Path, *names: str) -> CliResult:
    return run_k3diff("report", *names, "--out", "bundle", cwd=tmp_path)


def _forge(tmp_path: Path, name: str, edit: Edit) -> str:
    document = json.loads((tmp_path / name).read_text())
    edit(document)
    (tmp_path / "forged.json").write_text(json.dumps(document, indent=2))
    return "forged.json"


def _all_match(record_edit: Callable[[dict[str, Any]], None]) -> Edit:
    """Every differing record made a `match` by `record_edit`, the summary and verdict made to
    agree with the records (a consistent forgery but for what `record_edit` leaves)."""

    def edit(document: dict[str, Any]) -> None:
        records = document["records"]
        for record in records:
            if record["status"] != "match":
                record.update(status="match")
                record_edit(record)
        summary = document["summary"]
        summary["by_status"].update({"text-differs": 0, "match": len(records)})
        summary["differing"] = 0
        summary["exact_match"] = sum(1 for r in records if r["text_match"] is True)
        summary["normalized_match"] = sum(1 for r in records if r["normalized_match"])
        document["verdict"].update(ok=True, exit_code=0, reasons=[])

    return edit


def _relabel(status: str) -> Edit:
    """Every differing record given `status`, the summary and verdict made to agree."""

    def edit(document: dict[str, Any]) -> None:
        for record in document["records"]:
            if record["status"] == "text-differs":
                record["status"] = status
        summary = document["summary"]
        summary["by_status"].update({"text-differs": 0, status: 4})
        summary["differing"] = 0
        if status == "only-base":
            summary.update(paired=4, only_base=4, unpaired_allowed=True)
        document["verdict"].update(ok=True, exit_code=0, reasons=[])

    return edit


MATCH_EDITS: dict[str, tuple[Edit, str]] = {
    "a differing record given a status no run writes": (
        _relabel("skipped"),
        "record 'q0' has the status 'skipped', which no run of responses writes",
    ),
    "a paired record made one-sided": (
        _relabel("only-base"),
        "record 'q0' is only-base but holds the patch's answer",
    ),
    "a differing record made a match that compares no texts": (
        _all_match(lambda r: r.update(text_match=None)),
        "record 'q0' is a match that compares no texts (text_match null)",
    ),
    "a differing record made a match after a normalisation no run asked for": (
        _all_match(lambda r: r.update(normalized_match=True)),
        "record 'q0' matches only after --normalize, but the run normalised nothing",
    ),
}


@pytest.mark.parametrize("case", sorted(MATCH_EDITS))
def test_a_comparison_forged_to_match_is_refused(tmp_path: Path, case: str) -> None:
    edit, message = MATCH_EDITS[case]
    comparison, _, _ = seed(tmp_path)
    assert _report(tmp_path, comparison).exit_code == 1
    result = _report(tmp_path, _forge(tmp_path, comparison, edit))
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("k3diff: error: forged.json: "), line
    assert message in line, line


def test_normalised_matches_miscounted_are_refused(tmp_path: Path) -> None:
    compare_texts(tmp_path, {"a": ("x ", "x"), "b": ("y", "y")})
    run = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--normalize", "trailing-whitespace",
        "--format", "json", "-o", "norm.json", cwd=tmp_path,
    )  # fmt: skip
    assert run.exit_code == 0, run.stderr
    forged = _forge(tmp_path, "norm.json", lambda d: d["summary"].update(normalized_match=0))
    result = _report(tmp_path, forged)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "summary.normalized_match is 0 but its records give 1" in result.stderr


def test_a_pass_after_normalize_is_named_in_the_bundle(tmp_path: Path) -> None:
    """`--normalize` is the run's stated option: records equal only after it differ as
    captured, and a bundle passing on them says so."""
    compare_texts(tmp_path, {"a": ("x ", "x"), "b": ("y", "y")})
    run = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--normalize", "trailing-whitespace",
        "--format", "json", "-o", "norm.json", cwd=tmp_path,
    )  # fmt: skip
    assert run.exit_code == 0, run.stderr
    assert _report(tmp_path, "norm.json").exit_code == 0
    report = (tmp_path / "bundle/REPORT.md").read_text()
    assert (
        "1 record matches only after --normalize trailing-whitespace (a): its texts differ as "
        "captured" in report
    ), report


def test_a_waived_audit_finding_is_named_in_the_bundle(tmp_path: Path) -> None:
    """An audit whose failing finding a waiver covers passes on the document's word (the
    waiver file is not in the bundle): the bundle names it, as it does a wheels document's."""
    wheel = wheelkit.make_wheel(
        tmp_path,
        "tool",
        "1.0",
        {"tool/__init__.py": b"x = 1\n"},
        record_overrides={"tool/__init__.py": "tool/__init__.py,sha256=AAAA,6"},
    )
    (tmp_path / "w.toml").write_text(
        '[[waiver]]\ncode = "A102"\npath = "tool/__init__.py"\nreason = "reviewed"\n'
    )
    run = run_k3diff(
        "audit", wheel.name, "--waivers", "w.toml", "--format", "json", "-o", "audit.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert run.exit_code == 0, run.stderr
    assert _report(tmp_path, "audit.json").exit_code == 0
    report = (tmp_path / "bundle/REPORT.md").read_text()
    assert (
        "audit.json: findings waived (--waivers): 1 × A102 reported, not failed; the waiver "
        "file is not in the bundle, so this rests on the document's word" in report
    ), report
