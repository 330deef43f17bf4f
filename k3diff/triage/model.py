"""Triage results: per side, per mode and per record verdicts, as frozen values."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from k3diff.documents.runs import RunInfo
from k3diff.exitcodes import ExitCode


class Category(StrEnum):
    """What a record's evidence says; declared most severe first."""

    DETERMINISTIC_DIVERGENCE = "deterministic-divergence"
    """Both sides stable, outputs differ: a regression candidate."""
    PATCH_NONDETERMINISM = "patch-nondeterminism"
    """The base stable, the patch not (a regression candidate when significant after correction)."""
    INCONCLUSIVE = "inconclusive"
    """Too few observations, or a record the evidence cannot cover (unpaired, all failed)."""
    BOTH_NONDETERMINISTIC = "both-nondeterministic"
    """Both sides gave at least two distinct outputs."""
    BASE_NONDETERMINISM = "base-nondeterminism"
    """The base gave at least two distinct outputs, the patch one: not attributable to the patch."""
    MATCH = "match"
    """Both sides stable on the same output."""

    @property
    def severity(self) -> int:
        """Lower is more severe."""
        return _SEVERITY[self]


_SEVERITY = {category: rank for rank, category in enumerate(Category)}


class Flag(StrEnum):
    """Sub-findings attached to a verdict where the data allow."""

    PATCH_INSIDE_BASE_SET = "patch-output-inside-base-set"
    """The base gave several outputs and every output of the patch is among them."""
    CONCURRENCY_DEPENDENT = "concurrency-dependent"
    """A side stable serially is unstable under concurrency or load."""
    FIRST_REQUEST_DIFFERS = "first-request-differs"
    """A side's first sample differs and the rest agree (a cache warm-up pattern)."""
    NEAR_TIE_FLIP = "near-tie-flip"
    """The top-1/top-2 logprob gap at the divergence is under the --near-tie tolerance."""
    ERRORS_PRESENT = "errors-present"
    """Failed samples reduced n."""
    FINISH_REASON_DIFFERS = "finish-reason-differs"
    """The sides gave the same text with different finish reasons (stop vs length, ...)."""


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


@dataclass(frozen=True)
class SideStats:
    """One side's observations in one mode (the captured output counts as one of them)."""

    n: int
    """Successful observations."""
    errors: int
    """Failed samples (not in n)."""
    distinct: int
    """Distinct outputs among the n (by text_xxh3)."""
    modal: int
    """Observations equal to the most common output."""
    modal_share: float | None
    """Share of the n that gave the most common output."""
    nonmodal_bound: float
    """Upper bound (confidence 1 - α) on the probability of a non-modal output."""
    deviation_ci: tuple[float, float]
    """Clopper–Pearson interval of the deviation-from-mode rate."""
    outputs: frozenset[str]
    """The distinct output digests."""
    modal_output: str | None
    """The most common output digest (ties broken by first seen)."""

    @property
    def stable(self) -> bool:
        """At least two observations, all equal."""
        return self.n >= 2 and self.distinct == 1

    @property
    def unstable(self) -> bool:
        """At least two distinct outputs: proven nondeterministic."""
        return self.distinct >= 2


@dataclass(frozen=True)
class ModeVerdict:
    """The verdict of one record in one sampling mode."""

    mode: str
    """serial, concurrent or loaded."""
    category: Category
    """What this mode's evidence says."""
    flags: tuple[Flag, ...]
    """Sub-findings of this mode."""
    reason: str
    """One sentence with the numbers."""
    base: SideStats
    """The base's observations."""
    patch: SideStats
    """The patch's observations."""
    p: float | None
    """One-sided Fisher p: the patch deviates from its mode more often than the base."""
    p_adjusted: float | None
    """`p` after the correction across all records and modes."""
    good_turing_base: float | None
    """Good–Turing missing mass of the base (probability of a base output not yet seen)."""
    more_samples: int
    """Further observations per side that would bound every stable-looking side by `bound`."""
    regression_candidate: bool
    """deterministic-divergence, or patch-nondeterminism significant after correction."""


@dataclass(frozen=True)
class RecordVerdict:
    """The verdict of one record: the most severe over its modes."""

    key: str
    """The pairing key."""
    comparison_status: str
    """The status `k3diff responses` gave the key."""
    category: Category
    """The most severe category over the modes."""
    flags: tuple[Flag, ...]
    """Every flag of every mode, and record-level ones."""
    reason: str
    """One sentence: the deciding mode's reason, or why nothing could be decided."""
    modes: tuple[ModeVerdict, ...]
    """Per-mode verdicts (empty when there were no samples for the key)."""
    deciding_mode: str | None
    """The mode whose verdict is the record's."""
    regression_candidate: bool
    """Any mode is a regression candidate."""
    more_samples: int | None
    """Further observations per side that would make the record decisive (None: samples cannot
    help, e.g. the comparison could not pair the key)."""


@dataclass(frozen=True)
class TriageResult:
    """Everything a triage run found."""

    comparison: str
    """The comparison file as named."""
    samples: tuple[str, ...]
    """The sample logs as named."""
    settings: Settings
    """Thresholds used."""
    records: tuple[RecordVerdict, ...]
    """Every record of the comparison, in its order."""
    unknown_sample_keys: tuple[str, ...]
    """Keys that have samples but no record in the comparison (ignored)."""
    tests: int
    """p-values in the correction family."""
    runs: tuple[RunInfo, ...] = ()
    """The run of each samples log (several only under `--pool-runs`)."""
    pool_runs: bool = False
    """`--pool-runs`: logs of different runs were pooled on purpose."""

    def count(self, category: Category) -> int:
        """Records in one category."""
        return sum(1 for record in self.records if record.category is category)

    @property
    def regression_candidates(self) -> int:
        """Records that fail the policy."""
        return sum(1 for record in self.records if record.regression_candidate)

    @property
    def failing_inconclusive(self) -> int:
        """Inconclusive records that fail the run (only under `fail_inconclusive`)."""
        return self.count(Category.INCONCLUSIVE) if self.settings.fail_inconclusive else 0

    @property
    def exit_code(self) -> ExitCode:
        """1 when any record is a regression candidate (or, under `fail_inconclusive`, is
        inconclusive), else 0 (inconclusive records are reported either way)."""
        failing = self.regression_candidates or self.failing_inconclusive
        return ExitCode.FINDINGS if failing else ExitCode.OK


@dataclass(frozen=True)
class Plan:
    """How many observations per side settle a stable side at a bound."""

    bound: float
    """The non-modal mass bound asked for."""
    alpha: float
    """The significance level."""
    per_side: int
    """Observations per side (the captured one included) that must all agree."""
    achieved_bound: float
    """The bound those observations give when they all agree (<= bound)."""
