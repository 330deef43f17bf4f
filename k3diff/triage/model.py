"""Triage results: per mode and per record verdicts (a side's figures in a mode are
`triage.sides.SideStats`), as frozen values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from k3diff.exitcodes import ExitCode
from k3diff.sample.names import Mode
from k3diff.sample.runs import RunInfo
from k3diff.sampling_params import RequestFields
from k3diff.triage.distribution import DistributionTest
from k3diff.triage.flags import HELD_FLAGS as HELD_FLAGS  # importable from here, as before
from k3diff.triage.flags import Flag as Flag
from k3diff.triage.nextstep import MoreSamples
from k3diff.triage.resample import Resample
from k3diff.triage.sampledlevel import judged_at
from k3diff.triage.settings import DEFAULT_ALPHA as DEFAULT_ALPHA  # importable from here
from k3diff.triage.settings import Correction as Correction
from k3diff.triage.settings import Settings as Settings
from k3diff.triage.sides import SideStats as SideStats  # importable from here: a verdict's part
from k3diff.triage.sides import SweepPoint as SweepPoint
from k3diff.triage.splits import SplitTree


class Category(StrEnum):
    """What a record's evidence says; declared most severe first."""

    DETERMINISTIC_DIVERGENCE = "deterministic-divergence"
    """Both sides stable, outputs differ: a regression candidate."""
    PATCH_OUTSIDE_BASE = "patch-outside-base"
    """The base unstable, the patch gives outputs the base never gave and the one-sided novelty
    test rejects after correction: a regression candidate."""
    DISTRIBUTION_SHIFT = "distribution-shift"
    """A side gave several outputs (or the requests sampled) and the distribution test rejects
    after correction: the patch's outputs do not come from the base's distribution."""
    PATCH_NONDETERMINISM = "patch-nondeterminism"
    """The base stable, the patch not (a regression candidate when significant after correction)."""
    INCONCLUSIVE = "inconclusive"
    """Too few observations, a patch outside the base's outputs that the novelty test cannot
    yet call, or a record the evidence cannot cover (unpaired, all failed)."""
    BOTH_NONDETERMINISTIC = "both-nondeterministic"
    """Both sides gave at least two distinct outputs."""
    BASE_NONDETERMINISM = "base-nondeterminism"
    """The base gave at least two distinct outputs for identical requests and every output of the
    patch is among the base's: not attributable to the patch."""
    MATCH = "match"
    """Both sides stable on the same output."""

    @property
    def severity(self) -> int:
        """Lower is more severe."""
        return _SEVERITY[self]


_SEVERITY = {category: rank for rank, category in enumerate(Category)}


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
    novelty: int | None
    """Patch samples whose output the base never gave (None: no novelty test, see `novelty_p`)."""
    novelty_p: float | None
    """Permutation p of the novelty test (None when the pooled samples hold one output or a side
    has none: no relabelling could change anything)."""
    novelty_p_adjusted: float | None
    """`novelty_p` after the correction across all records and modes."""
    novelty_exact: bool | None
    """The novelty p enumerated every label assignment (else a fixed-seed Monte Carlo)."""
    good_turing_base: float | None
    """Good–Turing missing mass of the base (probability of a base output not yet seen)."""
    more_samples: int | None
    """Further samples per side that would decide: bound every stable-looking side by `bound`,
    or, for a patch outside the base's outputs, make the novelty test reject if both sides went
    on as observed (None: no count up to the search limit would)."""
    regression_candidate: bool
    """deterministic-divergence, patch-outside-base, or patch-nondeterminism whose Fisher or
    novelty test is significant after correction."""
    splits: tuple[SplitTree, ...] = ()
    """Per side with two or more distinct outputs, where they split from the modal one."""
    sweep: tuple[SweepPoint, ...] = ()
    """sweep mode: per side and level, distinct outputs and how many differ from level 1's."""
    detectable: float | None = None
    """The smallest rate of a patch output this mode's patch samples would have seen at least
    once with the settings' power (1 - β^(1/n)); None without patch observations."""
    distribution: DistributionTest | None = None
    """The output-distribution test of the mode (None: both sides stable, or too few)."""
    sampled: bool = False
    """The mode's requests sampled on both sides (`shift.sampled`): its distribution decides,
    and without a test it clears nothing (`shiftverdict.untested`). False for a seeded mode
    whose repeats agree on each side (`shift.seeded_draws`: one draw, judged as greedy)."""
    requests: Mapping[str, tuple[RequestFields, ...]] | None = None
    """Per side, the sampling fields its requests in this mode sent, with counts
    (`shift.requests`): what decided `sampled`. None: not recorded."""


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
    serial_parity: bool | None = None
    """Serially (batch 1) the sides' modal outputs agree (with a tie for the most common, one
    they share); None: a side has no successful serial sample."""
    captures: tuple[CaptureEvidence, ...] = ()
    """Where each side's captured output came back among that side's samples."""
    label: str | None = None
    """How the user names the record (the comparison's label); None: the key names it."""

    @property
    def name(self) -> str:
        """The label, or the key when there is none."""
        return self.key if self.label is None else self.label


