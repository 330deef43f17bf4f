"""What a distribution test that did not reject could have detected (`detectable_shift`).

The stated power is that of the test that is really run, at the level it is judged at:

- counts: patch samples are drawn from the base's own output distribution with a share `shift`
  moved to one answer the base does not give; each simulated patch, against the observed base
  counts, goes through `count_test` itself (the same exact conditional p, the same Monte Carlo
  where the tables are too many), and is detected where its p is at most the level.
- mmd: `mmdpower`: the base's answers, ε of the patch's moved to a new answer as like the base
  under the kernel as its most typical sample is like the others, through the permutation test
  itself (a pooled bootstrap where that is too costly).

numpy is imported inside the functions (the `--help` path never loads it).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from k3diff.triage import mmdpower
from k3diff.triage.distribution import (
    PERMUTATIONS,
    SEED,
    SHIFT_GRID,
    SIMULATIONS,
    count_test,
)

if TYPE_CHECKING:
    import numpy as np

FULL_TESTS = 24
"""At most this many simulated tables per record go through the full `count_test` (those the
bound of `_screen` cannot settle); past it an undecided table counts as not detected, so the
stated shift can only grow (claim less), never shrink, and the work stays bounded at large n."""

NEW = "\x00new answer"
"""The name of the simulated patch's new answer (no base output digest looks like it)."""


def detectable_shift(
    base: Sequence[str],
    sizes: tuple[int, int],
    level: float,
    power: float,
    kind: str,
    permutations: int = PERMUTATIONS,
) -> float | None:
    """The smallest grid share (`SHIFT_GRID`) of the patch's answers moved to one answer the base
    does not give that the test detects with `power` at `level`, simulated with `SIMULATIONS`
    patches per share (seeded). None: not even every patch answer new reaches it."""
    if kind == "counts":
        counts = tuple(sorted(Counter(base).values(), reverse=True))
        return _count_shift(counts, sizes[0], level, power, permutations)
    return mmdpower.mmd_shift(base, sizes, level, power, permutations, _smallest)


def _smallest(detected: Callable[[float], bool]) -> float | None:
    """Bisection over the grid (power grows with the shift): the smallest grid shift detected."""
    low, high = -1, len(SHIFT_GRID) - 1
    if not detected(SHIFT_GRID[high]):
        return None
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if detected(SHIFT_GRID[middle]) else (middle, high)
    return SHIFT_GRID[high]


