"""The statistics behind every triage verdict, all from scipy.stats.

Counting convention: a side's first observation only fixes what "the mode" is, so a side with n
observations of which `modal` agree has `n - 1` trials and `n - modal` deviations from the mode.
For a side whose n observations all agree, the one-sided Clopper–Pearson upper bound on the
deviation rate at confidence 1 - α is `beta.ppf(1 - α, 1, n - 1)`, which is the reviewer's
`1 - α^(1/(n-1))`: if the non-modal mass were larger, n - 1 agreeing repeats would happen with
probability below α.

With deviations the observed mode is the most common output, chosen by the same samples, so
its count is not binomial: Clopper–Pearson on (n - modal, n - 1) covered 92 % at 95 % (four
equal outputs, n = 10: 6 or more of one output in 7.9 % of runs, each bounding the non-modal
mass 0.75 below 0.75). The upper bound is then the largest u with P(Bin(n, u) ≤ d) / (1 - u)
> α (d deviations): the chance that some output reaches n - d of n samples, Σ_i P(Bin(n, p_i)
≥ n - d) ≤ max_{p ≤ 1 - u} P(Bin(n, p) ≥ n - d) / p, a union bound over the outputs that holds
whatever they are (with d = 0 it is the bound above). The interval's lower end counts n trials:
the observed mode's deviations are at most the true mode's, which are Bin(n, u).
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from k3diff.correction import holm
from k3diff.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

# scipy and numpy are imported inside the functions that compute a statistic: importing this
# module (every `triage` and `report` path, `--help` included) must not load them.


@dataclass(frozen=True)
class Deviations:
    """How often one side's outputs left its own mode."""

    deviations: int
    """Observations that differ from the modal output."""
    trials: int
    """Observations after the first (which only fixes the mode)."""

    @classmethod
    def of(cls, n: int, modal: int) -> Deviations:
        """From n observations of which `modal` equal the most common output."""
        if n == 0:
            return cls(0, 0)
        return cls(n - modal, n - 1)


PRECISE_ALPHA = 1e-6
"""Below this α the upper tail is inverted directly (`beta.isf`): `1 - α` rounds to 1.0 at
α < 1.1e-16 (and loses α's digits well before), where `ppf(1 - α)` answered 1.0. At and above it,
`ppf(1 - α)` is kept: it differs from `isf(α)` only in the last bit, and reports stay
byte-identical."""


def nonmodal_upper_bound(dev: Deviations, alpha: float) -> float:
    """One-sided Clopper–Pearson upper bound (confidence 1 - α) on the non-modal mass."""
    from scipy import stats

    if dev.trials == 0 or dev.deviations >= dev.trials:
        return 1.0
    if dev.deviations:
        return _upper_bound_in_logs(dev, alpha, selected=True)
    shape = (dev.deviations + 1, dev.trials - dev.deviations)
    if alpha < LOG_ALPHA:
        return _upper_bound_in_logs(dev, alpha)
    if alpha < PRECISE_ALPHA:
        bound = float(stats.beta.isf(alpha, *shape))
        # scipy gives NaN where the quantile lies too close to 1 to find (isf(1e-121, 2, 4)):
        # 1 is then the only bound that claims nothing false.
        return bound if math.isfinite(bound) else 1.0
    return float(stats.beta.ppf(1.0 - alpha, *shape))


LOG_ALPHA = 1e-290
"""Below this α the tail `beta.isf` inverts is near the subnormal floats, whose few digits made
a smaller α bound more tightly than twice it (α = e^-732, n = 29,401, 3 deviations: 0.024783 <
0.024793); there the bound is found in logs (`_upper_bound_in_logs`)."""


