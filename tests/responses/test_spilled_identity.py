"""Identical pairs found on the spilled bytes (`spill.identical_spilled`) are identical by
`matchpair.identical`, and a run that finds them so reports what reading every pair back reports.
"""

from __future__ import annotations

import marshal
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k3diff.documents.responses import record_line
from k3diff.responses import compare as compare_module
from k3diff.responses.compare import CompareOptions, compare_streaming
from k3diff.responses.fastshape import FastReader
from k3diff.responses.matchpair import identical
from k3diff.responses.model import LoadOptions
from k3diff.responses.packed import (
    ERROR,
    FINISH,
    LOGPROBS,
    OTHER,
    RUN_STATE,
    SCORES,
    TEXT,
    TOKEN_IDS,
    USAGE,
    Packed,
)
from k3diff.responses.results import RecordDiff
from k3diff.responses.spill import (
    NOT_PLAIN,
    PLAIN,
    PLAIN_WITH_IDS,
    SpilledSide,
    identical_spilled,
)

from .fixtures import completion, write_jsonl

_FIRST = FastReader(LoadOptions(None, False), "b").pack(completion("a", "hi", token_ids=[1]), 1)
assert _FIRST is not None
_BASE: Packed = _FIRST

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, -1, 2**40]),
    st.sampled_from([0.0, -0.0, 1.0, 1.5, math.nan, math.inf, -math.inf]),
    st.sampled_from(["", "a", "\u00e9", "\ud800", "NaN"]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["x", "y", "z"]), inner, max_size=3)
    ),
    max_leaves=6,
)
_FIELDS = st.fixed_dictionaries(
    {
        TEXT: st.sampled_from(["", "hi", "h\u00efi", "\ud83d\ude00", "hi "]),
        TOKEN_IDS: st.sampled_from([None, b"", b"\x01" + b"\x00" * 7, b"\x02" + b"\x00" * 7]),
        OTHER: st.sampled_from(['{"model":"m"}', '{"model":"n"}', '{"x":NaN}']),
        FINISH: st.sampled_from([None, "stop", "length"]),
        USAGE: st.none() | st.dictionaries(st.sampled_from(["p", "q"]), _VALUES, max_size=2),
        RUN_STATE: st.none() | st.dictionaries(st.sampled_from(["t", "u"]), _VALUES, max_size=2),
        ERROR: st.sampled_from([None, None, None, "boom"]),
        LOGPROBS: st.sampled_from([None, None, None, (("a",), b"\x00" * 8, (), 0)]),
        SCORES: st.sampled_from([(), (), (), (("acc", 1.0),)]),
    }
)


def _packed(fields: dict[int, Any]) -> Packed:
    values = list(_BASE)
    for index, value in fields.items():
        values[index] = value
    return tuple(values)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=_FIELDS, patch=_FIELDS, same=st.booleans())
def test_equal_spilled_bytes_mean_identical_records(
    base: dict[int, Any], patch: dict[int, Any], same: bool
) -> None:
    # the patch's values rebuilt: two decoded lines never share a float (NaN is NaN only then)
    records = (_packed(base), marshal.loads(marshal.dumps(_packed(base if same else patch))))
    sides = [SpilledSide(name, "jsonl", by_field=False) for name in ("b", "p")]
    try:
        for side, packed in zip(sides, records, strict=True):
            side.add_packed(packed)
        verdict = identical_spilled(sides[0], 0, sides[1], 0)
        if verdict != NOT_PLAIN:
            assert identical(*records, include_volatile=False)
            assert verdict == (PLAIN if records[0][TOKEN_IDS] is None else PLAIN_WITH_IDS)
            # a pair read back with the base's compared part is the pair as it was spilled
            compared = sides[0].compared_part(0)
            for side, packed in zip(sides, records, strict=True):
                assert repr(side.packed(0, compared)) == repr(packed)
        for side, packed in zip(sides, records, strict=True):
            assert repr(side.packed(0)) == repr(packed)  # repr: NaN != NaN
    finally:
        for side in sides:
            side.close()


def test_plain_records_with_equal_compared_fields_are_found_without_reading_back() -> None:
    record = _packed({USAGE: {"p": 1, "q": {"x": [2.5]}}, RUN_STATE: {"t": 0.25}})
    sides = [SpilledSide(name, "jsonl", by_field=False) for name in ("b", "p")]
    for side in sides:
        side.add_packed(record)
        side.add_packed(_packed({USAGE: {"p": math.nan}}))  # NaN != NaN: read back to judge
    assert identical_spilled(sides[0], 0, sides[1], 0) == PLAIN_WITH_IDS
    assert identical_spilled(sides[0], 1, sides[1], 1) == NOT_PLAIN
    for side in sides:
        side.close()


def _rows(usage: dict[str, Any]) -> list[dict[str, Any]]:
    rows = [completion(f"r{n}", f"text {n}", token_ids=[n, 7]) for n in range(6)]
    for row in rows[:3]:
        row["usage"] = usage
    rows[4]["choices"][0]["text"] = "changed"
    return rows


@pytest.mark.parametrize("usage", [{"prompt_tokens": math.nan}, {"latency": 0.5, "n": -0.0}])
@pytest.mark.parametrize("volatile", [False, True])
def test_a_run_reports_what_reading_every_pair_back_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, usage: dict[str, Any], volatile: bool
) -> None:
    base = write_jsonl(tmp_path / "base.jsonl", _rows(usage))
    patch_rows = _rows(usage)
    patch_rows[5]["usage"] = {"prompt_tokens": 3.0}
    patch = write_jsonl(tmp_path / "patch.jsonl", patch_rows)
    options = CompareOptions(include_volatile=volatile)

    def run() -> tuple[list[Any], Any]:
        lines: list[Any] = []

        def keep(diff: RecordDiff) -> None:
            lines.append(record_line(diff))

        overview = compare_streaming(base, patch, options, keep)
        return lines, overview

    fast = run()
    monkeypatch.setattr(compare_module, "identical_spilled", lambda *_args: NOT_PLAIN)
    assert repr(run()) == repr(fast)
