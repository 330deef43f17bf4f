"""A settled MMD power table (speed76) states no more power than the permutation test really has
(review76e). `_settled` answers 0 where, but with a chance of 1e-15, the table's seeded draws
would give under 1e-20, and 1.0 where they would give 1.0. The real test's rejection chance at a
table whose labellings reach its MMD² with share p is exactly P(Binomial(B, p) <= allowed):
checked with scipy.stats on the levels and permutations triage uses (α 0.1-0.01 over 1-300
records, B 1,999-99,999), a settled 1.0 is within 1e-15 of it and a settled 0 drops under 1e-20
(the figures docs/statistics.md states); and the 1e-15 itself, from the binomial pmf summed term
by term (not the incomplete beta that `binom.cdf` and `special.bdtr` share)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from k3diff.triage import mmdpower
from k3diff.triage.distribution import permutations_for

FAMILIES = [(alpha, tests) for alpha in (0.1, 0.05, 0.01) for tests in (1, 11, 51, 300)]
"""(α, records): triage's level α / records and its `permutations_for` them (1,999-99,999)."""


def _allowed(level: float, permutations: int) -> int:
    return math.floor(level * (1 + permutations) * (1 + 1e-12)) - 1


@pytest.mark.parametrize(("alpha", "tests"), FAMILIES)
def test_a_settled_answer_is_the_real_tests_rejection_chance(alpha: float, tests: int) -> None:
    permutations = permutations_for(tests, alpha)
    allowed = _allowed(alpha / tests, permutations)
    shares = np.concatenate([np.logspace(-30, -1, 600), np.linspace(0.1, 1.0, 200)])
    settled = [mmdpower._settled(float(share), allowed, permutations) for share in shares]
    truth = stats.binom.cdf(allowed, permutations, shares)
    for share, answer, real in zip(shares, settled, truth, strict=True):
        if answer == 1.0:
            assert stats.binom.sf(allowed, permutations, share) <= 1e-15, share
        elif answer == 0.0:
            assert real < 1e-20, (share, real)
    assert settled.count(0.0) and None in settled


@pytest.mark.parametrize(("alpha", "tests"), FAMILIES)
def test_the_draws_answer_otherwise_with_chance_1e15_at_most(alpha: float, tests: int) -> None:
    """Summed term by term from the binomial pmf (not the incomplete beta that `binom.cdf` and
    `special.bdtr` share): the thresholds of `_settling_hits`, and the chance that the seeded
    draws of a settled table would have answered otherwise."""
    permutations = permutations_for(tests, alpha)
    allowed = _allowed(alpha / tests, permutations)
    negligible_from, one_upto = mmdpower._settling_hits(allowed, permutations)
    terms = np.arange(allowed + 1)

    def answer(hits: int) -> float:
        share = (1 + hits) / (1 + permutations)
        return float(stats.binom.pmf(terms, permutations, share).sum())

    assert answer(negligible_from) < 1e-20 <= answer(negligible_from - 1)
    shares = np.logspace(-30, 0, 900)
    settled = np.array([mmdpower._settled(float(s), allowed, permutations) for s in shares])
    zeros, ones = shares[settled == 0.0], shares[settled == 1.0]
    fewer = stats.binom.pmf(np.arange(negligible_from)[:, None], permutations, zeros).sum(axis=0)
    assert (fewer <= 1e-15 * (1 + 1e-9)).all(), zeros[fewer > 1e-15]
    if one_upto >= 0:
        # at one_upto hits the draws answer 1.0: the chance of more than `allowed` under 1.2e-16
        tail = np.arange(allowed + 1, allowed + 2_000)
        share = (1 + one_upto) / (1 + permutations)
        assert stats.binom.pmf(tail, permutations, share).sum() < 1.2e-16
        more = np.arange(one_upto + 1, one_upto + 2_000)[:, None]
        beyond = stats.binom.pmf(more, permutations, ones).sum(axis=0)
        assert (beyond <= 1e-15 * (1 + 1e-9)).all(), ones[beyond > 1e-15]