def _upper_bound_in_logs(dev: Deviations, alpha: float, selected: bool = False) -> float:
    """The Clopper–Pearson upper bound p solving P(Binomial(trials, p) ≤ deviations) = α, the
    binomial tail summed in logs (exact at any α a float holds) and its root found by Brent's
    method; rounded up by a relative 1e-12, so that the bound claims no less than its samples
    allow. `selected`: the mode was chosen by the samples (module docstring), so the root of
    P(Binomial(trials + 1, p) ≤ deviations) / (1 - p) = α instead."""
    import numpy as np
    from scipy import optimize, special

    n, k = dev.trials + selected, dev.deviations
    if k == 0:  # (1 - p)^n = α in closed form: no sum, no cancellation, no slack to add
        return min(1.0, -math.expm1(math.log(alpha) / n) * (1.0 + 4 * sys.float_info.epsilon))
    j = np.arange(k + 1, dtype=float)
    log_n_factorial = float(special.gammaln(n + 1))
    log_choose = log_n_factorial - special.gammaln(j + 1) - special.gammaln(n - j + 1)
    # log_choose cancels two values near n·log(n): a few of their ulps off (2e-7 at n = 1e8),
    # which put the tail at the root above α. The root is taken where the computed tail is
    # below α by more than the terms' rounding can reach, so the true tail there is at most α.
    slack = 64 * sys.float_info.epsilon * (log_n_factorial - math.log(alpha) + 745.0 * k + 1)
    target = math.log(alpha) - slack

    def excess(p: float) -> float:  # log P(Bin(n, p) ≤ k) - log α: falls as p grows
        terms = log_choose + j * math.log(p) + (n - j) * math.log1p(-p)
        return float(special.logsumexp(terms)) - selected * math.log1p(-p) - target

    low, high = 5e-324, 1.0 - 2.0**-53
    if excess(high) >= 0.0:
        return 1.0
    root = optimize.brentq(excess, low, high, xtol=1e-300, rtol=1e-15, maxiter=2000)
    return min(1.0, float(root) * (1.0 + 1e-12))


def detectable_rate(n: int, power: float) -> float | None:
    """The smallest rate θ at which an output shows up at least once in n samples with
    probability `power`: 1 - (1 - θ)^n = power, so θ = 1 - β^(1/n) with β = 1 - power (the
    Beta(1, n) quantile at `power`). None when n is 0 (nothing could have been seen)."""
    from scipy import stats

    if n <= 0:
        return None
    return float(stats.beta.ppf(power, 1, n))


def deviation_interval(dev: Deviations, alpha: float) -> tuple[float, float]:
    """Two-sided interval (confidence 1 - α) of the deviation-from-mode rate: each end at α / 2,
    the upper one `nonmodal_upper_bound`'s, the lower one Clopper–Pearson's over all n
    observations (module docstring: the observed mode is the samples' choice)."""
    from scipy import stats

    if dev.trials == 0:
        return (0.0, 1.0)
    if not dev.deviations:  # Clopper–Pearson over the trials: the bound's own d = 0 case
        result = stats.binomtest(0, dev.trials)
        interval = result.proportion_ci(confidence_level=1.0 - alpha, method="exact")
        return (0.0, float(interval.high))
    result = stats.binomtest(dev.deviations, dev.trials + 1)
    interval = result.proportion_ci(confidence_level=1.0 - alpha, method="exact")
    return (float(interval.low), nonmodal_upper_bound(dev, alpha / 2))


def fisher_patch_less_stable(patch: Deviations, base: Deviations) -> float | None:
    """One-sided Fisher exact p that the patch leaves its mode more often than the base does.

    None when a side has no trials (nothing to compare).
    """
    from scipy import stats

    if patch.trials == 0 or base.trials == 0:
        return None
    table = [
        [patch.deviations, patch.trials - patch.deviations],
        [base.deviations, base.trials - base.deviations],
    ]
    return float(stats.fisher_exact(table, alternative="greater").pvalue)


def good_turing_missing_mass(counts: Sequence[int]) -> float | None:
    """Good–Turing estimate of the probability of an output not yet seen: singletons / n."""
    n = sum(counts)
    if n == 0:
        return None
    return sum(1 for count in counts if count == 1) / n