@dataclass(frozen=True)
class Reproduced:
    """How often a captured output came back in one mode."""

    mode: str
    """The sampling mode."""
    reproduced: int
    """Successful samples of the mode equal to the capture."""
    n: int
    """Successful samples of the mode (the capture itself not counted)."""


@dataclass(frozen=True)
class CaptureEvidence:
    """One side's captured output of the comparison, as evidence of its own."""

    side: str
    """base or patch."""
    modes: tuple[Reproduced, ...]
    """Per sampled mode, how often the capture came back."""

    @property
    def never_reproduced(self) -> bool:
        """Sampled, and no sample gave the captured output."""
        return any(m.n for m in self.modes) and not any(m.reproduced for m in self.modes)

    @property
    def only_concurrent(self) -> bool:
        """Came back under concurrency or load but in none of the serial samples."""
        serial = [m for m in self.modes if m.mode == Mode.SERIAL]
        others = [m for m in self.modes if m.mode != Mode.SERIAL]
        return (
            bool(serial)
            and serial[0].n > 0
            and serial[0].reproduced == 0
            and any(m.reproduced for m in others)
        )


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
    """Fisher p-values in their correction family."""
    samples_for_bound: int
    """Agreeing observations per side that bound a side's non-modal mass by the settings'
    `bound` at their `alpha` (what `--plan` answers)."""
    novelty_tests: int = 0
    """Novelty p-values in their correction family."""
    runs: tuple[RunInfo, ...] = ()
    """The run of each samples log (several only under `--pool-runs`)."""
    pool_runs: bool = False
    """`--pool-runs`: logs of different runs were pooled on purpose."""
    control: tuple[tuple[str, int, int], ...] = ()
    """Per side with a control: (side, successful samples, distinct outputs)."""
    vacuous: tuple[str, ...] = ()
    """Sides whose control came back identical (the run could not have seen a difference)."""
    same_server: str | None = None
    """The logs whose base and patch were one server with the same parameters, with their
    URLs (`oneserver.described`), where that holds the records (not `--allow-same-server`)."""
    one_server_notes: tuple[str, ...] = ()
    """The qualifications (also in `qualifications`) saying a log sampled one server as both
    sides: checked, not unchecked (held, or allowed by `--allow-same-server`)."""
    gauges: tuple[tuple[str, str | None, str | None], ...] = ()
    """Per side the logs' headers name: (side, the running-requests gauge its `/metrics`
    exposes or None, why none where the probe said)."""
    distribution_tests: int = 0
    """Distribution tests (per record and mode, and pooled per mode) in their correction family."""
    qualifications: tuple[str, ...] = ()
    """What the evidence could not establish, stated once (the captures do not record their
    requests, so the samples' condition could not be checked against them)."""
    more_samples_run: MoreSamples | None = None
    """How to take the samples the inconclusive records ask for (None: none asks)."""
    resample_run: Resample | None = None
    """How to take the samples that decide the records held for samples of another condition
    (None: none is held so)."""

    def count(self, category: Category) -> int:
        """Records in one category."""
        return sum(1 for record in self.records if record.category is category)

    @property
    def serial_parity(self) -> tuple[int, int]:
        """(records whose patch reproduces the base serially, records with serial samples on
        both sides)."""
        measured = [r.serial_parity for r in self.records if r.serial_parity is not None]
        return sum(measured), len(measured)

    @property
    def serial_base_unstable(self) -> int:
        """Records with serial parity whose base gave two or more serial outputs."""
        return sum(
            1
            for record in self.records
            if record.serial_parity
            and any(m.mode == Mode.SERIAL and m.base.unstable for m in record.modes)
        )

    @property
    def regression_candidates(self) -> int:
        """Records that fail the policy."""
        return sum(1 for record in self.records if record.regression_candidate)

    @property
    def failing_inconclusive(self) -> int:
        """Inconclusive records that fail the run (only under `fail_inconclusive`)."""
        return self.count(Category.INCONCLUSIVE) if self.settings.fail_inconclusive else 0

    @property
    def held_records(self) -> int:
        """Inconclusive records whose evidence could not clear them (`HELD_FLAGS`; each fails
        the run: never a pass)."""
        held = [r for r in self.records if HELD_FLAGS & set(r.flags)]
        return sum(1 for record in held if record.category is Category.INCONCLUSIVE)

    def _flagged(self, flag: Flag) -> int:
        """Records carrying `flag`."""
        return sum(1 for record in self.records if flag in record.flags)

    @property
    def unsampled_records(self) -> int:
        """Records whose captures differ, never sampled on a side (each fails the run)."""
        return self._flagged(Flag.UNSAMPLED)

    @property
    def not_comparable_records(self) -> int:
        """Records whose captured prompts differ (each fails the run)."""
        return self._flagged(Flag.NOT_COMPARABLE)

    @property
    def fields_unjudged_records(self) -> int:
        """Records whose captured texts agree and other fields differ (each fails the run)."""
        return self._flagged(Flag.FIELDS_UNJUDGED)

    @property
    def powerless_records(self) -> int:
        """Sampled records whose test could not have detected `--shift` (each fails the run)."""
        return self._flagged(Flag.NO_POWER)

    @property
    def novel_undecided_records(self) -> int:
        """Greedy records left undecided on a novel patch output (each fails the run)."""
        return self._flagged(Flag.NOVEL_UNDECIDED)

    @property
    def unanswered_records(self) -> int:
        """Records a side answered none of the requests for (each fails the run)."""
        return self._flagged(Flag.UNANSWERED)

    @property
    def same_server_records(self) -> int:
        """Records held because base and patch were one server (each fails the run)."""
        return self._flagged(Flag.SAME_SERVER)

    @property
    def vacuous_records(self) -> int:
        """Records a vacuous control kept from being cleared (each fails the run)."""
        return self._flagged(Flag.VACUOUS)

    @property
    def exit_code(self) -> ExitCode:
        """1 when any record is a regression candidate, was kept from clearing by a vacuous
        control or its evidence (held: `HELD_FLAGS`), or, under `fail_inconclusive`, is
        inconclusive; else 0 (inconclusive records are reported either way)."""
        failing = self.regression_candidates or self.failing_inconclusive
        failing = failing or self.vacuous_records or self.held_records
        return ExitCode.FINDINGS if failing else ExitCode.OK


