"""The count test's stated power does not drift: `_count_shift` pinned to what the code of
4cb05a2 gave (before `_screen` stopped early and read a log-factorial table, power62), and
`_screen` equal to that code's arrays-of-gammaln union bound on random tables."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import special, stats

from k3diff.triage import power

PINNED = [
    ((3,), 3, 0.05, None),
    ((2, 1), 3, 0.05, None),
    ((1, 1, 1), 3, 0.05, None),
    ((5, 3, 1), 9, 0.05, 0.98),
    ((6, 2), 8, 0.05, 0.86),
    ((10, 10), 20, 0.05, 1.0),
    ((19, 1), 20, 0.05, 0.32),
    ((12, 5, 2, 1), 20, 0.01, 1.0),
    ((30, 20, 10), 60, 0.01, 1.0),
    ((40, 15, 5), 60, 0.05, 0.38),
    ((50, 5, 3, 2), 60, 0.0125, 0.34),
    ((20,) + (1,) * 40, 60, 0.01, 1.0),
    ((8,) + (1,) * 12, 20, 0.05, 1.0),
    ((25, 24, 11), 60, 0.05, 1.0),
]
"""(base counts, patch size, level, `_count_shift` at power 0.8 and 1,999 permutations), as
computed by the code of 4cb05a2."""


@pytest.mark.parametrize(("counts", "size", "level", "shift"), PINNED)
def test_count_shift_is_pinned(
    counts: tuple[int, ...], size: int, level: float, shift: float | None
) -> None:
    assert power._count_shift(counts, size, level, 0.8, 1_999) == shift


def test_the_demo_at_60_repeats_is_pinned() -> None:
    base = ["modal"] * 20 + [f"other {i}" for i in range(40)]
    assert power.detectable_shift(base, (60, 60), 0.01, 0.8, "counts") == 1.0


def _reference_screen(base: np.ndarray, patch: np.ndarray, level: float) -> bool | None:
    """`_screen` as 4cb05a2 wrote it: every term, from gammaln on (size + 1)² arrays."""

    def log_choose(n: np.ndarray | int, k: np.ndarray) -> np.ndarray:
        k = np.clip(k, 0, n)
        result: np.ndarray = (
            special.gammaln(np.asarray(n) + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)
        )
        return result

    pooled = base + patch
    total, size = int(pooled.sum()), int(patch.sum())
    tail = float(stats.hypergeom.cdf(int(patch[0]), total, int(pooled[0]), size))
    grid = np.arange(size + 1)
    a, b = grid[:, None], grid[None, :]
    rest = total - pooled[0] - pooled[1:]
    flips = 0.0
    for j in range(1, len(pooled)):
        c = size - a - b
        ok = (a <= pooled[0]) & (b <= pooled[j]) & (c >= 0) & (c <= rest[j - 1])
        log = log_choose(pooled[0], a) + log_choose(pooled[j], b) + log_choose(rest[j - 1], c)
        log -= special.gammaln(total + 1) - special.gammaln(size + 1)
        log += special.gammaln(total - size + 1)
        mass = np.where(ok, np.exp(np.where(ok, log, 0.0)), 0.0)
        flips += float(mass[(pooled[j] - b) >= (pooled[0] - a)].sum())
    if 2 * (tail + flips) * (1 + 1e-6) <= level:
        return True
    if tail - flips > level:
        return False
    return None


def test_screen_gives_the_full_union_bounds_answer() -> None:
    rng = random.Random(62)
    answers: set[bool | None] = set()
    for _ in range(300):
        counts = sorted((rng.randint(1, 30) for _ in range(rng.randint(2, 6))), reverse=True)
        counts[0] += counts[0] == counts[1]
        size = rng.randint(1, 40)
        cuts = sorted(rng.randint(0, size) for _ in counts)
        table = [high - low for low, high in zip([0, *cuts], [*cuts, size], strict=True)]
        level = rng.choice([0.001, 0.01, 0.0125, 0.05, 0.1, 0.5])
        base, patch = np.array([*counts, 0]), np.array(table)
        answer = power._screen(base, patch, level)
        assert answer == _reference_screen(base, patch, level), (counts, table, level)
        answers.add(answer)
    assert answers == {True, False, None}


def test_the_log_factorial_table_is_gammaln_of_each_integer() -> None:
    table = power._log_factorials(2_000)
    assert all(table[n] == special.gammaln(np.asarray(np.int64(n)) + 1) for n in range(2_001))