MOST_OBSERVATIONS = 10**12
"""The most observations per side `samples_for_bound` answers with: far past any run, and small
enough that the count and its binomial probabilities stay exact in floating point (a bound of
1e-20 at α = 0.05 would need 3·10^20, which no float counts to the unit)."""


def samples_for_bound(bound: float, alpha: float) -> int:
    """Observations per side whose unanimous agreement bounds the non-modal mass by `bound`.

    The smallest n with P(n - 1 agreeing repeats | non-modal mass = bound) <= α, found from a
    log-ratio start and settled with scipy's binomial log-probability of zero deviations. A usage
    error (exit 2) where that n is past `MOST_OBSERVATIONS`.
    """
    from scipy import stats

    if not (0.0 < bound < 1.0 and 0.0 < alpha < 1.0):
        raise ValueError("bound and alpha must lie strictly between 0 and 1")
    start = math.log(alpha) / math.log1p(-bound)
    if start >= MOST_OBSERVATIONS:
        raise UsageError(
            f"--bound {bound:g} at --alpha {alpha:g} needs more than {MOST_OBSERVATIONS:.0e} "
            "observations per side: no run can back it"
        )
    trials = max(1, math.ceil(start))
    if trials > EXACT_STEPS:
        # Past this, scipy's probability of zero deviations is no longer exact to the unit
        # step, and settling it one step at a time could take millions of steps: the log form
        # (1 - b)^t <= α, t·log1p(-b) <= log α, settles it in one or two.
        slope, level = math.log1p(-bound), math.log(alpha)
        while trials * slope > level:
            trials += 1
        while trials > 1 and (trials - 1) * slope <= level:
            trials -= 1
        return trials + 1
    # In logs: near the least normal α the probability itself is subnormal, with too few bits
    # to settle the unit step (α = 1e-323 gave an n one short of the bound).
    level = math.log(alpha)
    while stats.binom.logpmf(0, trials, bound) > level:
        trials += 1
    while trials > 1 and stats.binom.logpmf(0, trials - 1, bound) <= level:
        trials -= 1
    return trials + 1


EXACT_STEPS = 10**7
"""Trials up to which `samples_for_bound` settles n with scipy's binomial probability."""


