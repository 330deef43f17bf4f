"""Every JSON document k3diff writes is RFC 8259: no bare NaN or Infinity."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from k3diff.jsontext import dumps

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=20,
)


def _strict(text: str) -> object:
    def refuse(constant: str) -> None:
        raise AssertionError(f"bare {constant}")

    return json.loads(text, parse_constant=refuse)


def test_non_finite_floats_become_their_names() -> None:
    value = {"a": [math.nan, math.inf, -math.inf, 1.5]}
    assert _strict(dumps(value)) == {"a": ["NaN", "Infinity", "-Infinity", 1.5]}


@given(_VALUES)
def test_any_value_encodes_as_rfc_8259(value: object) -> None:
    _strict(dumps(value, indent=2))


def test_finite_values_encode_as_json_dumps_does() -> None:
    value = {"x": [1, 2.5, "é", None, True]}
    assert dumps(value, indent=2) == json.dumps(value, indent=2)
    with pytest.raises(ValueError, match="Circular"):
        cycle: list[object] = []
        cycle.append(cycle)
        dumps(cycle)