@dataclass(frozen=True)
class Plan:
    """How many observations per side settle a stable side at a bound."""

    bound: float
    """The non-modal mass bound asked for."""
    alpha: float
    """The significance level."""
    per_side: int
    """Samples per side that must all agree."""
    achieved_bound: float
    """The bound those observations give when they all agree (<= bound)."""
    shift: float = 0.35
    """Sampled runs: the share of answers moved to one new answer the plan sizes for."""
    power: float = 0.8
    """Sampled runs: the power the shift is detected with."""
    per_prompt: int = 0
    """Sampled runs: samples per side per prompt that detect `shift` with `power` at `level`."""
    prompts: int | None = None
    """Sampled runs: the prompts of each mode the plan is for (`--prompts`; None: one)."""
    modes: int = 1
    """Sampled runs: the sampled modes the plan is for (`--modes`)."""
    tests: int = 1
    """Sampled runs: the tests triage corrects over (`plan.distribution_tests`)."""
    per_prompt_mmd: int | None = None
    """Sampled runs: samples per side per prompt at which the MMD test itself (the test of a
    run whose texts are logged) detects `shift` with `power` at `level`, where the base gives
    one answer (`mmdplan`); None where it cannot be stated. A base whose answers vary needs
    more: not covered."""

    @property
    def level(self) -> float:
        """The level triage judges each sampled test at: α / 2 (shared with the novelty test,
        `sampledlevel.judged_at`) over `tests`."""
        return judged_at(self.alpha, True) / self.tests

    @property
    def exit_code(self) -> ExitCode:
        """Always 0: a plan decides nothing about a patch."""
        return ExitCode.OK
