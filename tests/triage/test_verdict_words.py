"""The triage text report's counting words for a run of one record: found by the new-user
trial of stop 58 (one sampled record at temperature 1, one matching sample a side, held
no-power), whose text read "1 records: 1 inconclusive", "... the evidence could not clear
(...) fail" and "sampled records too few samples could not test"."""

from __future__ import annotations

from pathlib import Path

from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples


def test_one_held_record_is_counted_in_the_singular(tmp_path: Path) -> None:
    cmp = compare_texts(tmp_path, {"q": ("same", "same")})
    samples = [S("base", "q", "same"), S("patch", "q", "same")]
    log = write_samples(tmp_path / "s.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    assert "\n1 record: 1 inconclusive\n" in result.stdout
    assert "\n1 records:" not in result.stdout
    assert "sampled records whose test could not have detected --shift 35 % (no-power)" in (
        result.stdout
    )
    assert "too few samples could not test" not in result.stdout
    assert "1 record the evidence could not clear (" in result.stdout
    assert ") fails (exit 1)" in result.stdout


def test_the_inconclusive_line_names_only_the_cause_that_applied(tmp_path: Path) -> None:
    """polish63 (stop 62's trial): a record held no-power alone read 'a mode not exercised or
    unproven, samples of another condition, a patch capture the samples do not explain, or
    sampled records whose test could not have detected --shift 35 % (no-power)'."""
    cmp = compare_texts(tmp_path, {"q": ("same", "same")})
    samples = [S("base", "q", "same"), S("patch", "q", "same")]
    log = write_samples(tmp_path / "s.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    why = "(sampled records whose test could not have detected --shift 35 % (no-power))"
    assert f"it fails the run {why}" in result.stdout
    assert f"1 record the evidence could not clear {why} fails (exit 1)" in result.stdout
    for other in ("not exercised", "another condition", "capture the samples do not explain"):
        assert other not in result.stdout


def test_two_causes_are_both_named(tmp_path: Path) -> None:
    """A no-power record beside one never sampled: the line names those two, joined by 'or'
    (triage69: by ', or', as a list of three or more is)."""
    cmp = compare_texts(tmp_path, {"q": ("same", "same"), "r": ("a", "b")})
    samples = [S("base", "q", "same"), S("patch", "q", "same")]
    log = write_samples(tmp_path / "s.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    assert (
        "(captures that differ on a record never sampled or sampled records whose test could "
        "not have detected --shift 35 % (no-power))"
    ) in result.stdout
    assert "not exercised" not in result.stdout
