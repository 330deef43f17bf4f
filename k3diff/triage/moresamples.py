"""How many more samples a side a sampled mode held `no-power` asks for (`more_samples`), in
words a reviewer can act on: the plan's exact Fisher figure for `--shift` at the test's level
(`plan.samples_for_shift`, what `triage --plan` answers), or, where the test on real answers is
less sensitive than that count, its own n scaled to the shift (`scaled`)."""

from __future__ import annotations

import functools
import math

from k3diff.triage.plan import MOST_PER_PROMPT, plan_alpha, samples_for_shift
from k3diff.triage.settings import Settings


def to_detect(
    settings: Settings, level: float, n: int, detectable: float | None
) -> tuple[int | None, str]:
    """(more samples a side, in words) that would detect `settings.shift` at the test's
    `level`, less the `n` a side the mode has: the larger of the plan's exact Fisher figure
    (`plan.samples_for_shift`, what `triage --plan` answers) and, where this test could detect
    only a larger shift `detectable`, that n scaled by (`detectable` / shift)² (`_scaled`): the
    least shift a kernel two-sample test detects falls about as 1/√n, and the test on real
    answers is often less sensitive than the plan's one new answer counted (a run that followed
    the plan's figure was held again, with no number to go on). None where no figure up to the
    plan's limit does."""
    shift = f"{100 * settings.shift:.3g} %"
    command = (
        f"triage --plan --shift {settings.shift:g} --alpha {plan_alpha(level):.3g} "
        f"--power {settings.power:g}"
    )
    needed = plan_figure(settings.shift, level, settings.power)
    if needed is None:
        return None, (
            f"the plan's exact Fisher figure for {shift} at its level α = {level:.3g} is more "
            f"than {MOST_PER_PROMPT:,} samples a side ({command})"
        )
    plan = f"the plan's exact Fisher figure for {shift} at its level α = {level:.3g}: {command}"
    grown = scaled(n, detectable, settings.shift)
    if grown is not None and grown >= needed:
        more = grown - n
        return more, (
            f"about {more:,} more sample{'s' if more != 1 else ''} a side ({grown:,} a side: "
            f"n = {n:,} scaled by ({100 * (detectable or 0):.3g} % / {shift})², as the least "
            f"shift this test detects falls about as 1/√n; an estimate, {plan}, gives "
            f"{needed:,}) would detect {shift}"
        )
    if needed <= n:
        return None, (
            f"the plan's exact Fisher figure for {shift} at its level α = {level:.3g}, "
            f"{needed:,} samples a side ({command}), is already reached: this test on these "
            "answers could not detect any shift, so more samples a side than that decide it"
        )
    more = needed - n
    return more, (
        f"about {more:,} more sample{'s' if more != 1 else ''} a side ({needed:,} a side, "
        f"{plan}) would detect {shift}"
    )


def scaled(n: int, detectable: float | None, shift: float) -> int | None:
    """n scaled by (`detectable` / `shift`)², at least n + 1: the samples a side at which a test
    whose least detectable shift falls as 1/√n would reach `shift` (None: no shift detectable,
    nothing to scale, or none above `shift`)."""
    if detectable is None or detectable <= shift or n < 1:
        return None
    ratio = detectable / shift
    return max(n + 1, math.ceil(n * ratio * ratio - 1e-9))


@functools.lru_cache(maxsize=64)
def plan_figure(shift: float, level: float, power: float) -> int | None:
    """`samples_for_shift`, once per run's (shift, level, power); None past its limit."""
    try:
        return samples_for_shift(shift, level, power)
    except ValueError:
        return None
