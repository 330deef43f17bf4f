"""The read path's two shortcuts give what the general calls give: `bounded.loads_line` (a
JSON line decoded without `JSONDecoder.decode`'s frames) against `bounded.loads`, and
`tokenbytes.token_id_bytes` (token ids packed by `struct`) against `array("q", ids)`."""

from __future__ import annotations

import json
from array import array
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from k3diff import bounded, strictjson
from k3diff.errors import InputError
from k3diff.responses.tokenbytes import token_id_bytes

SCALARS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True),
    st.text(max_size=5),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=12,
)


def _array_bytes(ids: list[Any]) -> bytes | None:
    if any(isinstance(i, bool) for i in ids):
        return None  # a JSON true or false is no token id, though the array takes it as 1 or 0
    try:
        return array("q", ids).tobytes()
    except (TypeError, OverflowError):
        return None


@given(st.lists(st.one_of(SCALARS, st.lists(SCALARS, max_size=2)), max_size=20))
def test_token_id_bytes_are_the_arrays_bytes(ids: list[Any]) -> None:
    assert token_id_bytes(ids) == _array_bytes(ids)


@given(st.lists(st.integers(min_value=-(2**63), max_value=2**63 - 1), max_size=300))
def test_int64_ids_of_any_length_pack(ids: list[int]) -> None:
    assert token_id_bytes(ids) == array("q", ids).tobytes()


def _general(text: str) -> tuple[str, Any]:
    """What `bounded.loads` makes of `text`: ("ok", value) or ("error", the exception type)."""
    try:
        return "ok", bounded.loads(text, "x")
    except (json.JSONDecodeError, InputError) as exc:
        return "error", type(exc)


def _same(one: Any, other: Any) -> bool:
    """Equal, NaN equal to NaN (json.dumps writes both alike)."""
    return json.dumps(one, sort_keys=True) == json.dumps(other, sort_keys=True)


LINE_ENDS = st.sampled_from(["", "\n", "\r\n", " \n", "\n\n", " x\n", "{}\n", "\t"])
LINE_STARTS = st.sampled_from(["", " ", "\ufeff", "\n"])


@given(VALUES, LINE_STARTS, LINE_ENDS)
def test_a_line_decodes_as_loads_decodes_it_or_is_left_to_loads(
    value: Any, start: str, end: str
) -> None:
    text = start + json.dumps(value) + end
    fast = bounded.loads_line(text)
    kind, general = _general(text)
    if fast is not None:
        assert kind == "ok"
        assert type(fast) is dict
        assert _same(fast, general)


@given(st.dictionaries(st.text(max_size=3), VALUES, min_size=1), st.sampled_from(["", "\n"]))
def test_a_plain_object_line_takes_the_shortcut(value: dict[str, Any], end: str) -> None:
    text = json.dumps(value) + end
    if text.count("[") + text.count("{") <= bounded.MAX_JSON_DEPTH:
        assert _same(bounded.loads_line(text), bounded.loads(text, "x"))


@given(st.integers(min_value=1, max_value=300), st.sampled_from(["[", '{"a": ']))
def test_deep_or_repeated_or_broken_lines_are_left_to_loads(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    text = '{"n": ' + opener * depth + ("1" if opener != "[" else "") + closer * depth + "}\n"
    kind, _ = _general(text)
    fast = bounded.loads_line(text)
    assert (fast is not None) == (kind == "ok" and depth + 1 <= bounded.MAX_JSON_DEPTH)
    assert bounded.loads_line('{"a": 1, "a": 2}\n') is None
    assert bounded.loads_line('{"a": 1\n') is None
    assert bounded.loads_line('{"a": ' + "9" * 5000 + "}\n") is None


def test_braces_in_strings_leave_a_line_on_the_shortcut() -> None:
    # the objects are counted as they are made: a `{` inside a string is no object
    text = '{"t": "' + "{" * 300 + '", "u": {"v": []}}\n'
    assert bounded.loads_line(text) == {"t": "{" * 300, "u": {"v": []}}
    # more containers than the cap, though shallow: `loads` measures the depth
    wide = '{"o": [' + ", ".join(["{}"] * 99) + "]}\n"
    assert bounded.loads_line(wide) is None
    assert bounded.loads(wide, "x") == {"o": [{}] * 99}


def test_a_line_read_before_any_document_is_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    # the strict decoder is made by the first read: a fresh process whose first JSON is a
    # responses line must not find it missing (was AttributeError on None, a traceback)
    monkeypatch.setattr(strictjson, "_DECODER", None)
    assert bounded.loads_line('{"id": 1}\n') == {"id": 1}
