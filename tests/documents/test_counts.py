"""`k3diff.counts`: the bound a pooled total of server counts is held to."""

from __future__ import annotations

import pytest

from k3diff.counts import MAX_COUNT, checked_total
from k3diff.errors import InputError


def test_the_bound_is_jsons_exact_integer_range() -> None:
    assert MAX_COUNT == 9_007_199_254_740_991


def test_a_total_up_to_the_bound_passes_and_past_it_is_refused_naming_where() -> None:
    assert checked_total([MAX_COUNT - 1, 1], "w") == MAX_COUNT
    with pytest.raises(InputError) as caught:
        checked_total([MAX_COUNT, 1], "run/samples.jsonl: drafted")
    assert str(caught.value) == (
        "run/samples.jsonl: drafted: total 9,007,199,254,740,992 is out of range "
        "(0 to 9,007,199,254,740,991); refused"
    )
