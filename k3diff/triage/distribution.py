"""The distribution tests of triage: does the patch draw its outputs from the base's distribution?

Two tests, one per kind of evidence (docs/statistics.md states what each claims):

- `count_test`, where outputs repeat (greedy decoding under batch variance): an exact
  conditional test on the 2 x k table of output counts (every table with the observed margins,
  weighted by its multivariate hypergeometric probability, as Fisher–Freeman–Halton), one-sided
  against each table's own base mode: the smaller of two scores' p-values, the patch samples
  off that mode and the hypergeometric tail of the patch's count of it. A patch settling on the
  base's own mode gets p = 1; one settling on an output the base gives rarely gets a small p
  however often the base gave it once.
- `mmd_tests`, where requests sample (every output new): a permutation two-sample test of the
  maximum mean discrepancy with the kernel of `kernel` (Hamming on the head, the tail and the
  first 1,024 characters, and the cosines of the whole text's hashed 3-gram counts, unplaced
  and placed in 32 parts), per record
  and summed over records, side labels permuted within each record.

numpy and scipy are imported inside the functions (the `--help` path never loads them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from k3diff.triage import kernel as text_kernel
from k3diff.triage.firstverdict import FirstTokenTest
from k3diff.triage.prefixes import Moved
from k3diff.triage.sampledlevel import judged_at

if TYPE_CHECKING:
    import numpy as np

PERMUTATIONS = 1_999
"""Label permutations of the MMD test at least (its p is at least 1 / 2,000); more where the
family needs it (`permutations_for`)."""
MOST_PERMUTATIONS = 99_999
"""Label permutations of the MMD test at most."""
SEED = 0
"""Seed of every random draw (permutations and power simulations): a run is reproducible."""
EXACT_TABLES = 200_000
"""Tables up to which the count test enumerates them all; above it, random relabellings
(seeded, as many as the MMD test draws)."""
MMD_SAMPLES = 1_000
"""Samples per side the MMD test compares at most (the first, in request order): its cost grows
with the square of the samples."""
SIMULATIONS = 500
"""Draws per shift size of the power simulations."""
SHIFT_GRID = tuple(step / 50 for step in range(1, 51))
"""Shift sizes the power simulation tries (0.02 to 1)."""


def off_mode(patch: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Per table (rows), the patch samples that are not the table's base's most common output;
    with a tie for it, the one the patch gives least (the larger count)."""
    import numpy as np

    top = base.max(axis=-1, keepdims=True)
    fewest = np.where(base == top, patch, np.iinfo(np.int64).max).min(axis=-1)
    result: np.ndarray = patch.sum(axis=-1) - fewest
    return result


def mode_tail(patch: np.ndarray, base: np.ndarray, tails: np.ndarray) -> np.ndarray:
    """Per table (rows), the one-sided hypergeometric tail of the patch's count of the table's
    own base mode: P(X <= the patch's count of it) under the margins (`tails[j, x]`); with a
    tie for the base's most common output, the smallest tail. Smaller is more extreme."""
    import numpy as np

    top = base.max(axis=-1, keepdims=True)
    looked = np.take_along_axis(tails, patch.T, axis=1).T
    result: np.ndarray = np.where(base == top, looked, np.inf).min(axis=-1)
    return result


RELATIVE = 1 + 1e-7
"""Values within this factor of the observed one count as at least as extreme (equal tails or
p-values computed along different paths differ in the last bits; as R's fisher.test)."""


def _ranked(weights: np.ndarray, *scores: np.ndarray) -> np.ndarray:
    """Per table, the smallest over `scores` (each: smaller is more extreme) of that score's
    p-value among the tables: the weight of the tables scoring at most as much."""
    import numpy as np

    best = np.full(len(weights), np.inf)
    for score in scores:
        order = np.argsort(score, kind="stable")
        running = np.cumsum(weights[order])
        bound = score + np.abs(score) * (RELATIVE - 1)
        upto = np.searchsorted(score[order], bound, side="right")
        best = np.minimum(best, running[upto - 1])
    return best


