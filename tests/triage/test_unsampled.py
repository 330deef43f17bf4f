"""A record whose captured texts differ, never sampled on a side, is no pass.

The new-user trial: `k3diff triage cmp.json samples.jsonl` with a log holding only the records
that match (or a run whose patch server failed every request of the differing ones) read
"inconclusive: no samples for this key", "they do not fail the run", "serially, the patch
reproduces the base on 4 of 4 records" and "result: no regression candidate (exit 0)", while a
record whose samples exist but do not explain its capture fails (capture-unexplained): less
evidence passed where more failed. Such a record stays `inconclusive`, flagged `unsampled`, and
fails the run whatever `--fail-inconclusive` says; a matching record without samples has
nothing to explain and stays as it was.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import CliResult, run_k3diff

from .helpers import S, compare, compare_texts, completion, side, write_samples


def _setup(tmp_path: Path, differing: list[S]) -> None:
    """k1 differs in the capture (a / b), k2 matches; k2 is sampled on both sides, k1 only as
    `differing` says."""
    compare_texts(tmp_path, {"k1": ("a", "b"), "k2": ("same", "same")})
    samples = side("k2", "base", ["same"] * 3) + side("k2", "patch", ["same"] * 3)
    write_samples(tmp_path / "run" / "samples.jsonl", differing + samples)


def _triage(tmp_path: Path, *args: str) -> tuple[CliResult, dict[str, Any]]:
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", *args, cwd=tmp_path
    )
    assert result.exit_code in (0, 1), result.stderr
    return result, json.loads(result.stdout)


def _k1(document: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = next(r for r in document["records"] if r["key"] == "k1")
    return record


def test_a_differing_record_without_samples_fails(tmp_path: Path) -> None:
    _setup(tmp_path, [])
    result, document = _triage(tmp_path)
    record = _k1(document)
    assert result.exit_code == 1
    assert document["verdict"] == {"ok": False, "exit_code": 1}
    assert record["category"] == "inconclusive"
    assert "unsampled" in record["flags"]
    assert record["reason"].startswith(
        "unsampled: the captured texts differ but neither side was ever sampled"
    )
    assert "the difference is unexplained" in record["reason"]
    assert document["summary"]["unsampled"] == 1 and document["summary"]["held"] == 1


def test_a_patch_that_failed_every_request_fails(tmp_path: Path) -> None:
    _setup(tmp_path, side("k1", "base", ["a"] * 3) + side("k1", "patch", [None] * 3))
    result, document = _triage(tmp_path)
    record = _k1(document)
    assert result.exit_code == 1
    assert record["category"] == "inconclusive" and "unsampled" in record["flags"]
    assert record["reason"].startswith(
        "unsampled: the captured texts differ but the patch was never sampled (all 3 requests "
        "to it failed)"
    )


def test_it_fails_whatever_fail_inconclusive_says(tmp_path: Path) -> None:
    _setup(tmp_path, side("k1", "base", ["a"] * 3))
    for args in ((), ("--fail-inconclusive",)):
        result, document = _triage(tmp_path, *args)
        assert result.exit_code == 1, args
        assert "unsampled" in _k1(document)["flags"]
        assert "the patch was never sampled, so" in _k1(document)["reason"]


def test_a_matching_record_without_samples_stays_as_it_was(tmp_path: Path) -> None:
    compare_texts(tmp_path, {"k1": ("a", "b"), "k2": ("same", "same")})
    samples = side("k1", "base", ["a"] * 3) + side("k1", "patch", ["a"] * 3)
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    _, document = _triage(tmp_path)
    k2 = next(r for r in document["records"] if r["key"] == "k2")
    assert k2["category"] == "match" and "unsampled" not in k2["flags"]
    assert document["summary"]["unsampled"] == 0


def test_the_text_and_markdown_say_so(tmp_path: Path) -> None:
    _setup(tmp_path, [])
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1
    assert "no regression candidate" not in text.stdout
    assert "reproduces the base on 1 of 1 records sampled on both sides; 1 record whose " in (
        text.stdout
    )
    assert "result: 1 record whose captures differ was never sampled" in text.stdout
    markdown = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "markdown", cwd=tmp_path
    )
    assert markdown.exit_code == 1
    assert "No regression candidate" not in markdown.stdout
    assert "no regression candidate" not in markdown.stdout
    assert "whose captures differ was never sampled" in markdown.stdout


def _setup_unequal(tmp_path: Path, patch: list[dict[str, Any]], differing: list[S]) -> None:
    """k1's patch capture is `patch` (an error record, or none: one-sided), k2 matches and is
    sampled on both sides; k1 is sampled only as `differing` says."""
    base = [completion("k1", "a"), completion("k2", "same")]
    compare(tmp_path, base, [*patch, completion("k2", "same")])
    samples = side("k2", "base", ["same"] * 3) + side("k2", "patch", ["same"] * 3)
    write_samples(tmp_path / "run" / "samples.jsonl", differing + samples)


ERROR_RECORD = {"id": "k1", "error": {"message": "boom", "code": 500}}


def test_an_error_record_never_sampled_on_a_side_fails(tmp_path: Path) -> None:
    """The patch's capture of k1 is an error and every sample request to it failed: a patch
    whose server answers nothing passed ('no regression candidate', exit 0) where one that
    answered a different text fails (review56c)."""
    _setup_unequal(tmp_path, [ERROR_RECORD], side("k1", "base", ["a"] * 3))
    result, document = _triage(tmp_path)
    record = _k1(document)
    assert record["comparison_status"] == "error"
    assert record["category"] == "inconclusive" and "unsampled" in record["flags"]
    assert record["reason"].startswith(
        "unsampled: the comparison recorded an error for this key but the patch was never sampled"
    )
    assert result.exit_code == 1 and document["summary"]["unsampled"] == 1
    failed = side("k1", "base", ["a"] * 3) + side("k1", "patch", [None] * 4)
    _setup_unequal(tmp_path, [ERROR_RECORD], failed)
    result, document = _triage(tmp_path)
    assert result.exit_code == 1 and "unsampled" in _k1(document)["flags"]


def test_a_one_sided_record_never_sampled_on_its_missing_side_fails(tmp_path: Path) -> None:
    """k1 is only in the base capture and the patch was never sampled on it: nothing says what
    the patch answers (review56c)."""
    _setup_unequal(tmp_path, [], side("k1", "base", ["a"] * 3))
    result, document = _triage(tmp_path)
    record = _k1(document)
    assert record["comparison_status"] == "only-base"
    assert "unsampled" in record["flags"] and result.exit_code == 1


def test_an_error_record_sampled_on_both_sides_is_decided_by_its_samples(
    tmp_path: Path,
) -> None:
    """The capture's error was transient: the patch's samples reproduce the base's output."""
    sampled = side("k1", "base", ["a"] * 3) + side("k1", "patch", ["a"] * 3)
    _setup_unequal(tmp_path, [ERROR_RECORD], sampled)
    _, document = _triage(tmp_path)
    assert "unsampled" not in _k1(document)["flags"]


def test_sides_sampled_only_in_different_modes_fail(tmp_path: Path) -> None:
    """The base sampled only serially, the patch only concurrently (two logs pooled, or one
    edited): no mode compares the sides, so the difference is as unexplained as where a side
    was never sampled; it passed (exit 0) beside a record never sampled that fails (review56c)."""
    differing = side("k1", "base", ["a"] * 3) + side("k1", "patch", ["a"] * 3, mode="concurrent")
    _setup(tmp_path, differing)
    result, document = _triage(tmp_path)
    record = _k1(document)
    assert record["category"] == "inconclusive" and "unsampled" in record["flags"]
    assert (
        "no mode sampled both sides (the base only in serial, the patch only in concurrent)"
        in (record["reason"])
    )
    assert result.exit_code == 1 and document["summary"]["unsampled"] == 1