@functools.lru_cache(maxsize=256)
def _count_shift(
    counts: tuple[int, ...], size: int, level: float, power: float, permutations: int
) -> float | None:
    """`detectable_shift` of the count test: the base's counts (names do not matter to the
    statistic), `size` patch samples. The same draws serve every shift (each patch sample is new
    where its uniform is below the shift, else the base output it drew), so the power is
    monotone in the shift draw by draw as far as the test's p is."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    names = [f"base output {i}" for i in range(len(counts))]
    base = [name for name, count in zip(names, counts, strict=True) for _ in range(count)]
    probs = np.array(counts, dtype=np.float64) / sum(counts)
    moves = rng.random((SIMULATIONS, size))
    picks = rng.choice(len(counts), size=(SIMULATIONS, size), p=probs)
    memo: dict[tuple[int, ...], bool] = {}
    calls = [0]

    def rejects(table: tuple[int, ...]) -> bool:
        if table not in memo:
            if counts[0] > counts[-1 if len(counts) == 1 else 1]:
                decided = _screen(np.array([*counts, 0]), np.array(table), level)
                if decided is not None:
                    memo[table] = decided
                    return decided
            if calls[0] >= FULL_TESTS:
                return False  # past the budget an undecided table counts as not detected
            calls[0] += 1
            patch = [NEW] * table[-1]
            patch += [n for n, c in zip(names, table[:-1], strict=True) for _ in range(c)]
            memo[table] = count_test(patch, base, permutations)[1] <= level
        return memo[table]

    def detected(shift: float) -> bool:
        labels = np.where(moves < shift, len(counts), picks)
        offsets = (labels + np.arange(SIMULATIONS)[:, None] * (len(counts) + 1)).ravel()
        tables = np.bincount(offsets, minlength=SIMULATIONS * (len(counts) + 1))
        rows = tables.reshape(SIMULATIONS, len(counts) + 1)
        unique, seen = np.unique(rows, axis=0, return_counts=True)
        hits = sum(int(n) for row, n in zip(unique, seen, strict=True) if rejects(tuple(row)))
        return hits >= power * SIMULATIONS

    return _smallest(detected)


def _screen(base: np.ndarray, patch: np.ndarray, level: float) -> bool | None:
    """The count test's decision (p <= level) where a bound settles it, else None. With the
    base's mode unique (index 0), a table whose hypothetical base (pooled - table) has that mode
    alone scores, on both of the test's scores, at least as extreme as the observed one exactly
    where x_0 <= the observed x_0; so each score's p differs from the hypergeometric tail
    P(X_0 <= x_0) by at most the chance that some other output j has at least as many
    hypothetical base samples (a union bound over j, each exact from the (0, j, rest) law). The
    test's p (their min-p combination) lies between the smaller of the two and twice it.

    The union bound's terms are added in j's order; the loop stops, answering None, as soon as
    the partial sum already excludes both answers (float sums of terms >= 0 only grow, so the
    full sum would exclude them too): the answer is the one the full sum gives."""
    pooled = base + patch
    total, size, first = int(pooled.sum()), int(patch.sum()), int(pooled[0])
    tail = _tail(int(patch[0]), total, first, size)
    flips = 0.0
    for other in pooled[1:].tolist():
        if not _open(tail, flips, level):
            return None
        flips += _flip_mass(first, other, total, size)
    return _decided(tail, flips, level)


def _decided(tail: float, flips: float, level: float) -> bool | None:
    """`_screen`'s answer from the tail and the union bound's sum."""
    if 2 * (tail + flips) * (1 + 1e-6) <= level:
        return True
    if tail - flips > level:
        return False
    return None


def _open(tail: float, flips: float, level: float) -> bool:
    """Whether a union bound sum of at least `flips` can still give True or False."""
    return 2 * (tail + flips) * (1 + 1e-6) <= level or tail - flips > level


@functools.lru_cache(maxsize=4096)
def _tail(observed: int, total: int, first: int, size: int) -> float:
    """The hypergeometric tail P(X_0 <= observed) of `_screen`."""
    from scipy import stats

    return float(stats.hypergeom.cdf(observed, total, first, size))


@functools.lru_cache(maxsize=4096)
def _flip_mass(first: int, other: int, total: int, size: int) -> float:
    """One term of `_screen`'s union bound: the chance, under the (0, j, rest) law of `size`
    draws from `total` pooled samples (`first` of the mode, `other` of output j), that the
    hypothetical base has at least as many of j as of the mode."""
    import numpy as np

    factorials = _log_factorials(total)
    grid = np.arange(size + 1)
    a, b = grid[:, None], grid[None, :]
    rest = total - first - other
    c = size - a - b
    ok = (a <= first) & (b <= other) & (c >= 0) & (c <= rest)
    log = (
        _log_choose(factorials, first, a)
        + _log_choose(factorials, other, b)
        + _log_choose(factorials, rest, c)
    )
    log -= factorials[total] - factorials[size]
    log += factorials[total - size]
    mass = np.where(ok, np.exp(np.where(ok, log, 0.0)), 0.0)
    return float(mass[(other - b) >= (first - a)].sum())


@functools.lru_cache(maxsize=8)
def _log_factorials(top: int) -> np.ndarray:
    """log n! for n = 0 .. top (`gammaln(n + 1)`, the same floats as gammaln of each n)."""
    import numpy as np
    from scipy import special

    result: np.ndarray = special.gammaln(np.arange(1, top + 2))
    result.flags.writeable = False
    return result


def _log_choose(factorials: np.ndarray, n: int, k: np.ndarray) -> np.ndarray:
    """log C(n, k) where 0 <= k <= n (anything elsewhere: masked by the caller), from the table
    of `_log_factorials`."""
    import numpy as np

    k = np.clip(k, 0, n)
    result: np.ndarray = factorials[n] - factorials[k] - factorials[n - k]
    return result


smallest_permutation_p = mmdpower.smallest_permutation_p
"""The smallest p the permutation test's labels can give (`mmdpower.smallest_permutation_p`)."""
