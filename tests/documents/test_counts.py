"""`k3diff.counts`: what a count from a server or a document may be."""

from __future__ import annotations

import pytest

from k3diff.counts import MAX_COUNT, checked_count, checked_total
from k3diff.errors import InputError


@pytest.mark.parametrize("value", [0, 1, 2**53 - 1])
def test_non_negative_integers_up_to_2_to_the_53_minus_1_are_counts(value: int) -> None:
    assert checked_count(value, "f:1: n") == value


def test_absent_is_none() -> None:
    assert checked_count(None, "f:1: n") is None


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (-1, "count -1 is out of range"),
        (2**53, "count 9,007,199,254,740,992 is out of range"),
        (10**19, "count 1.000e+19 is out of range"),
        (10**30, "count 1.000e+30 is out of range"),
        (2.5, "2.5 is not a count"),
        (True, "True is not a count"),
        ("12", "'12' is not a count"),
        ("x" * 100, "is not a count"),
    ],
)
def test_anything_else_is_refused_naming_where(value: object, said: str) -> None:
    with pytest.raises(InputError) as caught:
        checked_count(value, "perf.jsonl:3: drafted")
    message = str(caught.value)
    assert message.startswith("perf.jsonl:3: drafted: ") and said in message
    assert len(message) < 160


def test_a_total_past_the_bound_is_refused() -> None:
    assert checked_total([MAX_COUNT - 1, 1], "w") == MAX_COUNT
    with pytest.raises(InputError, match="total 9,007,199,254,740,992 is out of range"):
        checked_total([MAX_COUNT, 1], "w")
