"""A sampled mode no distribution test ran on (a side with fewer than 2 answers) is held
`no-power`; a triage document edited to drop that hold is refused by `k3diff report`, whether
it keeps, drops or keeps the mode's `sampled` field (fix58 item 1), and one that relabels such a
mode a match is refused too (item 3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples

BASE = ["The answer is 3.", "The answer is 5.", "The answer is 8.", "The answer is 1."]


def _held(tmp_path: Path, base: list[str], patch: list[str | None]) -> dict[str, Any]:
    """Triage (JSON) of one record sampled at temperature 1; it must be held no-power."""
    cmp = compare_texts(tmp_path, {"q": (base[0], patch[0] or "Z")})
    samples = [S("base", "q", t) for t in base[1:]] + [S("patch", "q", t) for t in patch]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    document: dict[str, Any] = json.loads(result.stdout)
    record = document["records"][0]
    assert record["category"] == "inconclusive" and "no-power" in record["flags"], record
    assert record["modes"][0]["distribution"] is None
    assert record["modes"][0]["sampled"] is True
    return document


def _forge(document: dict[str, Any], category: str, sampled: object) -> dict[str, Any]:
    """The document edited so that no record is held: flags dropped, categories set, the
    verdict a pass; the modes' `sampled` set to `sampled` (deleted for `...`)."""
    summary = document["summary"]
    for record in document["records"]:
        record["flags"] = [f for f in record["flags"] if f != "no-power"]
        record["category"] = category
        for mode in record["modes"]:
            mode["category"] = category
            mode["flags"] = [f for f in mode["flags"] if f != "no-power"]
            if sampled is ...:
                del mode["sampled"]
            else:
                mode["sampled"] = sampled
    summary["inconclusive"] = sum(r["category"] == "inconclusive" for r in document["records"])
    summary[category] = sum(r["category"] == category for r in document["records"])
    summary["held"] = 0
    document["verdict"] = {"ok": True, "exit_code": 0}
    return document


def _report(tmp_path: Path, document: dict[str, Any]) -> Any:
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(document))
    return run_k3diff("report", str(forged), "--out", str(tmp_path / "bundle"), cwd=tmp_path)


@pytest.mark.parametrize("sampled", [True, ...], ids=["field-kept", "field-dropped"])
def test_a_forged_document_cannot_drop_the_hold_of_an_untested_sampled_mode(
    tmp_path: Path, sampled: object
) -> None:
    # The patch answered once of three (its other requests failed): no test ran, held.
    document = _held(tmp_path, BASE, ["Z", None, None])
    out = _report(tmp_path, _forge(document, "inconclusive", sampled))
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "sampled without power" in out.stderr, out.stderr


def test_sampled_false_against_its_distribution_test_is_refused(tmp_path: Path) -> None:
    cmp = compare_texts(tmp_path, {"q": (BASE[0], "Z")})
    samples = [S("base", "q", t) for t in BASE[1:]] + [S("patch", "q", t) for t in ("Z", "Y")]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    document = json.loads(result.stdout)
    mode = document["records"][0]["modes"][0]
    assert mode["distribution"] is not None and mode["distribution"]["sampled"] is True
    mode["sampled"] = False
    out = _report(tmp_path, document)
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "records[0].modes[0].sampled is false but its distribution test's is true" in (
        out.stderr
    )


def test_a_single_matching_sample_a_side_relabelled_a_match_is_refused(tmp_path: Path) -> None:
    # Item 3: at temperature 1 one matching sample a side is no match (held no-power); an edit
    # calling it one is refused: a match needs 2 or more outputs a side.
    document = _held(tmp_path, ["A", "A"], ["A"])
    out = _report(tmp_path, _forge(document, "match", True))
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "sampled without power" in out.stderr, out.stderr


def test_a_divergence_relabelled_a_match_is_refused(tmp_path: Path) -> None:
    """Base stable on A, patch stable on Z (2 a side, no power at this n): each side has one
    output 2 or more times, but not the same one; its novelty (2 patch samples the base never
    gave) says so. Relabelled a match with the hold dropped, report passed it with exit 0."""
    cmp = compare_texts(tmp_path, {"q": ("A", "Z")})
    samples = [S("base", "q", "A"), S("base", "q", "A"), S("patch", "q", "Z"), S("patch", "q", "Z")]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    document = json.loads(result.stdout)
    record = document["records"][0]
    assert record["modes"][0]["novelty"] == 2
    assert record["modes"][0]["distribution"]["detectable_shift"] is None
    document["summary"][record["category"]] -= 1
    document["summary"]["regression_candidates"] = 0
    for item in (record, record["modes"][0]):
        item["regression_candidate"] = False
    out = _report(tmp_path, _forge(document, "match", True))
    assert out.exit_code == 2, out.stdout + out.stderr
    assert "sampled without power" in out.stderr, out.stderr


def test_a_detectable_shift_no_test_of_its_sizes_can_have_is_refused(tmp_path: Path) -> None:
    """2 samples a side: no permutation test of the labels gives p below 1/C(4, 2) = 1/6, so
    no shift is detectable at α / 2 = 0.025. A document claiming one (`detectable_shift` 0.9) with
    the no-power hold dropped passed report with exit 0."""
    cmp = compare_texts(tmp_path, {"q": ("A", "Z")})
    samples = [S("base", "q", "A"), S("base", "q", "B"), S("patch", "q", "Z"), S("patch", "q", "Y")]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    document = json.loads(result.stdout)
    record = document["records"][0]
    assert record["modes"][0]["distribution"]["detectable_shift"] is None
    record["modes"][0]["distribution"]["detectable_shift"] = 0.9
    document["summary"][record["category"]] -= 1
    document["summary"]["regression_candidates"] = 0
    for item in (record, record["modes"][0]):
        item["regression_candidate"] = False
    out = _report(tmp_path, _forge(document, "inconclusive", True))
    assert out.exit_code == 2, out.stdout + out.stderr
    assert (
        "records[0].modes[0].distribution.detectable_shift is 0.9 but no test of 2 and 2 "
        "samples reaches p ≤ 0.025 (its smallest p is 1/6)"
    ) in out.stderr, out.stderr


def test_a_greedy_divergence_relabelled_a_match_is_refused(tmp_path: Path) -> None:
    """Greedy: base stable on A, patch stable on Z is a deterministic divergence; the edit
    calling it a match (no regression candidate) passed report with exit 0."""
    cmp = compare_texts(tmp_path, {"q": ("A", "Z")})
    samples = [S("base", "q", "A"), S("base", "q", "A"), S("patch", "q", "Z"), S("patch", "q", "Z")]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples)
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    document = json.loads(result.stdout)
    record = document["records"][0]
    assert record["regression_candidate"] is True and record["modes"][0]["sampled"] is False
    document["summary"][record["category"]] -= 1
    document["summary"]["regression_candidates"] = 0
    for item in (record, record["modes"][0]):
        item["regression_candidate"] = False
    out = _report(tmp_path, _forge(document, "match", False))
    assert out.exit_code == 2, out.stdout + out.stderr
    assert (
        "records[0].modes[0] is a match but its novelty counts 2 patch samples whose output the "
        "base never gave"
    ) in out.stderr, out.stderr
