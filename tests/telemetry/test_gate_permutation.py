"""stop 62: `_permuted` sums only the smaller side's counts, from one int64 a unit, and draws
scipy's permutations itself; every p it gives is the one the statistic every earlier document
was permuted with gives (frozen below as it was), bit for bit: the same draws, the same
integers, the same rates."""

from __future__ import annotations

import random
from math import comb

import numpy
import pytest
from scipy.stats import permutation_test

from k3diff.telemetry import gate
from k3diff.telemetry.model import GATE_EXACT_SPLITS, GATE_RESAMPLES

Units = list[tuple[int, int]]


def _frozen(base: Units, patch: Units) -> tuple[float, float, bool]:
    """`k3diff.telemetry.gate._permuted` as it was at da69715 (before stop 62)."""
    units = base + patch
    accepted = numpy.array([u[0] for u in units], dtype=float)
    total = numpy.array([u[1] for u in units], dtype=float)

    def statistic(x: numpy.ndarray, y: numpy.ndarray, axis: int) -> numpy.ndarray:
        xi, yi = x.astype(int), y.astype(int)
        rate_x = accepted[xi].sum(axis=axis) / total[xi].sum(axis=axis)
        return rate_x - accepted[yi].sum(axis=axis) / total[yi].sum(axis=axis)  # type: ignore[no-any-return]

    splits = comb(len(units), len(base))
    exact = splits <= GATE_EXACT_SPLITS
    indices = numpy.arange(len(units), dtype=float)
    result = permutation_test(
        (indices[: len(base)], indices[len(base) :]),
        statistic,
        permutation_type="independent",
        vectorized=True,
        n_resamples=splits if exact else GATE_RESAMPLES,
        alternative="greater",
        rng=numpy.random.default_rng(gate.SEED),
        batch=max(1, gate.BATCH_CELLS // len(units)),
    )
    return float(result.pvalue), (1 / splits if exact else 1 / (GATE_RESAMPLES + 1)), exact


def _units(rng: random.Random, n: int, drafted: int, rate: float) -> Units:
    found = []
    for _ in range(n):
        total = rng.randint(1, drafted)
        found.append((sum(rng.random() < rate for _ in range(total)), total))
    return found


def _sets() -> list[tuple[str, Units, Units]]:
    rng = random.Random(62)
    return [
        ("exact, no drop", _units(rng, 6, 40, 0.6), _units(rng, 7, 40, 0.6)),
        ("exact, a drop", _units(rng, 8, 30, 0.7), _units(rng, 5, 30, 0.4)),
        ("resampled, no drop", _units(rng, 40, 60, 0.5), _units(rng, 55, 60, 0.5)),
        ("resampled, a small drop", _units(rng, 120, 20, 0.55), _units(rng, 90, 20, 0.5)),
        ("resampled, a drop", _units(rng, 30, 50, 0.7), _units(rng, 30, 50, 0.5)),
        ("resampled, base larger", _units(rng, 300, 8, 0.4), _units(rng, 25, 8, 0.38)),
        ("ties everywhere", [(3, 4)] * 20, [(3, 4)] * 22),
        ("ties, one differs", [(3, 4)] * 20 + [(0, 4)], [(3, 4)] * 22),
        ("one token a unit", [(1, 1), (0, 1)] * 15, [(1, 1), (0, 1), (0, 1)] * 10),
        ("large counts", _units(rng, 20, 10**6, 0.5), [(2**30 - 7, 2**30)] * 2),
        (
            "just below 2**31 drafted",
            [(2**25 - 1 - rng.randint(0, 99), 2**25 - 1) for _ in range(30)],
            [(2**25 - 1 - rng.randint(0, 120), 2**25 - 1) for _ in range(34)],
        ),
        ("past 2**31 drafted", [(2**40, 2**41)] * 30, [(2**40 - 9, 2**41)] * 30),
    ]


@pytest.mark.parametrize(("name", "base", "patch"), _sets(), ids=[s[0] for s in _sets()])
def test_p_values_are_the_frozen_statistics_bit_for_bit(
    name: str, base: Units, patch: Units
) -> None:
    gate._cache.clear()
    assert gate._permuted(base, patch) == _frozen(base, patch), name


def test_resampled_p_values_of_many_unit_sets_are_the_frozen_ones() -> None:
    rng = random.Random(2026)
    for _ in range(12):
        base = _units(rng, rng.randint(12, 80), rng.randint(1, 30), rng.random())
        patch = _units(rng, rng.randint(12, 80), rng.randint(1, 30), rng.random())
        assert comb(len(base) + len(patch), len(base)) > GATE_EXACT_SPLITS
        assert gate._permuted(base, patch) == _frozen(base, patch)