def benjamini_hochberg(pvalues: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (false discovery rate), from scipy."""
    from scipy import stats

    if not pvalues:
        return []
    return [float(p) for p in stats.false_discovery_control(list(pvalues), method="bh")]


def corrected(pvalues: Sequence[float], family_wise: bool) -> list[float]:
    """`pvalues` adjusted across their family: Holm's (`family_wise`, `--correction holm`) or
    Benjamini–Hochberg's (`--correction bh`)."""
    return holm(pvalues) if family_wise else benjamini_hochberg(pvalues)


EXACT_LABELINGS = 50_000
"""Label assignments up to which the novelty test enumerates every one (exact p); above it the
test draws `RESAMPLES` assignments with a fixed seed (the same table always gives the same p)."""
RESAMPLES = 99_999
"""Random label assignments of the Monte Carlo novelty test: its p is at least 1 / 100,000."""
BATCH_CELLS = 1 << 22
"""Label assignments times samples scored at once: scipy holds each assignment's permuted
samples, so a batch of a fixed count of assignments grew with the samples (8,192 of 2,800
samples: about 1 GB; fuzz69). The null distribution does not depend on the batch."""


@dataclass(frozen=True)
class Novelty:
    """The one-sided test that the patch gives outputs the base does not."""

    statistic: int
    """Patch samples whose output no base sample gave (nor the base's other modes, where given)."""
    p: float
    """Permutation p of a statistic at least this large when the side labels are exchangeable."""
    exact: bool
    """Every label assignment was enumerated (else `RESAMPLES` random ones, fixed seed)."""


def novelty_test(
    patch: Sequence[str],
    base: Sequence[str],
    known: frozenset[str] = frozenset(),
    resamples: int = RESAMPLES,
) -> Novelty | None:
    """Permutation test (scipy's `permutation_test`, independent samples, alternative greater)
    of the number of patch samples whose output neither a base sample of the pooled table nor
    `known` (base outputs from elsewhere, fixed under relabelling) contains.

    Only a patch-side novelty raises the statistic, so a patch whose outputs all lie among the
    base's scores 0 and gets p = 1, however much more stable it is. None when the pooled samples
    hold a single output (no relabelling can change anything) or a side has fewer than two.
    """
    import numpy as np
    from scipy import stats

    if len(patch) < 2 or len(base) < 2 or len(set(patch) | set(base)) < 2:
        return None
    codes = {output: index for index, output in enumerate(dict.fromkeys([*base, *patch]))}
    known_mask = np.array([output in known for output in codes])

    def statistic(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        """Per labelling (leading axes), patch samples whose output is in no base sample."""
        # Each base sample marks its output (labellings by outputs, not by samples by outputs:
        # a batch of that was 7 GB for 1,400 samples of 620 outputs a side; fuzz69).
        seen = np.zeros((*y.shape[:-1], len(codes)), dtype=bool)
        np.put_along_axis(seen, y, True, axis=-1)
        seen |= known_mask
        novel: np.ndarray = (~np.take_along_axis(seen, x, axis=-1)).sum(axis=-1)
        return novel

    x = np.array([codes[output] for output in patch])
    y = np.array([codes[output] for output in base])
    observed = int(statistic(x, y))
    if observed == 0:
        return Novelty(0, 1.0, True)
    pooled = Counter([*patch, *base])
    if max(pooled.values()) == 1 and not known & pooled.keys():
        # Every output once and none known (temperature > 0): no base label can cover a patch
        # sample, so every labelling scores len(patch) and P(T >= observed) is 1.
        return Novelty(observed, 1.0, True)
    exact = math.comb(len(x) + len(y), len(x)) <= EXACT_LABELINGS
    result = stats.permutation_test(
        (x, y),
        statistic,
        permutation_type="independent",
        alternative="greater",
        vectorized=True,
        n_resamples=np.inf if exact else resamples,
        rng=np.random.default_rng(0),
        batch=max(1, BATCH_CELLS // (len(x) + len(y))),
    )
    return Novelty(observed, float(result.pvalue), exact)


def novel_count(patch: Sequence[str], base: Sequence[str], known: frozenset[str]) -> int | None:
    """The novelty statistic where no test runs on it (a side with fewer than 2 observations):
    patch observations whose output neither a base observation nor `known` holds: every one
    where the base observed nothing (no output of its explains any; all its requests failed, or
    none was sent). None where none is new: the document then says what `novelty_test`'s None
    says, that nothing was counted."""
    seen = set(base) | known
    count = sum(1 for output in patch if output not in seen)
    return count or None


def novelty_samples_to_decide(
    patch: Sequence[str], base: Sequence[str], known: frozenset[str], level: float
) -> int | None:
    """Further samples per side after which the novelty test would reject at `level` if both
    sides went on as observed (each side's sequence repeated); None when no count up to
    `NOVELTY_SEARCH_LIMIT` would. A planning figure: grown tables too large to enumerate are
    resampled only as often as `level` needs."""
    if len(patch) < 2 or len(base) < 2:
        return None
    resamples = min(RESAMPLES, math.ceil(20 / level))

    def rejects(more: int) -> bool:
        grown = (_cycled(patch, len(patch) + more), _cycled(base, len(base) + more))
        found = novelty_test(*grown, known, resamples)
        return found is not None and found.p <= level

    low, high = 0, 1
    while not rejects(high):
        if high >= NOVELTY_SEARCH_LIMIT:
            return None
        low, high = high, min(2 * high, NOVELTY_SEARCH_LIMIT)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if rejects(middle) else (middle, high)
    return high


NOVELTY_SEARCH_LIMIT = 128
"""The most further samples per side `novelty_samples_to_decide` considers."""


def _cycled(values: Sequence[str], length: int) -> list[str]:
    return [values[index % len(values)] for index in range(length)]
