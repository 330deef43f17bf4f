"""The parts that keep memory bounded give exactly what holding everything would give."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

import pytest

from k3diff.documents.responses import record_line
from k3diff.responses import collect
from k3diff.responses.collect import RecordSpool, WorstFirst
from k3diff.responses.loaders import load_side
from k3diff.responses.model import LoadOptions
from k3diff.responses.results import RecordDiff, Status, worst_first_key
from k3diff.responses.spill import spill_side

from .fixtures import chat, chat_logprobs, completion, write_jsonl


def test_spilled_records_read_back_exactly_in_any_order(tmp_path: Path) -> None:
    logprobs = chat_logprobs([("Hi", -0.1, [("Hi", -0.1), ("Yo", -2.5)]), ("!", -0.3, [])])
    rows = [
        completion("a", "caf\u00e9 \ud83d\ude00", token_ids=[1, 2**40, -3], completion_tokens=7),
        chat("b", "Hi!", logprobs=logprobs),
        {"id": "c", "prompt": [{"role": "user", "content": "q"}], "text": "", "extra": [1.5]},
    ]
    path = write_jsonl(tmp_path / "cap.jsonl", rows)
    options = LoadOptions(None, include_volatile=True)
    loaded = load_side(path, "cap.jsonl", options).records
    with spill_side(path, "cap.jsonl", options) as side:
        assert (side.format, len(side), list(side.lines)) == ("jsonl", 3, [1, 2, 3])
        assert side.ids == ["a", "b", "c"]
        assert side.prompts == [None, None, loaded[2].prompt_digest]
        for position in (2, 0, 1, 1):
            # repr: the logprob arrays hold NaN (no second alternative), and NaN != NaN.
            assert repr(side.record(position)) == repr(loaded[position])


def diff(key: str, status: Status, similarity: float | None) -> RecordDiff:
    return RecordDiff(
        key=key,
        status=status,
        prompt_preview=None,
        base=None,
        patch=None,
        text_match=None,
        normalized_match=False,
        token_match=None,
        similarity=similarity,
        divergence=None,
        field_changes=(),
    )


def test_worst_first_keeps_what_a_full_sort_would_show() -> None:
    rng = random.Random(7)
    diffs = [
        diff(f"k{rng.randrange(10**6)}-{n}", rng.choice(list(Status)), rng.choice([None, 0.5, 1.0]))
        for n in range(5000)
    ]
    expected = sorted(diffs, key=worst_first_key)
    for limit in (0, 1, 50, 4999, 6000):
        rows = WorstFirst(limit)
        for record in diffs:
            rows.add(record)
        shown = expected[:limit] if limit else expected
        assert rows.shown() == shown and rows.hidden == len(diffs) - len(shown)


@pytest.mark.parametrize("separator", ["\n", ",\n    "])
def test_spool_gives_back_every_record_in_order(separator: str) -> None:
    diffs = [diff(f"\ud800key {n} \u00e9", Status.MATCH, 1.0) for n in range(3)]
    with RecordSpool(separator) as spool:
        for record in diffs:
            spool.add(record_line(record))
        lines = list(spool.lines())
    assert all(line.isascii() and "\n" not in line for line in lines)
    assert [json.loads(line) for line in lines] == [record_line(record) for record in diffs]


def test_worst_first_lazy_offers_keep_what_eager_ones_keep() -> None:
    rng = random.Random(11)
    diffs = [
        diff(f"k{rng.randrange(10**6)}-{n}", rng.choice(list(Status)), rng.choice([None, 0.5, 1.0]))
        for n in range(5000)
    ]
    for limit in (0, 1, 50, 4999):
        eager, lazy = WorstFirst(limit), WorstFirst(limit)
        made = 0

        def make(record: RecordDiff) -> RecordDiff:
            nonlocal made
            made += 1
            return record

        for record in diffs:
            eager.add(record)
            lazy.add_lazy(worst_first_key(record), functools.partial(make, record))
        assert lazy.shown() == eager.shown() and lazy.hidden == eager.hidden
        if limit == 50:
            assert made < len(diffs) // 2  # most rows past the cut are never made


@pytest.mark.parametrize("separator", ["\n", ",\n    "])
@pytest.mark.parametrize("block", [5000, 997, 30])
def test_spool_blocks_join_records_as_the_list_writer_would(
    monkeypatch: pytest.MonkeyPatch, separator: str, block: int
) -> None:
    # many blocks, read at sizes that cut items and separators
    monkeypatch.setattr(collect, "JOINED_BYTES", block)
    diffs = [diff(f"key {n} \u00e9", Status.MATCH, 1.0) for n in range(2000)]
    with RecordSpool(separator) as spool:
        for n, record in enumerate(diffs):
            if n % 2:
                spool.add(record_line(record))
            else:
                spool.add_text(json.dumps(record_line(record)))
        one_by_one = list(spool.lines())
        blocks = list(spool.blocks())
    assert b"".join(blocks).decode("ascii") == separator.join(one_by_one)
    assert [json.loads(line) for line in one_by_one] == [record_line(d) for d in diffs]
    assert len(one_by_one) == 2000 and len(blocks) > 50


def test_spool_refuses_text_beyond_ascii() -> None:
    with RecordSpool(",\n    ") as spool:
        with pytest.raises(UnicodeEncodeError):
            spool.add_text('{"key": "\u00e9"}')
        assert spool.empty


def test_spool_separators_hold_one_newline() -> None:
    for separator in (", ", "\n\n"):
        with pytest.raises(ValueError, match="one newline"):
            RecordSpool(separator)
    with RecordSpool(",\n    ") as spool:
        assert list(spool.lines()) == [] and list(spool.blocks()) == [] and spool.empty


def test_read_back_across_blocks_in_any_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from k3diff.responses import spill

    monkeypatch.setattr(spill, "_READ_AHEAD", 700)  # a few records a block, some cut across
    rows = [completion(f"r{n}", "x" * (n % 37), token_ids=list(range(n % 50))) for n in range(300)]
    path = write_jsonl(tmp_path / "cap.jsonl", rows)
    options = LoadOptions()
    loaded = load_side(path, "cap.jsonl", options).records
    order = list(range(300)) + random.Random(3).sample(range(300), 300) + list(range(150, 300))
    with spill_side(path, "cap.jsonl", options) as side:
        for position in order:
            assert side.record(position) == loaded[position]
