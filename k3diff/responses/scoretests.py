"""The paired score tests themselves (scipy and numpy are imported here, inside the functions,
never on the text path). What they mean is `k3diff.responses.scores`.

The smallest detectable difference (MDE) at α with the requested power:

- binary metrics: the exact power of McNemar's exact test (no approximation, no simulation).
  With n items, a discordant rate ψ and a true difference δ (the share of items lost minus the
  share gained), the discordant count D is Binomial(n, ψ) and, given D, the items lost are
  Binomial(D, (ψ + δ) / 2ψ); the test rejects where 2·P(Bin(D, ½) ≤ min(L, D − L)) ≤ α.
  ψ is the one-sided Clopper-Pearson upper bound at α on the run's discordant rate
  (lost + gained) / n, and at least δ (a difference needs at least that many discordant
  items): a run that saw few flips by luck does not claim the power of its plug-in rate
  (scores61; until then ψ was the plug-in rate). The MDE is the smallest δ whose power reaches the target
  (bisection; None when even δ = 1 does not).
- continuous metrics: sd(d), the sample standard deviation of the run's paired differences,
  times the drop per unit of spread the exact signed-rank test detects with the power (a
  seeded simulation of the exact test up to 50 items, above that the paired t-test's closed
  form (z₁₋α/₂ + z) / √n scaled by √(π/3) for the signed-rank test's efficiency under
  normality, Noether 1987; both sized at a margin over the power: `k3diff.responses.signedrankpower`, stats64b).
"""

from __future__ import annotations

import math
from array import array
from itertools import chain
from operator import neg
from typing import Any

from k3diff.responses.scores import (
    BINARY_TEST,
    CONTINUOUS_TEST,
    DEFAULT_ALPHA,
    DEFAULT_POWER,
    LOWER_IS_BETTER,
    ScoreCollector,
    ScoreKind,
    ScoresReport,
    ScoreTest,
    classify,
    moved,
)

BINARY_MDE = (
    "exact power of McNemar's exact test at the one-sided Clopper-Pearson upper bound (at "
    "alpha) on the run's discordant rate (at least the difference), smallest difference "
    "reaching the power by bisection"
)
CONTINUOUS_MDE = (
    "sd(differences) times the shift of normal differences the exact signed-rank test rejects "
    "in 90 % of 4,000 seeded simulated runs (up to 50 items), else the closed form "
    "(z(1-alpha/2) + z(0.9)) / sqrt(n) * sqrt(pi/3); sized at 0.9 for the stated 0.8"
)
_BISECTIONS = 20
_NEGLIGIBLE = 1e-13


def mcnemar_exact(lost: int, gained: int) -> float:
    """McNemar's exact test: the two-sided exact binomial p of `lost` of the discordant pairs."""
    if lost + gained == 0:
        return 1.0
    from scipy import stats

    return float(stats.binomtest(lost, lost + gained, 0.5).pvalue)


def wilcoxon_signed_rank(differences: Any) -> float:
    """The two-sided Wilcoxon signed-rank p of paired differences (zeros dropped).

    The zeros are dropped before scipy sees them, so that its `method="auto"` chooses by the
    items that moved: exact (or, with ties, every sign flip) for a few, the normal
    approximation for many. Handed all items, it chose by their count: 5 items lost of 200
    read p = 0.025 from the normal approximation, where the exact p is 2/32 = 0.0625."""
    import numpy as np
    from scipy import stats

    values = np.asarray(differences, dtype=float)
    moved = values[values != 0]
    if moved.size == 0:
        return 1.0
    return float(stats.wilcoxon(moved, zero_method="wilcox").pvalue)


def mcnemar_power(n: int, discordant_rate: float, delta: float, alpha: float) -> float:
    """The exact power of McNemar's exact test (see the module docstring)."""
    import numpy as np
    from scipy import stats

    psi = min(1.0, max(discordant_rate, delta))
    if psi <= 0:
        return 0.0
    # Only discordant counts with non-negligible probability matter (a few thousand at most,
    # whatever n): the rest add less than 1e-12 to the power.
    first = int(stats.binom.ppf(_NEGLIGIBLE, n, psi))
    last = int(stats.binom.isf(_NEGLIGIBLE, n, psi))
    counts = np.arange(max(0, first - 1), min(n, last + 1) + 1)
    lowest = stats.binom.ppf(alpha / 2, counts, 0.5)
    # The largest lost count still rejected on the low side (-1 where none is).
    k_low = np.where(stats.binom.cdf(lowest, counts, 0.5) <= alpha / 2, lowest, lowest - 1)
    q = min(1.0, (psi + delta) / (2 * psi))
    reject = stats.binom.cdf(k_low, counts, q) + stats.binom.sf(counts - k_low - 1, counts, q)
    reject = np.where(k_low >= 0, reject, 0.0)
    return float(np.sum(stats.binom.pmf(counts, n, psi) * reject))


def discordant_bound(n: int, discordant: int, alpha: float) -> float:
    """The one-sided Clopper-Pearson upper bound at `alpha` on the discordant rate: the ψ the
    MDE is stated at (1 when every item moved; 0 with no item)."""
    from scipy import stats

    if n == 0:
        return 0.0
    if discordant >= n:
        return 1.0
    return float(stats.beta.ppf(1 - alpha, discordant + 1, n - discordant))


