"""A triage made at a small α is judged again at the house α by `report` (alpha61): at
`--alpha 0.001` a patch whose every output is one the base never gave reads
`both-nondeterministic` and passes, but its corrected novelty p is well under 0.05, so the
bundle fails and its bottom line says what the house α changed. Through the scripted loopback
engines, `k3diff sample`, `k3diff triage` and `k3diff report`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

BASE = {"p1": {"alone": ["base A", "base B"]}}
PATCH = {
    "p1": {
        "alone": ["base A", "base B", "base A", "base B", "base A", "base B", "base A", "patch C"]
    }
}


def _report(tmp_path: Path, run: Any, alpha: str) -> tuple[Any, dict[str, Any]]:
    log = str(run.log.relative_to(tmp_path))
    made = run_k3diff(
        "triage", "cmp.json", log, "--alpha", alpha, "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code in (0, 1), made.stderr
    result = run_k3diff("report", "cmp.json", log, "t.json", "--out", "bundle", cwd=tmp_path)
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    return result, summary


def test_a_triage_at_alpha_0_001_that_passes_fails_at_the_house_alpha(
    tmp_path: Path, scripted: Any
) -> None:
    run = scripted(BASE, PATCH, repeats=40, modes=("serial",), triage_args=("--alpha", "0.001"))
    mode = run.mode("p1", "serial")
    assert mode["category"] == "both-nondeterministic", mode
    assert 0.001 < mode["novelty_p_adjusted"] <= 0.05, mode
    assert run.triage.exit_code == 0, run.text
    result, summary = _report(tmp_path, run, "0.001")
    assert result.exit_code == 1, result.stdout + result.stderr
    assert summary["verdict"] == {"ok": False, "exit_code": 1}
    line = next(line for line in summary["bottom_line"] if "house α" in line)
    assert line.startswith(
        "t.json judged at α = 0.001 (default 0.05); at the house α (the α every k3diff command "
        "defaults to, 0.05; report holds each document to it)"
    )  # polish61c: said on its first use; later uses read "the house α = 0.05"
    assert "p1 (serial, written both-nondeterministic): patch outputs the base never gave" in line
    # newuser61b: "(judged at α = 0.001, a regression candidate there)" read as the opposite of
    # what happened: p1 was no candidate at 0.001, and is one at the house α.
    assert "(judged at α = 0.001, where this was not a regression candidate): p1" in line
    assert summary["bottom_line"][0].startswith("FAIL: 1 regression candidate p1; "), summary
    markdown = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "at the house α (the α every k3diff command defaults to, 0.05;" in markdown
    # polish61c: "<=" read "&lt;= α" in REPORT.md; one record read "1 records".
    assert "(novelty p_adjusted " in line and ") ≤ α = 0.05" in line
    assert "&lt;" not in markdown
    assert "80 samples of 1 record (serial)" in markdown


@pytest.mark.parametrize("alpha", ["0.05", "0.1"])
def test_at_the_house_alpha_or_above_the_document_is_already_the_stricter_reading(
    tmp_path: Path, scripted: Any, alpha: str
) -> None:
    """At 0.05 triage makes the record a regression candidate itself; at 0.1 too (a larger α
    rejects more): the house α adds nothing, and the document is not named."""
    run = scripted(BASE, PATCH, repeats=40, modes=("serial",), triage_args=("--alpha", alpha))
    assert run.mode("p1", "serial")["category"] == "patch-outside-base"
    result, summary = _report(tmp_path, run, alpha)
    assert result.exit_code == 1, result.stderr
    assert not any("house α" in line for line in summary["bottom_line"])


@pytest.mark.parametrize("field", ["novelty_p_adjusted", "p_adjusted"])
def test_a_deleted_p_the_house_alpha_needs_is_not_a_pass(
    tmp_path: Path, scripted: Any, field: str
) -> None:
    """review61b: the document of the first test with its `novelty_p_adjusted` deleted (not
    nulled: the run again compared only the fields a document has, as an older one lacks some)
    passed `report` (exit 0) where the honest one fails. Triage writes the p wherever the
    house α needs it; without it the mode is not cleared. Deleting the Fisher p of a mode that
    does not need it changes nothing. Given with its evidence, a field deleted is refused
    outright since review62 (triage writes it today, and the document does not say it is
    older); read alone, the mode is not cleared."""
    run = scripted(BASE, PATCH, repeats=40, modes=("serial",), triage_args=("--alpha", "0.001"))
    log = str(run.log.relative_to(tmp_path))
    made = run_k3diff(
        "triage", "cmp.json", log, "--alpha", "0.001", "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    document = json.loads((tmp_path / "t.json").read_text())
    del document["records"][0]["modes"][0][field]
    (tmp_path / "t.json").write_text(json.dumps(document))
    given = run_k3diff("report", "cmp.json", log, "t.json", "--out", "given", cwd=tmp_path)
    assert given.exit_code == 2, given.stderr
    # recount80: the record's own corrected p must be its deciding mode's, so the document is
    # refused on reading, before the run again (read alone too): never a pass.
    assert f"records[0].{field} is " in given.stderr, given.stderr
    assert "disagrees with itself" in given.stderr, given.stderr
    result = run_k3diff("report", "t.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert f"records[0].{field} is " in result.stderr, result.stderr
