"""`k3diff triage --plan`: size a follow-up before running it."""

from __future__ import annotations

from k3diff.errors import UsageError
from k3diff.triage import stats
from k3diff.triage.model import Plan


def plan(bound: float, alpha: float) -> Plan:
    """Observations per side whose unanimous agreement bounds the non-modal mass by `bound`."""
    for name, value in (("--bound", bound), ("--alpha", alpha)):
        if not 0.0 < value < 1.0:
            raise UsageError(f"{name} must lie strictly between 0 and 1 (got {value:g})")
    per_side = stats.samples_for_bound(bound, alpha)
    achieved = stats.nonmodal_upper_bound(stats.Deviations.of(per_side, per_side), alpha)
    return Plan(bound=bound, alpha=alpha, per_side=per_side, achieved_bound=achieved)
