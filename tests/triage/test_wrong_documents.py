"""A document given where another is wanted is named as what it is: a reviewer who swaps two
arguments reads "give the comparison first", not "not JSON (Extra data)"."""

from __future__ import annotations

from pathlib import Path

from cli_support import run_k3diff

from .helpers import S, compare_texts, write_samples


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    comparison = compare_texts(tmp_path, {"k": ("a", "b")})
    log = write_samples(tmp_path / "run" / "samples.jsonl", [S("base", "k", "a")])
    return comparison, log


def test_swapped_arguments_say_which_document_goes_where(tmp_path: Path) -> None:
    comparison, log = _inputs(tmp_path)
    swapped = run_k3diff("triage", log, comparison)
    assert swapped.exit_code == 2
    assert "a k3diff.samples/1 log, not a k3diff.responses/1 document" in swapped.stderr
    assert "give the comparison first" in swapped.stderr
    twice = run_k3diff("triage", comparison, comparison)
    assert twice.exit_code == 2
    assert "a k3diff.responses/1 document, not a k3diff.samples/1 log" in twice.stderr


def test_telemetry_names_a_comparison_given_as_a_log(tmp_path: Path) -> None:
    comparison, _ = _inputs(tmp_path)
    result = run_k3diff("telemetry", comparison)
    assert result.exit_code == 2
    assert "a k3diff.responses/1 document, not a k3diff.samples/1 log" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
