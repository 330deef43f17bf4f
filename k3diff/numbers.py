"""How a measured number is printed for a reviewer: the one helper every renderer uses, so that a
value never reads as something it is not.

A fixed number of decimals hides small values: a logprob difference of 4.8e-07 printed with six
decimals reads `0.000000` while it fails `--logprob-tol 0`. `shown` prints fixed decimals where
they show the value, significant digits where they would round it to zero, and, given the
threshold the value was judged against, as many digits as keep the printed comparison true.
"""

from __future__ import annotations

import math

MAX_DIGITS = 15
"""Never more decimals or significant digits than this (a double holds about 15)."""


def shown(value: float, places: int = 4, against: float | None = None) -> str:
    """`value` with `places` decimals, or in significant digits (`4.8e-07`) when those decimals
    would print a non-zero value as zero; with `against`, more digits until the printed value
    sits on the same side of `against` as the value itself (`0.10004` is not `0.1000`)."""
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if value == 0:
        return f"{0:.{places}f}"
    extra = 0
    text = _fixed_or_significant(value, places, extra)
    while (
        against is not None and places + extra < MAX_DIGITS and not _same_side(text, value, against)
    ):
        extra += 1
        text = _fixed_or_significant(value, places, extra)
    return text


def _fixed_or_significant(value: float, places: int, extra: int) -> str:
    if abs(value) >= 10.0**-places:
        return f"{value:.{places + extra}f}"
    return f"{value:.{2 + extra}g}"


def _same_side(text: str, value: float, against: float) -> bool:
    printed = float(text)
    return (printed > against) == (value > against) and (printed == against) == (value == against)


NAMED = 5
"""Names a sentence lists before counting the rest."""


def named(names: list[str] | tuple[str, ...], limit: int = NAMED, total: int | None = None) -> str:
    """`a, b, c` or `a, b, c, d, e and 2 more`: a list that names records names every one or
    says how many it left out (of `total`, where `names` holds only the first)."""
    shown_names = ", ".join(names[:limit])
    rest = (len(names) if total is None else total) - limit
    return shown_names + (f" and {rest:,} more" if rest > 0 else "")


def all_of(count: int) -> str:
    """'both' for 2, else 'all 3': the words before a count of everything (triage69: "all 2 are
    inconclusive")."""
    return "both" if count == 2 else f"all {count:,}"


def one_of(items: list[str] | tuple[str, ...], conjunction: str = "or") -> str:
    """'a', 'a or b', 'a, b, or c': a list as English joins it (triage69: "a, or b"); items that
    hold commas themselves are joined by semicolons, so each stays whole ('a, b; or c, d')."""
    if len(items) < 2:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} {conjunction} {items[1]}"
    sep = "; " if any("," in item for item in items) else ", "
    return f"{sep.join(items[:-1])}{sep.rstrip()} {conjunction} {items[-1]}"
