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

from k3diff.telemetry import permutation
from k3diff.telemetry.gatemodel import GATE_EXACT_SPLITS, GATE_RESAMPLES

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
        rng=numpy.random.default_rng(permutation.SEED),
        batch=max(1, permutation.BATCH_CELLS // len(units)),
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
    permutation._cache.clear()
    assert permutation.permuted(base, patch) == _frozen(base, patch), name


def test_resampled_p_values_of_many_unit_sets_are_the_frozen_ones() -> None:
    rng = random.Random(2026)
    for _ in range(12):
        base = _units(rng, rng.randint(12, 80), rng.randint(1, 30), rng.random())
        patch = _units(rng, rng.randint(12, 80), rng.randint(1, 30), rng.random())
        assert comb(len(base) + len(patch), len(base)) > GATE_EXACT_SPLITS
        assert permutation.permuted(base, patch) == _frozen(base, patch)


# telemetry63: scipy counts a resample within 100 eps x |observed| of the observed as reaching
# it (theoretically equal rates whose floats differ in the last bits); stop 62's `_resampled`
# counted within 1 eps, and gave 0.0414 and 0.8413 on these (scipy 0.0423 and 0.8426).
NEAR_TIES = [
    [(8, 8), (6, 8), (0, 3), (3, 6), (4, 5), (1, 6), (2, 6), (3, 4), (0, 1), (2, 5), (2, 4), (2, 10)],
    [(0, 4), (3, 10), (5, 10), (5, 5), (2, 5), (2, 4), (2, 4), (1, 1), (6, 8), (5, 5), (1, 4), (3, 10)],
]  # fmt: skip


@pytest.mark.parametrize("units", NEAR_TIES)
def test_near_ties_are_counted_as_scipy_counts_them(units: Units) -> None:
    base, patch = units[:6] * 2, units[6:] * 2  # C(24, 12) splits: Monte Carlo
    assert permutation.permuted(base, patch) == _frozen(base, patch)
    # And enumerated: C(12, 6).
    assert permutation.permuted(units[:6], units[6:]) == _frozen(units[:6], units[6:])


def test_exact_p_values_of_many_unit_sets_are_the_frozen_ones() -> None:
    rng = random.Random(63)
    for _ in range(12):
        base = _units(rng, rng.randint(2, 9), rng.randint(1, 12), rng.random())
        patch = _units(rng, rng.randint(2, 9), rng.randint(1, 12), rng.random())
        assert comb(len(base) + len(patch), len(base)) <= GATE_EXACT_SPLITS
        assert permutation.permuted(base, patch) == _frozen(base, patch)


def _gate_like(rng: random.Random, sizes: tuple[int, int], count: int) -> list[tuple[Units, Units]]:
    """`count` comparisons of one gate: the same units a side, other counts each."""
    return [
        (
            _units(rng, sizes[0], rng.randint(1, 40), rng.random()),
            _units(rng, sizes[1], rng.randint(1, 40), rng.random()),
        )
        for _ in range(count)
    ]


@pytest.mark.parametrize("sizes", [(9, 9), (5, 8), (30, 24), (41, 12)])
def test_comparisons_of_one_size_share_their_splits_bit_for_bit(sizes: tuple[int, int]) -> None:
    rng = random.Random(sum(sizes))
    comparisons = _gate_like(rng, sizes, 6) + _gate_like(rng, (sizes[1], sizes[0]), 3)
    comparisons.append(comparisons[0])  # the same comparison twice in one gate
    permutation._cache.clear()
    found = permutation.p_values(comparisons)
    assert found == [_frozen(base, patch) for base, patch in comparisons]


def test_a_gate_of_65_comparisons_is_permuted_once_a_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before telemetry63, a cache of 64 comparisons dropped each of the 65 of a gate at 64
    # positions just before `report` asked for it again: everything was permuted twice.
    rng = random.Random(65)
    comparisons = _gate_like(rng, (12, 12), 65)
    calls: list[int] = []
    shared = permutation._shared

    def counted(group: list[tuple[Units, Units]]) -> list[tuple[float, float, bool]]:
        calls.append(len(group))
        return shared(group)

    monkeypatch.setattr(permutation, "_shared", counted)
    permutation._cache.clear()
    first = permutation.p_values(comparisons)
    again = permutation.p_values(comparisons)
    assert first == again and calls == [65]
