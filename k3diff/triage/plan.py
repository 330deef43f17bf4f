"""`k3diff triage --plan`: size a follow-up before running it."""

from __future__ import annotations

import math

from k3diff.errors import UsageError
from k3diff.triage import stats
from k3diff.triage.model import Plan


def plan(bound: float, alpha: float, shift: float = 0.35, power: float = 0.8) -> Plan:
    """Observations per side whose unanimous agreement bounds the non-modal mass by `bound`,
    and, for a sampled run, samples per side per prompt that detect `shift` of the answers
    moved to one new answer at `alpha` with `power`."""
    for name, value in (("--bound", bound), ("--alpha", alpha), ("--power", power)):
        if not 0.0 < value < 1.0:
            raise UsageError(f"{name} must lie strictly between 0 and 1 (got {value:g})")
    per_side = stats.samples_for_bound(bound, alpha)
    achieved = stats.nonmodal_upper_bound(stats.Deviations.of(per_side, per_side), alpha)
    if not 0.0 < shift <= 1.0:
        raise UsageError(f"--shift must lie in (0, 1] (got {shift:g})")
    return Plan(
        bound=bound,
        alpha=alpha,
        per_side=per_side,
        achieved_bound=achieved,
        shift=shift,
        power=power,
        per_prompt=samples_for_shift(shift, alpha, power),
    )


def samples_for_shift(shift: float, alpha: float, power: float) -> int:
    """Samples per side per prompt for the one-sided two-proportion comparison (normal
    approximation, Fleiss): the patch gives an answer with share `shift` that the base gives
    with share 0 ... the planning figure `triage --plan` states for a sampled run: enough that
    moving `shift` of the answer mass to one new answer is seen at `alpha` with `power`."""
    from scipy import stats

    if not (0.0 < shift <= 1.0):
        raise ValueError("shift must lie in (0, 1]")
    z_alpha, z_power = stats.norm.ppf(1.0 - alpha), stats.norm.ppf(power)
    mean = shift / 2.0
    spread = z_alpha * math.sqrt(2.0 * mean * (1.0 - mean)) + z_power * math.sqrt(
        shift * (1.0 - shift)
    )
    return max(2, math.ceil(float(spread / shift) ** 2))
