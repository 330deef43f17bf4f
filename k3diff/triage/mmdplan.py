"""What the MMD test itself detects at a planned n, where that can be said without the texts.

`triage --plan`'s figure is the count test's (`plan.samples_for_shift`), while a sampled run
whose texts are logged is judged by the MMD test (`distribution.mmd_test`), whose power depends
on how the base's answers differ from each other under the kernel: no figure for it exists
before the texts are seen (docs/statistics.md). One case needs no texts: a base that gives one
answer A, the patch moving a share S of its answers to one answer B the kernel tells from A
(k(A, B) = c < 1; k(A, A) = k(B, B) = 1). Of a labelling that puts x of the K B's among the n
labelled patch, the V-statistic MMD² is ((2x - K) / n)² · 2(1 - c), which scores at least the
observed (x = K) exactly where x is 0 or K: the permutation p is p_K = 2 C(n, K) / C(2n, K)
(1 at K = 0), the two-sided count test's, whatever c. The code draws B labellings with
replacement and rejects at Holm's first step when (1 + hits) / (1 + B) <= the test's level,
hits ~ Binomial(B, p_K): it rejects with probability P(hits <= floor(level (1 + B)) - 1), and
its power at n is the sum of that over K ~ Binomial(n, S), computed exactly here. A base whose
answers vary makes the null MMD² spread more, and on real text the MMD needed about twice the
samples (aa78): that case is not covered by this figure, which the plan says.
"""

from __future__ import annotations

import math

from k3diff.triage.steadyn import least_steady_n


def mmd_powers(first: int, last: int, shift: float, level: float, permutations: int) -> list[float]:
    """The power of the code's Monte Carlo MMD test (`permutations` labellings, judged at
    `level`) at every n from `first` to `last` samples a side, against `shift` of the patch's
    answers moved to one new answer, the base giving one answer (module docstring)."""
    import numpy as np
    from scipy import stats as scipy_stats

    allowed = math.floor(level * (1 + permutations) * (1 + 1e-12)) - 1
    ns = np.arange(first, last + 1)
    power = np.zeros(len(ns))
    if allowed < 0:
        return [0.0] * len(ns)
    log_p = np.full(len(ns), math.log(2.0))  # log(2 C(n, K) / C(2n, K)) at K = 0
    for k in range(1, last + 1):
        open_ = ns >= k
        if not open_.any():
            break
        log_p[open_] += np.log(ns[open_] - k + 1) - np.log(2 * ns[open_] - k + 1)
        p = np.minimum(1.0, np.exp(log_p[open_]))
        rejects = scipy_stats.binom.cdf(allowed, permutations, p)
        power[open_] += scipy_stats.binom.pmf(k, ns[open_], shift) * rejects
        if rejects.min() >= 1.0:  # every larger K rejects too (p_K falls with K)
            power[open_] += scipy_stats.binom.sf(k, ns[open_], shift)
            break
    return [float(value) for value in power]


def mmd_samples_for_shift(shift: float, alpha: float, power: float, tests: int) -> int:
    """Samples per side per prompt at which the MMD test of one of `tests` records (judged at
    `alpha` over them, Holm's first step, with the labellings `permutations_for` draws) detects
    `shift` with `power` where the base gives one answer, staying there up to twice that n
    (as `plan.samples_for_shift`)."""
    from k3diff.triage.distribution import permutations_for

    permutations = permutations_for(tests, alpha)
    level = alpha / tests
    if math.floor(level * (1 + permutations) * (1 + 1e-12)) < 1:
        raise ValueError(f"its least p, 1 / {1 + permutations:,}, is above the level {level:g}")
    return least_steady_n(
        lambda first, last: mmd_powers(first, last, shift, level, permutations), power
    )
