"""`k3diff triage --plan`: size a follow-up before running it."""

from __future__ import annotations

from k3diff.errors import UsageError
from k3diff.triage import distribution, stats
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
        per_prompt=distribution.samples_for_shift(shift, alpha, power),
    )
