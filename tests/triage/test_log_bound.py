"""The Clopper–Pearson upper bound below α = 1e-290 (`stats._upper_bound_in_logs`) against the
binomial tail computed independently in `decimal` at 60 digits (exact binomial coefficients):
the bound is never below the true one (it must never claim more than the samples allow), and it
never falls as α falls across 1e-290, where the scipy path hands over to it."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import pytest

from k3diff.triage import stats


def log_tail(n: int, k: int, p: float) -> Decimal:
    """log P(Binomial(n, p) <= k), in decimal at 60 digits."""
    with localcontext() as context:
        context.prec = 60
        chance = Decimal(p)
        log_p, log_q = chance.ln(), (1 - chance).ln()
        total = sum(
            (Decimal(math.comb(n, j)).ln() + j * log_p + (n - j) * log_q).exp()
            for j in range(k + 1)
        )
        return Decimal(total).ln()


@pytest.mark.parametrize("alpha", [math.nextafter(1e-290, 0.0), 1e-300, math.exp(-732.0), 5e-324])
@pytest.mark.parametrize("n", [30, 29_400, 10**6, 10**7, 10**8, 10**9])
@pytest.mark.parametrize("k", [0, 1, 2, 3, 5])
def test_the_bound_in_logs_is_never_below_the_true_bound(alpha: float, n: int, k: int) -> None:
    """P(Bin(n, bound) <= k) <= α: the tail at the bound is no more than α, so the true bound
    (where it equals α) is no higher (gammaln's cancellation at large n put it 2e-7 in log
    above α at n = 1e8)."""
    bound = stats.nonmodal_upper_bound(stats.Deviations(k, n), alpha)
    if bound < 1.0:
        with localcontext() as context:
            context.prec = 60
            assert log_tail(n, k, bound) <= Decimal(alpha).ln()


@pytest.mark.parametrize("n", [100, 29_400, 10**6, 10**7, 10**8, 10**9])
@pytest.mark.parametrize("k", [0, 1, 3, 5])
def test_the_bound_never_falls_as_alpha_crosses_into_logs(n: int, k: int) -> None:
    """At the next float below 1e-290 (logs) the bound is at least the one at 1e-290 (scipy)."""
    dev = stats.Deviations(k, n)
    at = stats.nonmodal_upper_bound(dev, 1e-290)
    assert stats.nonmodal_upper_bound(dev, math.nextafter(1e-290, 0.0)) >= at