def count_test(
    patch: Sequence[str], base: Sequence[str], resamples: int = PERMUTATIONS
) -> tuple[int, float, bool]:
    """(statistic, one-sided p, exact): the conditional test of the patch's output counts given
    both sides' margins (docs/statistics.md). Two one-sided scores per table, each against the
    table's own base mode: the patch samples off it (`off_mode`) and the hypergeometric tail of
    the patch's count of it (`mode_tail`); the test statistic is the smaller of their two
    p-values (a min-p combination, calibrated over the same tables, so the level holds). The
    reported statistic is the patch samples off the base's mode. Exact over every table while
    there are at most `EXACT_TABLES`, else a seeded Monte Carlo of `resamples` relabellings
    (p = (1 + hits) / (1 + resamples), the observed table among the reference set)."""
    import numpy as np
    from scipy import special, stats

    names = list(dict.fromkeys([*base, *patch]))
    pooled = np.array([base.count(o) + patch.count(o) for o in names], dtype=np.int64)
    mine = np.array([patch.count(o) for o in names], dtype=np.int64)
    size, total = len(patch), int(pooled.sum())
    tails = stats.hypergeom.cdf(np.arange(size + 1)[None, :], total, pooled[:, None], size)
    counted = int(off_mode(mine[None, :], (pooled - mine)[None, :])[0])
    if _tables(pooled.tolist(), size) <= EXACT_TABLES:
        tables = _enumerate(pooled.tolist(), size)
        # log of prod_i C(pooled_i, x_i) / C(total, size): the multivariate hypergeometric pmf
        log_p = special.gammaln(pooled + 1).sum() - special.gammaln(tables + 1).sum(axis=1)
        log_p -= special.gammaln(pooled - tables + 1).sum(axis=1)
        log_p -= special.gammaln(total + 1) - special.gammaln(size + 1)
        log_p += special.gammaln(total - size + 1)
        weights = np.exp(log_p)
        exact = True
    else:
        rng = np.random.default_rng(SEED)
        labels = np.repeat(np.arange(len(names)), pooled)
        drawn_tables = [mine[None, :]]
        for start in range(0, resamples, 1_000):
            rows = min(1_000, resamples - start)
            drawn = rng.permuted(np.tile(labels, (rows, 1)), axis=1)[:, :size]
            flat = (drawn + np.arange(rows)[:, None] * len(names)).ravel()
            counts = np.bincount(flat, minlength=rows * len(names))
            drawn_tables.append(counts.reshape(rows, len(names)))
        tables = np.concatenate(drawn_tables)
        weights = np.ones(len(tables))
        exact = False
    rest = pooled - tables
    combined = _ranked(weights, -off_mode(tables, rest), mode_tail(tables, rest, tails))
    where = int(np.flatnonzero((tables == mine[None, :]).all(axis=1))[0])
    extreme = combined <= combined[where] * RELATIVE
    if bool(extreme.all()):
        return counted, 1.0, exact
    p = float(weights[extreme].sum()) / (1.0 if exact else float(weights.sum()))
    return counted, min(1.0, p), exact


def _tables(pooled: list[int], size: int) -> float:
    """How many patch count vectors fit the margins (0 <= x_i <= pooled_i, sum = size), counted
    in floating point (only compared with `EXACT_TABLES`): per output, a running sum of the
    ways to reach each total."""
    import numpy as np

    ways = np.zeros(size + 1)
    ways[0] = 1.0
    for cap in pooled:
        running = np.concatenate([[0.0], np.cumsum(ways)])
        low = np.maximum(np.arange(size + 1) - cap, 0)
        ways = np.minimum(running[1:] - running[low], 1e300)
    return float(ways[size])


def _enumerate(pooled: list[int], size: int) -> np.ndarray:
    """Every patch count vector fitting the margins, one per row."""
    import numpy as np

    rows: list[list[int]] = [[]]
    remaining = [sum(pooled[i:]) for i in range(len(pooled))] + [0]
    for index, cap in enumerate(pooled):
        grown: list[list[int]] = []
        for row in rows:
            left = size - sum(row)
            low = max(0, left - remaining[index + 1])
            grown.extend([*row, take] for take in range(low, min(cap, left) + 1))
        rows = grown
    return np.array(rows, dtype=np.int64).reshape(len(rows), len(pooled))


