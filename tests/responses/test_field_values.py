"""`fielddiff.values_changed`: where only values changed between two records' compared fields it
lists what deepdiff lists, and wherever deepdiff could say something else it leaves the pair to
deepdiff. Checked against deepdiff itself on random JSON values, changed value by value, key by
key and list by list."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k3diff.responses import fielddiff
from k3diff.responses.results import FieldChange

from .fixtures import completion, write_jsonl

KEYS = st.sampled_from(["a", "b", "c.d", "e[0]", "", "__p", "_q", "0", "usage", "é"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True, width=16),
    st.sampled_from(["", "x", "y", "1", "True"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=12,
)


@st.composite
def changed(draw: st.DrawFn, value: Any, shape: bool) -> Any:
    """`value` with some of its leaves replaced; with `shape`, keys added and removed and lists
    and whole parts replaced too."""
    if isinstance(value, dict):
        out = {key: draw(changed(item, shape)) for key, item in value.items()}
        if shape and draw(st.integers(0, 4)) == 0:
            out[draw(KEYS)] = draw(VALUES)  # a key added, or a value replaced whole
        if shape and out and draw(st.integers(0, 4)) == 0:
            out.pop(draw(st.sampled_from(sorted(out))))
        return out
    if isinstance(value, list):
        if not shape:
            return list(value)
        if draw(st.integers(0, 2)) == 0:
            return draw(VALUES)
        return [draw(changed(item, shape)) for item in value]
    return draw(SCALARS) if draw(st.integers(0, 2)) == 0 else value


@st.composite
def pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    old = draw(st.dictionaries(KEYS, VALUES, min_size=1, max_size=4))
    return old, draw(changed(old, draw(st.booleans())))


def _by_deepdiff(
    monkeypatch: pytest.MonkeyPatch, old: dict[str, Any], new: dict[str, Any]
) -> tuple[FieldChange, ...]:
    with monkeypatch.context() as patched:
        patched.setattr(fielddiff, "values_changed", lambda *args: False)
        return fielddiff._deepdiff_changes(old, new)


def _comparable(changes: tuple[FieldChange, ...]) -> list[tuple[Any, ...]]:
    # NaN never equals itself: compare the values as their JSON text, types kept
    return [(c.path, c.change, repr(c.base), repr(c.patch)) for c in changes]


@settings(
    max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pair=pairs())
def test_values_alone_listed_as_deepdiff_lists_them(
    monkeypatch: pytest.MonkeyPatch, pair: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    old, new = pair
    expected = _by_deepdiff(monkeypatch, json.loads(json.dumps(old)), json.loads(json.dumps(new)))
    found = fielddiff._deepdiff_changes(json.loads(json.dumps(old)), json.loads(json.dumps(new)))
    assert _comparable(found) == _comparable(expected)


@pytest.mark.parametrize(
    ("old", "new", "listed"),
    [
        ({"f": "stop", "u": {"t": 76}}, {"f": "length", "u": {"t": 77}}, True),
        ({"n": 1, "b": True, "z": None}, {"n": 1.0, "b": 1, "z": 0}, True),
        ({"l": [1, "x"], "s": "a"}, {"l": [1, "x"], "s": "b"}, True),
        ({"l": [1, 2]}, {"l": [2, 1]}, False),  # lists that differ: deepdiff pairs their items
        ({"l": [1.5]}, {"l": [1.5], "s": 1}, False),  # a key added
        ({"a": 1}, {"b": 1}, False),
        ({"__p": 1}, {"__p": 2}, False),  # deepdiff skips private-looking keys
        ({"l": [0.5], "s": 1}, {"l": [0.5], "s": 2}, False),  # a float in a list
        ({"x": math.nan}, {"x": math.nan}, False),
        ({"x": (1, 2)}, {"x": (1, 3)}, False),  # not a JSON value
    ],
)
def test_values_changed_takes_what_it_can_prove(
    old: dict[str, Any], new: dict[str, Any], listed: bool
) -> None:
    changes: list[FieldChange] = []
    assert fielddiff.values_changed(old, new, "", changes) is listed


def test_a_changed_finish_reason_and_token_count_reported_value_by_value(tmp_path: Path) -> None:
    base = write_jsonl(tmp_path / "base.jsonl", [completion("a", "same", completion_tokens=5)])
    patch = write_jsonl(
        tmp_path / "patch.jsonl",
        [completion("a", "same", finish="length", completion_tokens=6)],
    )
    code, report = run_json("responses", base, patch)
    assert code == 1
    (record,) = report["records"]
    assert record["status"] == "fields-differ"
    assert record["field_changes"] == [
        {"path": "finish_reason", "change": "changed", "base": "stop", "patch": "length"},
        {"path": "usage.completion_tokens", "change": "changed", "base": 5, "patch": 6},
    ]
