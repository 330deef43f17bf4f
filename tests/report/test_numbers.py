"""Printed magnitudes never read as something they are not, and lists that name records name
all of them or say how many they left out."""

from __future__ import annotations

import pytest

from k3diff.numbers import named, shown


@pytest.mark.parametrize(
    ("value", "places", "against", "expected"),
    [
        (4.8e-7, 6, 0.0, "4.8e-07"),  # six decimals would print 0.000000 while failing tol 0
        (0.10004, 4, 0.1, "0.10004"),  # four decimals would print the threshold itself
        (-0.0437, 4, None, "-0.0437"),
        (1.5203, 4, 0.1, "1.5203"),
        (0.0, 6, 0.0, "0.000000"),
        (2.5e-5, 4, None, "2.5e-05"),
    ],
)
def test_a_magnitude_prints_at_its_scale(
    value: float, places: int, against: float | None, expected: str
) -> None:
    text = shown(value, places, against)
    assert text == expected
    if against is not None and value != against:
        assert (float(text) > against) == (value > against)


def test_a_list_names_every_record_or_counts_the_rest() -> None:
    names = [f"c{n}" for n in range(7)]
    assert named(names) == "c0, c1, c2, c3, c4 and 2 more"
    assert named(names[:5]) == "c0, c1, c2, c3, c4"
    assert named(names, 3) == "c0, c1, c2 and 4 more"