def permutations_for(tests: int, level: float) -> int:
    """Permutations whose smallest p, 1 / (1 + B), is at most a twentieth of the level a record
    needs when it is the only rejection (`level` over the `tests` of the family; `level` the α
    the family is judged at, α / 2 where a sampled mode is in it: `sampledlevel.judged_at`),
    within `PERMUTATIONS` and `MOST_PERMUTATIONS` (past it, 20 × tests / level > 100,000, the
    smallest p is 1 / 100,000; a level of 1e-308 or below, whose ratio overflows, too)."""
    wanted = min(20 * max(1, tests) / level, 1e9) if level > 0 else 1e9  # 20 / 1e-308 is inf
    return max(PERMUTATIONS, min(MOST_PERMUTATIONS, math.ceil(wanted - 1e-9) - 1))


def _mmd(kernel: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The biased (V-statistic) MMD² per labelling row: 1 marks a patch sample."""
    import numpy as np

    mine = labels.astype(np.float64)
    theirs = 1.0 - mine
    m, n = mine.sum(axis=1), theirs.sum(axis=1)
    km = mine @ kernel
    kt = theirs @ kernel
    within_patch = (km * mine).sum(axis=1) / (m * m)
    within_base = (kt * theirs).sum(axis=1) / (n * n)
    across = (km * theirs).sum(axis=1) / (m * n)
    result: np.ndarray = within_patch + within_base - 2.0 * across
    return result


@dataclass(frozen=True)
class MmdResult:
    """One record's MMD test (and its permuted statistics, for the pooled test)."""

    statistic: float
    """The observed MMD² (the kernel of `kernel.gram`)."""
    p: float
    """(1 + permutations scoring at least as high) / (1 + permutations)."""
    permuted: tuple[float, ...]
    """The statistic under each label permutation (the pooled test sums them across records)."""


def mmd_test(
    patch: Sequence[str], base: Sequence[str], rng: np.random.Generator, permutations: int
) -> MmdResult:
    """The permutation MMD test of one record's texts (labels permuted `permutations` times)."""
    import numpy as np

    kernel = text_kernel.gram([*patch, *base])
    labels = np.array([1] * len(patch) + [0] * len(base))
    observed = float(_mmd(kernel, labels[None, :])[0])
    permuted: list[np.ndarray] = []
    for start in range(0, permutations, 1_000):
        rows = min(1_000, permutations - start)
        permuted.append(_mmd(kernel, rng.permuted(np.tile(labels, (rows, 1)), axis=1)))
    scores = np.concatenate(permuted) if permuted else np.zeros(0)
    hits = int((scores >= observed - 1e-12).sum())
    return MmdResult(observed, (1 + hits) / (1 + permutations), tuple(scores.tolist()))


@dataclass(frozen=True)
class PooledSum:
    """A mode's pooled MMD test so far: its records' MMD² and permuted statistics, summed as each
    record is tested (B floats a mode, not B a record as until review78g: 200 records, 1.2 GB)."""

    records: int
    statistic: float
    permuted: np.ndarray


def pooled_add(total: PooledSum | None, result: MmdResult) -> PooledSum:
    """`total` with one more record's test added (in record order, as `pooled_p` sums)."""
    import numpy as np

    permuted = np.asarray(result.permuted, dtype=np.float64)
    if total is None:
        return PooledSum(1, result.statistic, permuted)
    summed = total.permuted + permuted
    return PooledSum(total.records + 1, total.statistic + result.statistic, summed)


def summed_p(total: PooledSum) -> float:
    """The pooled test's p: the summed MMD² against the sums of the records' own permutations."""
    hits = int((total.permuted >= total.statistic - 1e-12).sum())
    return float((1 + hits) / (1 + len(total.permuted)))


def pooled_p(results: Sequence[MmdResult]) -> float:
    """`summed_p` of the records' tests (one or more)."""
    total = pooled_add(None, results[0])
    for result in results[1:]:
        total = pooled_add(total, result)
    return summed_p(total)


@dataclass(frozen=True)
class DistributionTest:
    """One record's distribution test in one mode, after the correction across records."""

    kind: str
    """`counts` (exact conditional test on the output counts) or `mmd` (permutation MMD test,
    the kernel of `kernel.gram`)."""
    sampled: bool
    """The mode's requests sampled (temperature > 0, or top-p/top-k/min-p given without a
    temperature), from the samples logs' headers."""
    statistic: float
    """counts: patch samples that are not the base's most common output (`off_mode`; the test
    combines it with `mode_tail`); mmd: the MMD²."""
    p: float
    """The test's p (counts: one-sided, exact or seeded Monte Carlo; mmd: permutation)."""
    p_adjusted: float
    """`p` corrected across every distribution test of the run (records, modes, pooled)."""
    exact: bool
    """Every table was enumerated (counts); always False for the Monte Carlo tests."""
    moved: tuple[Moved, ...]
    """Per side, the prefix it gives most over the other side's share."""
    detectable_shift: float | None
    """The smallest share of answers moved to one answer the base does not give that the test
    had the settings' power to detect at α over the family size (simulated); None: none up to
    1, or not computed."""
    level: float
    """The level the power was computed at (α over the number of distribution tests)."""
    pooled_p: float | None = None
    """The mode's pooled test of this kind (every record of the mode this test ran on, labels
    permuted within each: MMD sums, or the count sums of `pooled_counts`)."""
    pooled_p_adjusted: float | None = None
    """`pooled_p` corrected with the others."""
    pooled_records: int = 0
    """Records the pooled test summed over."""
    pooled_exact: bool = False
    """The pooled count test convolved the records' exact laws (else Monte Carlo)."""
    pooled_statistic: float | None = None
    """counts: the record's term of its pool's statistic (`pooled_counts.pooled_statistic`);
    None: `statistic` is its term (mmd)."""
    pooled_leaders: tuple[tuple[str, float], ...] = ()
    """The records that carried most of the pooled statistic, as (name, share of it), largest
    first (`POOLED_LEADERS` at most): what a record flagged by the pool alone names (text
    only, not in the JSON document)."""
    permutations: int | None = None
    """The label permutations drawn (`permutations_for` the family); None for an exact count
    test whose pooled test, if any, is exact too."""
    first_token: FirstTokenTest | None = None
    """A sampled mode's first-token test, or why it was not used (None: the mode not sampled)."""

    def rejects(self, alpha: float) -> bool:
        """This record's test, its first-token test, or its mode's pooled test rejects after
        correction (the pooled rejection only for a record whose own statistic is above 0: an
        MMD² of 0, or no patch sample off the base's mode, added nothing to the pooled
        statistic). A sampled mode's test is judged at `sampledlevel.judged_at`."""
        alpha = judged_at(alpha, self.sampled)
        token = self.first_token is not None and self.first_token.rejects(alpha)
        term = self.statistic if self.pooled_statistic is None else self.pooled_statistic
        return token or pooled_rejects(self.p_adjusted, self.pooled_p_adjusted, term, alpha)

    @property
    def pooled_not_its_own(self) -> bool:
        """The mode's pooled test ran, but this record's sides are the same to the kernel."""
        term = self.statistic if self.pooled_statistic is None else self.pooled_statistic
        return self.pooled_p_adjusted is not None and term <= MMD_ZERO


MMD_ZERO = 1e-12
POOLED_LEADERS = 3
"""Records a pooled-only rejection names as carrying most of the pooled statistic."""
"""An MMD² at or below this is 0 (the kernel sees the two sides' texts as one distribution)."""


def pooled_rejects(
    p_adjusted: float, pooled_p_adjusted: float | None, statistic: float, alpha: float
) -> bool:
    """A record's test rejects, or its mode's pooled test does and the record's own MMD² is
    above 0 (a record whose sides the kernel cannot tell apart is never blamed for the pool)."""
    pooled = pooled_p_adjusted is not None and pooled_p_adjusted <= alpha
    return p_adjusted <= alpha or (pooled and statistic > MMD_ZERO)
