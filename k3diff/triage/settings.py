"""What a triage runs with: its thresholds and options (`Settings`), the multiple-testing
correction it applies (`Correction`) and `--alpha`'s default; split from `triage.model` (the
verdicts), which still names them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

DEFAULT_ALPHA = 0.05
"""`triage --alpha`'s default (the bundle names a document judged at another)."""


class Correction(StrEnum):
    """Multiple-testing corrections of the per-record Fisher p-values."""

    HOLM = "holm"
    """Holm's step-down (family-wise error rate)."""
    BH = "bh"
    """Benjamini–Hochberg (false discovery rate)."""


@dataclass(frozen=True)
class Settings:
    """The thresholds a triage ran with."""

    alpha: float
    """Significance level of every bound, interval and test."""
    bound: float
    """Non-modal mass a stable side must be bounded by to be decisive."""
    near_tie: float
    """Logprob gap (nats) under which a divergence is a near tie."""
    correction: Correction
    """How p-values are corrected across records and modes."""
    fail_inconclusive: bool = False
    """Exit 1 when any record is inconclusive too (a gate that must not pass undecided records)."""
    capture_mode: str | None = None
    """The mode whose conditions the captures were taken under (`--capture-mode`): each side's
    capture then counts as one observation of that mode. None: the capture is evidence of its own
    and counts in no mode's n."""
    allow_condition_mismatch: bool = False
    """`--allow-condition-mismatch`: samples whose request differs from the captured one are
    shown, but clear nothing (their records are inconclusive and fail), instead of exit 2."""
    allow_same_server: bool = False
    """`--allow-same-server`: base and patch sampled from one server with the same parameters
    is an A/A calibration run on purpose, its records judged as any; else each record it would
    clear is held `same-server` (`k3diff.triage.oneserver`)."""
    check_models: bool = True
    """Hold the samples to the model their capture names (`k3diff.triage.servedmodel`); off only
    where `report` runs again a document written before the check (its `model_check` absent)."""
    power: float = 0.8
    """The power at which each verdict states the smallest output rate the run could have seen
    (`--power`; θ = 1 - (1 - power)^(1/n))."""
    shift: float = 0.35
    """`--shift`: the share of a sampled mode's answers moved to one new answer its distribution
    test must have had `power` to detect for a non-rejection to clear it; a sampled mode whose
    test could detect only a larger shift (or none) is held `no-power`
    (`shiftverdict.underpowered`)."""
    gaugeless: tuple[str, ...] = ()
    """Not options, read from the logs' headers (`triage.gauges`): the sides whose server has no
    running-requests gauge (no `--metrics-url` can prove its batches), and those whose
    `--metrics-url` given answered 404 or without the gauge: check it (left69)."""
    metrics_url_404: tuple[str, ...] = ()
    metrics_url_no_gauge: tuple[str, ...] = ()
