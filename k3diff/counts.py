"""Counts read from a server or a document, checked before any statistic sees them.

A server's `/perf_metrics`, a usage object or an edited document can hold any JSON number:
10^15 drafted tokens kept scipy's `fisher_exact` busy for minutes, and 10^19 (past a 64-bit
integer) made it raise a `TypeError`. So every count passes `checked_count` on its way in: a
non-negative integer no larger than `MAX_COUNT` (2^53 - 1, the largest a JSON reader in any
language holds exactly), or the input is refused in one line naming where the count was read. Callers
for whom a missing count means "not reported" pass `None` through; anything else that is not a
count (a string, a float, a boolean) is refused like an out-of-range one.

The statistics bound their own work further where their cost grows with the count (see
`FISHER_MAX_TOTAL`).
"""

from __future__ import annotations

from k3diff.errors import InputError

MAX_COUNT = 2**53 - 1
"""The largest count accepted: 9,007,199,254,740,991 (2^53 - 1, JSON's exact-integer range, as
`documents/samples.py` holds usage counts to)."""
FISHER_MAX_TOTAL = 10**8
"""The largest table total passed to Fisher's exact test; its cost grows with the total (about
0.4 s at 10^8, 4 s at 10^9, and 64-bit overflow past ~3 * 10^9), so beyond it the test is not
run and the report says so."""


def checked_count(value: object, where: str, limit: int = MAX_COUNT) -> int | None:
    """`value` as a count: None when absent (None), else a non-negative integer up to `limit`;
    InputError naming `where` (a file and line, a URL and field) for anything else."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        shown = repr(value)
        shown = shown if len(shown) <= 40 else shown[:39] + "…"
        raise InputError(f"{where}: {shown} is not a count (a non-negative integer); refused")
    if value < 0 or value > limit:
        size = f"{value:.3e}" if value.bit_length() > 60 else f"{value:,}"
        raise InputError(f"{where}: count {size} is out of range (0 to {limit:,}); refused")
    return value


def checked_total(values: list[int], where: str, limit: int = MAX_COUNT) -> int:
    """The sum of counts, refused like one count when it passes `limit`."""
    total = sum(values)
    if total > limit:
        raise InputError(f"{where}: total {total:,} is out of range (0 to {limit:,}); refused")
    return total