def mcnemar_mde(
    n: int, discordant: int, alpha: float, power: float, bound_alpha: float | None = None
) -> float | None:
    """The smallest δ whose exact power at `alpha` reaches `power` (None when δ = 1 does not),
    at the upper bound on the discordant rate at `bound_alpha` (default `alpha`: the gate
    states the MDE at α/m and bounds the rate at the run's α)."""
    rate = discordant_bound(n, discordant, alpha if bound_alpha is None else bound_alpha)
    if n == 0 or mcnemar_power(n, rate, 1.0, alpha) < power:
        return None
    low, high = 0.0, 1.0
    for _ in range(_BISECTIONS):
        middle = (low + high) / 2
        if mcnemar_power(n, rate, middle, alpha) >= power:
            high = middle
        else:
            low = middle
    return high


def wilcoxon_mde(differences: Any, alpha: float, power: float) -> float | None:
    """The MDE of the signed-rank test at `alpha` (`k3diff.responses.signedrankpower`): None
    with fewer than two items, too few for the test to reject anything at `alpha`, or no
    variation in the differences."""
    import numpy as np

    from k3diff.responses.signedrankpower import mde_per_sd

    values = np.asarray(differences, dtype=float)
    if values.size < 2:
        return None
    sd = float(np.std(values, ddof=1))
    per_sd = mde_per_sd(int(values.size), alpha, power)
    if sd == 0 or per_sd is None:
        return None
    return per_sd * sd


def signed_rank_can_reject(items: int, level: float) -> bool:
    """Whether the two-sided signed-rank test of `items` items can give p ≤ `level` at all: its
    smallest p, every item moved one way, is 2 / 2^items (stats64: 5 items, whose smallest p is
    0.0625, passed the gate at 0.05 on a closed-form MDE "with 80 % power" that no drop of any
    size reaches)."""
    return 2.0 ** (1 - items) <= level


def _one_metric(
    metric: str,
    group: str | None,
    base: array[float],
    patch: array[float],
    alpha: float,
    power: float,
) -> ScoreTest:
    import numpy as np

    higher = metric not in LOWER_IS_BETTER
    base_values = np.frombuffer(base, dtype=float)
    patch_values = np.frombuffer(patch, dtype=float)
    differences = patch_values - base_values
    better = differences > 0 if higher else differences < 0
    worse = differences < 0 if higher else differences > 0
    lost, gained = int(np.sum(worse)), int(np.sum(better))
    kind = classify(base, patch)
    n = len(base)
    if kind is ScoreKind.BINARY:
        p, test = mcnemar_exact(lost, gained), BINARY_TEST
        mde = mcnemar_mde(n, lost + gained, alpha, power)
        # Binary: the difference of accuracies is (gained - lost) / n, exactly.
        direction = moved(float(gained - lost), True)
    else:
        p, test = wilcoxon_signed_rank(differences), CONTINUOUS_TEST
        mde = wilcoxon_mde(differences, alpha, power)
        # The sign of Σpatch − Σbase, rounded once (`math.fsum`): numpy's mean of the
        # differences loses a score's change beside one near `MAX_SCORE_MAGNITUDE` (1 → 1e100
        # and 1 → −1e100 gave 0, "unchanged", while the stated means moved 1 → 0, and `report`
        # refused the genuine document as disagreeing with itself).
        total = math.fsum(chain(patch, map(neg, base)))
        direction = moved(total, higher) if total else moved(float(gained - lost), True)
    return ScoreTest(
        metric=metric,
        group=group,
        kind=kind,
        test=test,
        n=n,
        base_mean=math.fsum(base) / n,
        patch_mean=math.fsum(patch) / n,
        lost=lost,
        gained=gained,
        p=p,
        p_adjusted=p,
        direction=direction,
        significant=False,
        mde=mde,
        higher_is_better=higher,
    )


def _epochs(test: ScoreTest, collector: ScoreCollector) -> ScoreTest:
    """An inspect_ai metric taken by sample: its records and epochs, and whether every epoch
    scored 0 or 1 where the means are fractions (`ScoreTest.binary_epochs`)."""
    from dataclasses import replace

    counts = collector.epoch_counts(test.metric, test.group)
    if counts is None or counts[1] == 1:
        return test  # one epoch: n counts records, as it always did
    binary = test.kind is ScoreKind.CONTINUOUS and collector.binary_epochs(test.metric, test.group)
    return replace(test, records=counts[0], epochs=counts[1], binary_epochs=binary)


def run_tests(
    collector: ScoreCollector, alpha: float = DEFAULT_ALPHA, power: float = DEFAULT_POWER
) -> ScoresReport | None:
    """Every metric's paired test, Holm-corrected across metrics; None when no item carries
    a score."""
    if not collector:
        return None
    from dataclasses import replace

    from k3diff.correction import holm

    tests = [
        _one_metric(metric, group, base, patch, alpha, power)
        for metric, group, base, patch in collector.columns()
        if len(base)
    ]
    tests = [_epochs(test, collector) for test in tests]
    adjusted = holm([test.p for test in tests])
    tests = [
        replace(test, p_adjusted=p, significant=p <= alpha)
        for test, p in zip(tests, adjusted, strict=True)
    ]
    return ScoresReport(
        alpha=alpha,
        power=power,
        tests=tuple(tests),
        one_sided=collector.one_sided,
        unscored=collector.unscored(),
        binary_mde=BINARY_MDE,
        continuous_mde=CONTINUOUS_MDE,
    )
