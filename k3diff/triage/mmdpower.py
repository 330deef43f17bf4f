"""What the MMD test that did not reject could have detected (`mmd_shift`, for
`power.detectable_shift`).

The simulated patch keeps the base's own output shares and moves a share ε of its answers to one
new answer. Two choices make the stated power honest (never above what the real test achieves on
a realistic new answer; mmdpower75):

- **Where the new answer lies** (`new_answer_row`): a rewording of the base's most typical
  answer, its mean kernel to the base samples c (`new_answer_kernel`: the largest mean kernel a
  base sample has to the other base samples) — a new answer as like the base, on average under
  the test's kernel, as the base's most typical sample is like the others. The population MMD²
  of the shift, ε² (1 − 2 Σ pⱼ k(new, xⱼ) + pᵀKp), depends on it through that mean alone, but
  the test's power does not: at c to every base answer alike (until power77) it was easier to
  detect than a rewording that joins a cluster of the base's answers at the same mean. Until
  mmdpower75 the new answer sat at kernel 0 to every base answer: a rewording (0.10-0.23) was
  detected 0.39-0.59 of the time at the 80 % stated.
- **The test's own law** (`_exact_rejects`): each simulated patch table (counts per answer a
  side; the MMD² depends on the texts only through them) goes, against the observed base counts,
  through the permutation test really run: `permutations` labellings of the pooled samples
  (multivariate hypergeometric draws of the patch's counts), p = (1 + hits) / (1 + B), detected
  where p <= the level. Where that is too costly (`EXACT_WORK`: many distinct answers and
  samples) a bootstrap stands in (`_bootstrap_rejects`): the null drawn from the pooled law (the
  base's shares with the new answer's share of the pooled samples, as the permutation test's
  reference set holds the new answers too), and each table's permutation floor.

numpy is imported inside the functions (the `--help` path never loads it).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from k3diff.triage import kernel as text_kernel
from k3diff.triage.distribution import SEED, SIMULATIONS, _enumerate

if TYPE_CHECKING:
    import numpy as np

EXACT_WORK = 30_000_000
"""Kernel products (distinct simulated tables × permutations × answers²) up to which a shift's
simulated tables go through the permutation test itself; above it, the pooled bootstrap."""
SETTLED_MISS = 1e-15
"""At most this chance, per simulated table, that `_exact_rejects`' seeded draws would have
answered otherwise than `_settled` does without them."""
NEGLIGIBLE = 1e-20
"""A table's rejection chance below this is answered 0 (`_settled`): 500 of them move the sum of
the detected shares by at most 5e-18, which `mmd_shift`'s floor (with its 1e-9) does not see."""
CONFIDENCE = 0.90
"""Two-sided confidence of the interval whose lower end (a one-sided 95 % bound) the simulated
power must reach (`_reaches`)."""


def smallest_permutation_p(sizes: tuple[int, int]) -> float:
    """The smallest p a permutation test of the side labels can give with these sample sizes:
    the observed labelling among the C(m + n, n) labellings, tied with its full swap when the
    sides are the same size (the MMD² is symmetric). Above the test's level no shift, however
    large, is detected."""
    m, n = sizes
    return (2 if m == n else 1) / math.comb(m + n, n)


def new_answer_kernel(kernel: np.ndarray, counts: np.ndarray) -> float:
    """The kernel value c the simulated new answer has to every base answer: the largest mean
    kernel a base sample has to the other base samples (its own copies at 1), from `kernel`
    between the distinct answers and `counts`, their samples. 0 for a base of one answer, whose
    test's p does not depend on c (the MMD² of two answers is a multiple of 1 − c)."""
    import numpy as np

    if len(counts) < 2:
        return 0.0
    return float(np.max((kernel @ counts - 1.0) / (counts.sum() - 1.0)))


