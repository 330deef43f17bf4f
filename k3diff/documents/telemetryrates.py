"""A telemetry document's acceptance rates, their intervals and the per-position tests
recounted from the counts they state (`checks.check_telemetry`): each `rate` is `accepted /
drafted` (per position, `accepted / drafts`), each `ci` the Clopper-Pearson interval at 1 - α
as `telemetry` computes it (`scipy.stats.binomtest(...).proportion_ci(method="exact")`), each
`position_tests[].p` Fisher's exact test of the two sides' counts at that position and each
`p_adjusted` Holm's of them, compared by `correction.recount_disagreement` (within 1e-9, read
toward rejecting at α). The counts themselves are the logs' (`acceptance_units`, where
recorded, add up to them: `telemetryrerun`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.correction import holm, recount_disagreement
from k3diff.counts import FISHER_MAX_TOTAL, MAX_COUNT
from k3diff.fields import SHARE, Fields, Within, is_number

SERVER_COUNT = Within(0, MAX_COUNT)
"""A speculation or position count: `telemetry` sums servers' counts up to `MAX_COUNT`
(`counts.checked_total`); a larger one reached scipy's `binomtest` and `fisher_exact` here as an
internal error (review80d: 10^20 drafted, TypeError; base80 refused it in one line)."""


@dataclass(frozen=True)
class StatedRate:
    """A rate and its interval as a document states them."""

    rate: float | None
    """accepted / drafted (None: nothing drafted)."""
    ci: tuple[float, float] | None
    """The Clopper-Pearson interval at 1 - α (None: nothing drafted)."""


def read_rate(fields: Fields) -> StatedRate:
    """`rate` and `ci`, which `telemetry` has written since it first wrote rates (a document
    without one had it removed: refused, as its schema does)."""
    for key in ("rate", "ci"):
        if not fields.has(key):
            raise fields.fail(key, "is missing")
    bounds = fields.raw("ci")
    ci = None
    if bounds is not None:
        shares = isinstance(bounds, list) and len(bounds) == 2
        if not shares or not all(_share(v) for v in bounds):
            raise fields.fail("ci", "must be a list of two numbers from 0 to 1, or null")
        ci = (float(bounds[0]), float(bounds[1]))
    return StatedRate(fields.optional_number("rate", SHARE), ci)


def _share(value: object) -> bool:
    return is_number(value) and not isinstance(value, str) and SHARE.holds(float(value))  # type: ignore[arg-type]


Counted = tuple[str, int, int, StatedRate | None]
"""(where, accepted, drafted, the stated rate) of one side or one side's position."""


def rate_problems(counted: Sequence[Counted], alpha: float) -> list[str]:
    """Each stated rate and interval against its counts."""
    from scipy.stats import binomtest

    problems = []
    for where, accepted, drafted, stated in counted:
        if stated is None:
            continue
        if not drafted:
            if stated.rate is not None or stated.ci is not None:
                problems.append(f"{where} states a rate or ci but nothing was drafted")
            continue
        if stated.rate is None or stated.ci is None:
            problems.append(f"{where} states no rate or ci of {accepted:,} of {drafted:,}")
            continue
        why = recount_disagreement(stated.rate, accepted / drafted, ())
        if why is not None:
            problems.append(f"{where}.rate is {why} of {accepted:,} of {drafted:,}")
        interval = binomtest(accepted, drafted).proportion_ci(1 - alpha, method="exact")
        for name, mine, again in zip(("low", "high"), stated.ci, interval, strict=True):
            why = recount_disagreement(mine, float(again), ())
            if why is not None:
                problems.append(
                    f"{where}.ci {name} is {why} (Clopper-Pearson at {1 - alpha:g} of "
                    f"{accepted:,} of {drafted:,})"
                )
    return problems


Position = tuple[str, int, int, int]
"""(side, position, accepted, drafts)."""
Tested = tuple[int, float, float]
"""(position, p, p_adjusted) of one position test."""


def position_test_problems(
    positions: Sequence[Position], tests: Sequence[Tested], alpha: float
) -> list[str]:
    """The position tests `telemetry.positions.position_tests` gives of the positions: one
    at each position both sides drafted at, Fisher's exact p of their counts, Holm's across.
    A position whose two sides drafted more than `FISHER_MAX_TOTAL` has its p taken as written
    (Holm's still recounted from it): Fisher's cost grows with the total, and a document's
    counts of 10^15 kept `report` busy past minutes (review80d); no verdict reads these tests."""
    from scipy.stats import fisher_exact

    sides = {
        name: {position: (a, d) for side, position, a, d in positions if side == name and d}
        for name in ("base", "patch")
    }
    shared = sorted(set(sides["base"]) & set(sides["patch"]))
    if [position for position, _, _ in tests] != shared:
        return [
            f"position_tests are at positions {[p for p, _, _ in tests]} but both sides drafted "
            f"at {shared}"
        ]
    recounted = []
    for position, written, _ in tests:  # at `shared`, as checked above
        (b, bd), (q, qd) = sides["base"][position], sides["patch"][position]
        if bd + qd > FISHER_MAX_TOTAL:  # its cost grows with the total: taken as written
            recounted.append(written)
            continue
        recounted.append(float(fisher_exact([[b, bd - b], [q, qd - q]]).pvalue))
    problems = []
    adjusted = holm(recounted)
    for index, ((_, p, p_adjusted), again, corrected) in enumerate(
        zip(tests, recounted, adjusted, strict=True)
    ):
        for name, mine, theirs in (("p", p, again), ("p_adjusted", p_adjusted, corrected)):
            why = recount_disagreement(mine, theirs, (alpha,))
            if why is not None:
                problems.append(
                    f"position_tests[{index}].{name} is {why} (Fisher's exact test of the "
                    "positions' counts, Holm's correction across them)"
                )
    return problems
