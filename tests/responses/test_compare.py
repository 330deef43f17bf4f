"""Pairing, normalisation, logprob gaps and ordering, through `compare_streaming` as the command
runs it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from k3diff.documents.responses import overview_json, record_line
from k3diff.errors import ResponseFormatError, UsageError
from k3diff.responses import (
    CompareOptions,
    Normalization,
    RecordDiff,
    ResponsesOverview,
    Status,
    compare_streaming,
)
from k3diff.responses.pairing import KeyMode
from k3diff.responses.results import worst_first_key

from .fixtures import chat, chat_logprobs, completion, write_jsonl


@dataclass(frozen=True)
class Compared:
    """What `k3diff responses` reports: the overview, and every record diff in report order."""

    overview: ResponsesOverview
    records: list[RecordDiff]


def compare(tmp_path: Path, base: list, patch: list, **options: object) -> Compared:  # type: ignore[type-arg]
    b = write_jsonl(tmp_path / "base.jsonl", base)
    p = write_jsonl(tmp_path / "patch.jsonl", patch)
    records: list[RecordDiff] = []
    overview = compare_streaming(b, p, CompareOptions(**options), records.append)  # type: ignore[arg-type]
    return Compared(overview, records)


def test_ids_that_never_match_fall_back_to_the_prompt(tmp_path: Path) -> None:
    base = [
        {"id": "cmpl-1", "prompt": "p1", "text": "a"},
        {"id": "cmpl-2", "prompt": "p2", "text": "b"},
    ]
    patch = [
        {"id": "cmpl-9", "prompt": "p2", "text": "b"},
        {"id": "cmpl-8", "prompt": "p1", "text": "a"},
    ]
    result = compare(tmp_path, base, patch)
    assert result.overview.key_mode is KeyMode.PROMPT
    assert (
        result.overview.summary.paired == 2
        and result.overview.summary.exact_match == 2
        and not result.overview.differs
    )
    assert [r.prompt_preview for r in result.records] == ["p1", "p2"]


def test_shared_unique_ids_pair_and_one_sided_records_are_reported(tmp_path: Path) -> None:
    base = [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}]
    patch = [{"id": "b", "text": "y"}, {"id": "c", "text": "z"}]
    result = compare(tmp_path, base, patch)
    assert result.overview.key_mode is KeyMode.ID
    assert [(r.key, r.status) for r in result.records] == [
        ("a", Status.ONLY_BASE),
        ("b", Status.MATCH),
        ("c", Status.ONLY_PATCH),
    ]
    s = result.overview.summary
    assert (s.records, s.paired, s.only_base, s.only_patch, s.differing) == (3, 1, 1, 1, 0)
    assert (
        not result.overview.differs
    )  # one-sided records are reported, not counted as differing pairs


def test_duplicate_keys_are_an_error_naming_them(tmp_path: Path) -> None:
    base = [{"id": "a", "prompt": "p", "text": "x"}, {"id": "a", "prompt": "p", "text": "y"}]
    with pytest.raises(
        ResponseFormatError,
        match=r"base.jsonl: duplicate prompt-hash keys: prompt 'p' at lines 1, 2",
    ):
        compare(tmp_path, base, [{"id": "a", "prompt": "p", "text": "x"}])
    rows = [{"q": 1, "text": "x"}, {"q": 2, "text": "y"}, {"q": 1, "text": "z"}]
    with pytest.raises(
        ResponseFormatError, match=r"patch.jsonl: duplicate field keys: '1' at lines 1, 3"
    ):
        compare(tmp_path, rows[:2], rows, key="q")


def test_no_usable_key_asks_for_one(tmp_path: Path) -> None:
    with pytest.raises(
        UsageError,
        match=r"by id \(no id appears on both sides\) nor by prompt \(.*base.jsonl:1 has",
    ):
        compare(tmp_path, [completion("x", "t")], [completion("y", "t")])


def test_normalisation_is_reported_and_hashes_stay_exact(tmp_path: Path) -> None:
    base = [{"id": "a", "text": "caf\u00e9  \nok\n"}]
    patch = [{"id": "a", "text": "cafe\u0301\nok"}]
    assert compare(tmp_path, base, patch).records[0].status is Status.TEXT_DIFFERS
    result = compare(
        tmp_path, base, patch, normalize=(Normalization.TRAILING_WHITESPACE, Normalization.NFC)
    )
    record = result.records[0]
    # text_match means byte-equal: these texts match only after normalising.
    assert record.status is Status.MATCH and not record.text_match and record.normalized_match
    assert record.base is not None and record.patch is not None
    assert record.base.text_xxh3 != record.patch.text_xxh3
    assert result.overview.normalize == (Normalization.NFC, Normalization.TRAILING_WHITESPACE)
    assert overview_json(result.overview)["normalize"] == ["nfc", "trailing-whitespace"]
    assert result.overview.summary.normalized_match == 1


def test_near_tie_flip_reports_both_gaps(tmp_path: Path) -> None:
    base_lp = chat_logprobs(
        [
            ("The", -0.01, [("The", -0.01), ("A", -4.0)]),
            (" cat", -0.60, [(" cat", -0.60), (" dog", -0.80)]),
            (" sat", -0.1, []),
        ]
    )
    patch_lp = chat_logprobs(
        [
            ("The", -0.01, [("The", -0.01), ("A", -4.0)]),
            (" dog", -0.65, [(" dog", -0.65), (" cat", -0.70)]),
            (" sat", -0.1, []),
        ]
    )
    result = compare(
        tmp_path,
        [chat("a", "The cat sat", logprobs=base_lp)],
        [chat("a", "The dog sat", logprobs=patch_lp)],
    )
    divergence = result.records[0].divergence
    assert divergence is not None and divergence.char_offset == 4 and divergence.token_index is None
    gap = divergence.logprobs
    assert gap is not None and gap.token_index == 1 and gap.swapped_top2
    assert gap.base is not None and gap.patch is not None
    assert (gap.base.token, gap.base.gap, gap.base.top2) == (" cat", 0.2, (" dog", -0.8))
    assert (gap.patch.token, gap.patch.gap) == (" dog", 0.05)


def test_field_changes_are_plain_sorted_data(tmp_path: Path) -> None:
    base = completion("a", "same", completion_tokens=5)
    patch = completion("a", "same", completion_tokens=6, finish="length")
    patch["choices"][0]["stop_reason"] = 128001
    patch["created"] = 1  # volatile: ignored
    result = compare(tmp_path, [base], [patch])
    changes = record_line(result.records[0])["field_changes"]
    assert changes == [
        {"path": "choice.stop_reason", "change": "added", "base": None, "patch": 128001},
        {"path": "finish_reason", "change": "changed", "base": "stop", "patch": "length"},
        {"path": "usage.completion_tokens", "change": "changed", "base": 5, "patch": 6},
    ]
    volatile = compare(tmp_path, [base], [patch], include_volatile=True)
    assert "created" in [c.path for c in volatile.records[0].field_changes]


def test_worst_first_order(tmp_path: Path) -> None:
    base = [
        {"id": k, "text": t, "finish_reason": "stop"}
        for k, t in [
            ("m", "same"),
            ("near", "abcdefgh"),
            ("far", "abcdefgh"),
            ("f", "x"),
            ("gone", "g"),
        ]
    ]
    patch = [
        {"id": "m", "text": "same", "finish_reason": "stop"},
        {"id": "near", "text": "abcdefgX", "finish_reason": "stop"},
        {"id": "far", "text": "XXXXefgh", "finish_reason": "stop"},
        {"id": "f", "text": "x", "finish_reason": "length"},
        {"id": "new", "text": "n", "finish_reason": "stop"},
    ]
    result = compare(tmp_path, base, patch)
    assert [r.key for r in sorted(result.records, key=worst_first_key)] == [
        "far",
        "near",
        "f",
        "gone",
        "new",
        "m",
    ]