def new_answer_row(kernel: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The simulated new answer's kernel to each distinct base answer: a rewording of the
    base's most typical answer (the one `new_answer_kernel` is read from), to every other answer
    as that one is and to it at t, t set so that its mean kernel to the base samples is
    c = `new_answer_kernel`: t = 1 − (Σⱼ nⱼ k(a, xⱼ) − N c) / n_a, within [0, 1] (power77). At c
    to every answer alike, the test detected a real rewording of that kind ("answer k is yes"
    among five "answer · is yes" of ten, mean kernel 0.729 to c 0.731) 0.78 of the time where
    0.87 was simulated. Zeros for a base of one answer (c = 0, see `new_answer_kernel`)."""
    import numpy as np

    if len(counts) < 2:
        zeros: np.ndarray = np.zeros(len(counts))
        return zeros
    typical = int(np.argmax((kernel @ counts - 1.0) / (counts.sum() - 1.0)))
    mean = new_answer_kernel(kernel, counts)
    row: np.ndarray = kernel[typical].astype(np.float64)
    row[typical] = 1.0 - (float(row @ counts) - float(counts.sum()) * mean) / counts[typical]
    return row


def mmd_shift(
    base: Sequence[str],
    sizes: tuple[int, int],
    level: float,
    power: float,
    permutations: int,
    smallest: Callable[[Callable[[float], bool]], float | None],
    exact_work: int = EXACT_WORK,
) -> float | None:
    """The smallest grid share of the patch's answers moved to the new answer that the MMD test
    on these base samples detects with `power` at `level` (`smallest` bisects the grid), or
    None. The same draws serve every share (a patch sample is new where its uniform is below
    the share, else the base answer it drew), and a table's decision is kept once made."""
    import numpy as np

    if smallest_permutation_p(sizes) > level:
        return None  # the permutation test cannot reject at this n, whatever the shift
    atoms = list(dict.fromkeys(base))
    counts = np.array([base.count(a) for a in atoms], dtype=np.int64)
    kernel = np.eye(len(atoms) + 1)
    kernel[:-1, :-1] = text_kernel.gram(atoms)
    kernel[-1, :-1] = kernel[:-1, -1] = new_answer_row(kernel[:-1, :-1], counts)
    rng = np.random.default_rng(SEED)
    m = sizes[0]
    moves = rng.random((SIMULATIONS, m))
    picks = rng.choice(len(atoms), size=(SIMULATIONS, m), p=counts / counts.sum())
    base_row = np.append(counts, 0)
    memo: dict[tuple[int, ...], float] = {}

    def detected(shift: float) -> bool:
        labels = np.where(moves < shift, len(atoms), picks)
        offsets = (labels + np.arange(SIMULATIONS)[:, None] * (len(atoms) + 1)).ravel()
        rows = np.bincount(offsets, minlength=SIMULATIONS * (len(atoms) + 1))
        unique, seen = np.unique(rows.reshape(SIMULATIONS, -1), axis=0, return_counts=True)
        todo = [tuple(row) for row in unique.tolist() if tuple(row) not in memo]
        if len(todo) * permutations * len(kernel) ** 2 <= exact_work:
            for table in todo:
                memo[table] = _exact_rejects(kernel, np.array(table), base_row, level, permutations)
            hit = np.array([memo[tuple(row)] for row in unique.tolist()])
        else:
            hit = _bootstrap_rejects(kernel, unique, base_row, level, shift, rng)
        return _reaches(math.floor((hit * seen).sum() + 1e-9), power)

    return smallest(detected)


def _reaches(hits: int, power: float) -> bool:
    """Whether `hits` detections of `SIMULATIONS` show `power`: the one-sided 95 % Clopper–Pearson
    lower bound of the detected share at least `power`, so the simulation's own error does not
    over-state it (hits at 80 % of 500 had shown as little as 76 % on the real test)."""
    from scipy import stats

    return bool(stats.binomtest(hits, SIMULATIONS).proportion_ci(CONFIDENCE).low >= power)


def _mmd(kernel: np.ndarray, patch: np.ndarray, base: np.ndarray) -> np.ndarray:
    """The biased MMD² per row of counts per answer (patch and base rows: one table each)."""
    diff = patch / patch[0].sum() - base / base[0].sum()
    result: np.ndarray = ((diff @ kernel) * diff).sum(axis=1)
    return result


def _exact_rejects(
    kernel: np.ndarray, patch: np.ndarray, base: np.ndarray, level: float, permutations: int
) -> float:
    """The chance that the permutation test really run rejects this table at `level`. Its p is
    estimated from `permutations` labellings drawn as the test draws them (the patch's counts per
    answer, multivariate hypergeometric from the pooled counts), as (1 + hits) / (1 + B); the
    test's own B draws then reject where at most level (B + 1) - 1 of them reach the observed
    MMD² (the test's tolerance), a binomial chance (scipy). A table whose p lies near the level
    is rejected only part of the time (one new answer short of all 5 at 5 a side, p = 0.048 at
    0.05: 7 times in 10 at B = 999), so the table is not counted as wholly detected on one
    draw. Seeded by the table: the answer does not depend on the order asked. Where the draws
    cannot move the answer (`_settled`: most tables of a few-answer base), they are not made
    (speed76: they were over half of a 50-record triage's CPU at 3-4 answers a record)."""
    import numpy as np
    from scipy import stats

    pooled, size = patch + base, int(patch.sum())
    observed = float(_mmd(kernel, patch[None, :], base[None, :])[0]) - 1e-12
    allowed = math.floor(level * (1 + permutations) * (1 + 1e-12)) - 1
    if allowed < 0:
        return 0.0
    share = _labelling_share(kernel, pooled, size, observed, permutations)
    settled = None if share is None else _settled(share, allowed, permutations)
    if settled is not None:
        return settled
    rng = np.random.default_rng([SEED, *pooled.tolist(), *patch.tolist()])
    drawn = rng.multivariate_hypergeometric(pooled, size, size=permutations)
    hits = int((_mmd(kernel, drawn, pooled[None, :] - drawn) >= observed).sum())
    p = (1 + hits) / (1 + permutations)
    return float(stats.binom.cdf(allowed, permutations, p))


def _labelling_share(
    kernel: np.ndarray, pooled: np.ndarray, size: int, reach: float, permutations: int
) -> float | None:
    """The share of all labellings of the pooled samples (`size` of them the patch's) whose
    MMD² is at least `reach`: every count vector the labels can give, weighted by its
    multivariate hypergeometric pmf. None where the compositions of `size` into the answers
    (`_compositions`, a superset of those vectors) are more than the `permutations` draws."""
    import numpy as np
    from scipy import special

    if math.comb(size + len(pooled) - 1, size) > permutations:
        return None
    tables = _compositions(len(pooled), size)
    tables = tables[(tables <= pooled).all(axis=1)]
    # log of prod_i C(pooled_i, x_i) / C(total, size): the multivariate hypergeometric pmf
    total = int(pooled.sum())
    log_p = special.gammaln(pooled + 1).sum() - special.gammaln(tables + 1).sum(axis=1)
    log_p -= special.gammaln(pooled - tables + 1).sum(axis=1)
    log_p -= special.gammaln(total + 1) - special.gammaln(size + 1)
    log_p += special.gammaln(total - size + 1)
    reaches = _mmd(kernel, tables, pooled[None, :] - tables) >= reach
    return min(1.0, float(np.exp(log_p[reaches]).sum()))


def _settled(share: float, allowed: int, permutations: int) -> float | None:
    """`_exact_rejects`' answer where its draws cannot move it, else None (speed76). Its hits
    are Binomial(B, `share`) (each of its B labellings reaches the observed MMD² with that
    chance, `_labelling_share`) and its answer falls as they grow (`_settling_hits`): where
    the chance of fewer hits than give an answer below `NEGLIGIBLE` is at most `SETTLED_MISS`,
    the answer is 0.0; where that of more hits than give 1.0 (in floating point) is, 1.0."""
    from scipy import special

    negligible_from, one_upto = _settling_hits(allowed, permutations)
    if (
        negligible_from <= 0
        or special.bdtr(negligible_from - 1, permutations, share) <= SETTLED_MISS
    ):
        return 0.0
    if one_upto >= 0 and special.bdtrc(one_upto, permutations, share) <= SETTLED_MISS:
        return 1.0
    return None


@functools.lru_cache(maxsize=16)
def _settling_hits(allowed: int, permutations: int) -> tuple[int, int]:
    """(the fewest hits from which `_exact_rejects`' answer is below `NEGLIGIBLE`, the most at
    which it is 1.0; -1 where none): its answer at every count of hits, falling as they grow."""
    import numpy as np
    from scipy import stats

    shares = (1 + np.arange(permutations + 1)) / (1 + permutations)
    answers = stats.binom.cdf(allowed, permutations, shares)
    below = np.flatnonzero(answers < NEGLIGIBLE)
    ones = np.flatnonzero(answers == 1.0)
    return (int(below[0]) if len(below) else permutations + 1, int(ones[-1]) if len(ones) else -1)


@functools.lru_cache(maxsize=16)
def _compositions(answers: int, size: int) -> np.ndarray:
    """Every vector of `answers` counts >= 0 summing to `size`, one per row (read-only)."""
    result = _enumerate([size] * answers, size)
    result.flags.writeable = False
    return result


def _bootstrap_rejects(
    kernel: np.ndarray,
    tables: np.ndarray,
    base: np.ndarray,
    level: float,
    shift: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Per patch table, rejection by the pooled bootstrap: the MMD² at least the critical value
    of both sides drawn from the pooled law (the base's shares, the new answer at its share of
    the pooled samples), and the table's permutation floor (`_permutation_floor`) at most the
    level."""
    import numpy as np

    m, n = int(tables[0].sum()), int(base.sum())
    pooled = base / n * (1.0 - shift * m / (m + n))
    pooled[-1] = shift * m / (m + n)
    null = _mmd(
        kernel,
        rng.multinomial(m, pooled, SIMULATIONS),
        rng.multinomial(n, pooled, SIMULATIONS),
    )
    bases = np.broadcast_to(base, tables.shape)
    statistic = _mmd(kernel, tables, bases)
    result: np.ndarray = (statistic >= _power_threshold(null, level)) & (
        _permutation_floor(tables, bases) <= level
    )
    return result


def _power_threshold(null: np.ndarray, level: float) -> float:
    """The smallest observed null value t with P_null(T >= t) <= level (above every null value
    where none)."""
    import numpy as np

    values = np.sort(null)
    # P(T >= values[i]), a tied value's whole mass counted: a null all 0 (a base of one
    # answer) gave threshold 0, which every simulated patch reaches (newuser74).
    tail = 1.0 - np.searchsorted(values, values, side="left") / len(values)
    ok = np.nonzero(tail <= level)[0]
    if not len(ok):
        return float(values[-1]) + 1e-9  # reject only above anything the null gave
    return float(values[ok[0]])


def _permutation_floor(patch: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Per simulated table (a row of counts per answer a side), a floor under the p of the
    permutation test really run: every labelling that gives the same table (and, with sides of
    one size, its swap) gives the same MMD², so p is at least their share of the C(m + n, m)
    labellings (newuser74: where the base gave one answer, 1 new answer in 20 passed the
    bootstrap's threshold, which the permutation test rejects only from 7 on at 0.0125)."""
    import numpy as np
    from scipy import special

    m, n = int(patch[0].sum()), int(base[0].sum())
    factorials = special.gammaln(np.arange(1, m + n + 2))
    same = (factorials[patch + base] - factorials[patch] - factorials[base]).sum(axis=1)
    total = factorials[m + n] - factorials[m] - factorials[n]
    swapped = np.where((patch != base).any(axis=1), math.log(2) if m == n else 0.0, 0.0)
    floor: np.ndarray = np.exp(same + swapped - total)
    return floor
