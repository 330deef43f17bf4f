"""`k3diff triage --plan`: size a follow-up before running it.

The sampled-run figure is exact (docs/statistics.md): the patch moves a share S of its answers
to one answer the base never gives, so of n samples a side the patch gives that answer
K ~ Binomial(n, S) times and the base 0 times; the one-sided conditional (Fisher) test of that
2 x 2 table rejects when P(X >= K) = C(n, K) / C(2n, K) <= α (X hypergeometric: K successes among
2n, n drawn). Its power at n is P(K >= k*(n)), k*(n) the least K that rejects, summed exactly from
the binomial law; the figure is the least n from which the power stays at or above the target
(an exact test's power saw-tooths in n) up to `PLAN_HORIZON` times that n.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from k3diff.errors import UsageError
from k3diff.triage import stats
from k3diff.triage.mmdplan import mmd_samples_for_shift
from k3diff.triage.model import Plan
from k3diff.triage.sampledlevel import SAMPLED_FAMILIES, judged_at
from k3diff.triage.steadyn import MOST_PER_PROMPT as MOST_PER_PROMPT  # importable from here
from k3diff.triage.steadyn import least_steady_n


def rejecting_count(n: int, alpha: float) -> int | None:
    """k*(n): the least count K of the new answer among the patch's n samples (none among the
    base's n) whose one-sided Fisher p, C(n, K) / C(2n, K), is at most `alpha` (None: not even
    K = n)."""
    log_alpha = math.log(alpha)
    log_p = 0.0
    for k in range(1, n + 1):
        log_p += math.log(n - k + 1) - math.log(2 * n - k + 1)  # C(n,k)/C(2n,k) from k - 1
        if log_p <= log_alpha + 1e-12:
            return k
    return None


def exact_powers(first: int, last: int, shift: float, alpha: float) -> list[float]:
    """The one-sided Fisher test's power at every n from `first` to `last` samples a side
    against `shift`: P(K >= k*(n)) for K ~ Binomial(n, shift) (0 where no K rejects)."""
    import numpy as np
    from scipy import stats as scipy_stats

    ns = np.arange(first, last + 1)
    needed = np.zeros(len(ns), dtype=np.int64)  # 0: not found yet
    log_p = np.zeros(len(ns))
    for k in range(1, last + 1):
        open_ = (needed == 0) & (ns >= k)
        if not open_.any():
            break
        log_p[open_] += np.log(ns[open_] - k + 1) - np.log(2 * ns[open_] - k + 1)
        needed[open_ & (log_p <= math.log(alpha) + 1e-12)] = k
    powers = np.where(needed > 0, scipy_stats.binom.sf(needed - 1, ns, shift), 0.0)
    return [float(p) for p in powers]


def samples_for_shift(shift: float, alpha: float, power: float) -> int:
    """Samples per side per prompt for `triage --plan --shift`: the least n whose exact power
    (`exact_powers`) reaches `power` and stays there up to `PLAN_HORIZON` * n."""
    if not 0.0 < shift <= 1.0:
        raise ValueError("shift must lie in (0, 1]")
    return least_steady_n(lambda first, last: exact_powers(first, last, shift, alpha), power)


def distribution_tests(prompts: int, modes: int = 1) -> int:
    """The distribution tests triage corrects over for a sampled run of `prompts` prompts in
    each of `modes` modes: one per record (prompt and mode) and, per mode of two or more
    records, its pooled test. Each test is judged at α over this count (Holm's first step,
    the level of a no-power hold's `more_samples`); first-token tests, where the samples carry
    the first position's logprobs, add to it."""
    if prompts < 1 or modes < 1:
        raise ValueError("a run has at least one prompt and one mode")
    return prompts * modes + (modes if prompts >= 2 else 0)


def plan(
    bound: float,
    alpha: float,
    shift: float = 0.35,
    power: float = 0.8,
    prompts: int | None = None,
    modes: int = 1,
) -> Plan:
    """Observations per side whose unanimous agreement bounds the non-modal mass by `bound`,
    and, for a sampled run, samples per side per prompt that detect `shift` of the answers
    moved to one new answer with `power` at the level triage judges a run of `prompts`
    prompts in `modes` modes at (`Plan.level`: α / 2 over `distribution_tests`; None: one
    prompt in one mode, at α / 2)."""
    for name, value in (("--bound", bound), ("--alpha", alpha), ("--power", power)):
        if not 0.0 < value < 1.0:
            raise UsageError(f"{name} must lie strictly between 0 and 1 (got {value:g})")
    per_side = stats.samples_for_bound(bound, alpha)
    achieved = stats.nonmodal_upper_bound(stats.Deviations.of(per_side, per_side), alpha)
    if not 0.0 < shift <= 1.0:
        raise UsageError(f"--shift must lie in (0, 1] (got {shift:g})")
    if prompts is not None and prompts < 1:
        raise UsageError(f"--prompts must be at least 1 (got {prompts})")
    if modes < 1:
        raise UsageError(f"--modes must be at least 1 (got {modes})")
    tests = distribution_tests(prompts or 1, modes)
    try:
        per_prompt = samples_for_shift(shift, judged_at(alpha, True) / tests, power)
    except ValueError as error:
        raise UsageError(f"--shift {shift:g}: {error}") from None
    try:
        per_prompt_mmd: int | None = mmd_samples_for_shift(
            shift, judged_at(alpha, True), power, tests
        )
    except ValueError:
        per_prompt_mmd = None
    return Plan(
        bound=bound,
        alpha=alpha,
        per_side=per_side,
        achieved_bound=achieved,
        shift=shift,
        power=power,
        per_prompt=per_prompt,
        prompts=prompts,
        modes=modes,
        tests=tests,
        per_prompt_mmd=per_prompt_mmd,
    )


def test_kind(sampled: bool, every_new: bool, base_outputs: int, texts: bool = True) -> str | None:
    """The distribution test triage runs on one record in one mode (`shift.distribution_tests`):
    "mmd" for a sampled mode, or one where every output of both sides is new; "counts" where the
    base itself gave two or more outputs (or a sampled mode without its texts); None: no test
    (a greedy mode whose base repeated one output)."""
    if texts and (sampled or every_new):
        return "mmd"
    if base_outputs >= 2 or (sampled and not texts):
        return "counts"
    return None


def pooled_tests(kinds: Mapping[tuple[str, str], str]) -> list[tuple[str, str]]:
    """The pooled tests of records tested by `kinds` ((key, mode) -> `test_kind`): one per
    (kind, mode) of two or more records, in first-seen order."""
    pools = Counter((kind, mode) for (_key, mode), kind in kinds.items())
    return [pool for pool, records in pools.items() if records > 1]


@dataclass(frozen=True)
class SampledFigure:
    """The samples per side per prompt a run's distribution tests need to detect a shift, at
    the level triage judges them at."""

    records: int
    """Records (prompt and mode) tested by distribution."""
    pooled: int
    """Their pooled tests."""
    prompts: int
    modes: int
    sampled: bool
    """A sampled record among them: the level is halved (`sampledlevel.judged_at`)."""
    level: float
    """α (α / 2 where `sampled`) over `records` + `pooled`: the level triage judges them at
    (first-token tests, where the samples carry logprobs, add to triage's family)."""
    per_prompt: int

    @property
    def grid(self) -> bool:
        """Every prompt tested in every mode, alike, and sampled: `triage --plan --prompts
        --modes` says it."""
        return (
            self.sampled
            and self.records + self.pooled == distribution_tests(self.prompts, self.modes)
            and self.records == self.prompts * self.modes
        )


def sampled_figure(
    kinds: Mapping[tuple[str, str], str],
    alpha: float,
    shift: float,
    power: float,
    sampled: bool = True,
) -> SampledFigure | None:
    """`samples_for_shift` at the level triage judges the distribution tests of `kinds`
    ((key, mode) -> `test_kind`) at, `sampled` ones at α / 2 (`sampledlevel.judged_at`) over
    their count: what `sample`'s summary advises and what a no-power hold asks for
    (`moresamples.to_detect`), one figure (None: no record tested)."""
    if not kinds:
        return None
    pooled = len(pooled_tests(kinds))
    level = judged_at(alpha, sampled) / (len(kinds) + pooled)
    return SampledFigure(
        records=len(kinds),
        pooled=pooled,
        prompts=len({key for key, _mode in kinds}),
        modes=len({mode for _key, mode in kinds}),
        sampled=sampled,
        level=level,
        per_prompt=samples_for_shift(shift, level, power),
    )


def plan_alpha(level: float) -> float:
    """The `--alpha` at which `triage --plan --shift` (one prompt in one mode, a sampled test
    judged at α / 2: `Plan.level`) sizes a run at `level`: what a command naming a test's own
    level passes."""
    return level * SAMPLED_FAMILIES
