"""Totals of counts read from a server, checked before any statistic sees them.

A server's `/perf_metrics` can hold any JSON number: 10^15 drafted tokens kept scipy's
`fisher_exact` busy for minutes, and 10^19 (past a 64-bit integer) made it raise a `TypeError`.
Each count is checked on its way in (`sample.usage.server_count`: a non-negative integer up
to 2^53 - 1, else not reported); their sums over requests are checked here by `checked_total`
against the same bound, and refused in one line naming the logs.

The statistics bound their own work further where their cost grows with the count (see
`FISHER_MAX_TOTAL`).
"""

from __future__ import annotations

from k3diff.errors import InputError

MAX_COUNT = 2**53 - 1
"""The largest count accepted: 9,007,199,254,740,991 (2^53 - 1, JSON's exact-integer range, as
`sample/usage.py` holds usage counts to)."""
FISHER_MAX_TOTAL = 10**8
"""The largest table total passed to Fisher's exact test; its cost grows with the total (about
0.4 s at 10^8, 4 s at 10^9, and 64-bit overflow past ~3 * 10^9), so beyond it the test is not
run and the report says so."""


def checked_total(values: list[int], where: str, limit: int = MAX_COUNT) -> int:
    """The sum of counts, refused like one count when it passes `limit`."""
    total = sum(values)
    if total > limit:
        raise InputError(f"{where}: total {total:,} is out of range (0 to {limit:,}); refused")
    return total
