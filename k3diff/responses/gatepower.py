"""The gate's power arithmetic: the level Holm guarantees, a metric's MDE at it, and about how
many items would bring the MDE to the tolerance (see `scoregate`'s docstring), and how a
difference or a tolerance is written."""

from __future__ import annotations

import math

from k3diff.responses.scores import ScoreKind, ScoreTest
from k3diff.responses.scoretests import signed_rank_can_reject

ITEMS_CAP = 100_000_000
"""`items_needed` is not searched past this many items (None beyond)."""


def level_for(alpha: float, metrics: int) -> float:
    """The level Holm guarantees each of `metrics` tests (any p ≤ α/m is rejected)."""
    return alpha / max(1, metrics)


def constant_shift(test: ScoreTest, level: float) -> bool:
    """Every item moved by the same amount: a continuous metric whose differences do not vary
    (no spread, so no MDE: `mde` None over two or more items, all moved or none), over at least
    the items the signed-rank test needs to reject anything at `level` (2^(1−n) ≤ level). Its
    observed drop is then exact across the items, no sampling error to size, and the gate
    compares it to the tolerance; fewer items are held (too few to decide anything)."""
    return (
        test.kind is ScoreKind.CONTINUOUS
        and test.mde is None
        and test.n >= 2
        and test.lost + test.gained in (0, test.n)
        and signed_rank_can_reject(test.n, level)
    )


def gate_mde(test: ScoreTest, alpha: float, level: float, power: float) -> float | None:
    """The metric's MDE at `level` (see the module docstring): a continuous one is its spread
    (`mde` at α over the drop per unit of spread at α) times the drop per unit at `level`."""
    if test.kind is ScoreKind.BINARY:
        from k3diff.responses.scoretests import mcnemar_mde

        return mcnemar_mde(test.n, test.lost + test.gained, level, power, alpha)
    if test.mde is None or not signed_rank_can_reject(test.n, level):
        return None
    if level == alpha:
        return test.mde
    from k3diff.responses.signedrankpower import mde_per_sd

    at_alpha, at_level = mde_per_sd(test.n, alpha, power), mde_per_sd(test.n, level, power)
    if at_alpha is None or at_level is None:
        return None
    return test.mde / at_alpha * at_level


def items_needed(
    test: ScoreTest,
    mde: float | None,
    tolerance: float | None,
    level: float,
    power: float,
    alpha: float,
) -> int | None:
    """About how many items would bring the MDE to the tolerance, at this run's discordant rate
    (binary, exact power, smallest count found by bisection; the rate's upper bound at α, as
    the MDE takes it) or spread (continuous, the closed form's 1/√n)."""
    if tolerance is None or tolerance <= 0:
        return None
    if test.kind is ScoreKind.CONTINUOUS:
        if mde is None:
            return None
        return max(test.n + 1, math.ceil(test.n * (mde / tolerance) ** 2))
    from k3diff.responses.scoretests import discordant_bound, mcnemar_power

    rate = discordant_bound(test.n, test.lost + test.gained, alpha)
    enough = max(test.n, 1)
    while mcnemar_power(enough, rate, tolerance, level) < power:
        if enough >= ITEMS_CAP:
            return None
        enough *= 2
    short = max(test.n, enough // 2)
    while enough - short > 1:
        middle = (short + enough) // 2
        if mcnemar_power(middle, rate, tolerance, level) >= power:
            enough = middle
        else:
            short = middle
    # The exact power steps with the counts: a held run is never told it had enough items.
    return max(enough, test.n + 1)


def amount(kind: ScoreKind, value: float) -> str:
    """A difference in the metric's units: `2.0 points` for a binary metric, `0.05` otherwise."""
    return f"{100 * value:.1f} points" if kind is ScoreKind.BINARY else f"{value:.3g}"


def tolerance_amount(kind: ScoreKind, value: float) -> str:
    """A tolerance as given, never rounded away: `2.0 points`, but `0.02 points` (a bare
    `--score-tolerance 0.02` read "0.0 points") and `1.25 points`; `0.005` otherwise."""
    if kind is not ScoreKind.BINARY:
        return f"{value:.6g}"
    points = 100 * value
    shown = f"{points:.1f}"
    if abs(float(shown) - points) > 1e-9 * max(1.0, abs(points)):
        shown = f"{points:.6g}"
    return f"{shown} points"
