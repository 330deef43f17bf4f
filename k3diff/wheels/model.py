"""The values `compare_wheels` returns: one per entry, one per wheel, and the whole report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import compress, repeat
from operator import attrgetter, itemgetter, ne
from typing import TYPE_CHECKING, Any

from k3diff.exitcodes import ExitCode
from k3diff.wheel.codes import Code, Finding, Severity
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.metadata import WheelIdentity
from k3diff.wheel.policy import Policy
from k3diff.wheels.entry import EntryResult as EntryResult
from k3diff.wheels.entry import entry_result_from as entry_result_from
from k3diff.wheels.entryruns import EntryResults
from k3diff.wheels.proof import Status

if TYPE_CHECKING:
    from k3diff.provenance.check import ProvenanceReport
    from k3diff.wheel.installed import InstalledView
    from k3diff.wheel.metachange import MetadataChange  # built only when identities differ
    from k3diff.wheel.sbomdoc import SbomReport  # built only for a wheel with an SBOM
    from k3diff.wheel.waivers import WaiverOutcome  # loaded only with --waivers
    from k3diff.wheels.filtered import FilteredCount  # built only when findings are hidden
    from k3diff.wheels.statedcommit import DirtyBuild, NotACommit, StatedCommit
    from k3diff.wheels.surfaces import SurfaceReport


@dataclass(frozen=True)
class WheelSide:
    """One of the two wheels as a whole."""

    path: str
    """The path as the user gave it."""
    sha256: str | None
    """SHA-256 of the whole file, None when not computed (`--no-file-hash`)."""
    size: int
    """File size in bytes."""
    identity: WheelIdentity
    """Name, version, tags and requirements from `.dist-info/`."""
    entry_count: int
    """Entries in the central directory, directory entries included."""
    directory_count: int
    """How many of those entries are directories (names ending in '/': never paired)."""
    stated_commits: tuple[StatedCommit, ...] = ()
    """The commits the wheel states it was built from, and where (`wheels.statedcommit`)."""
    not_commits: tuple[NotACommit, ...] = ()
    """Values the wheel gives in a commit's place that are no commit id (said, never checked)."""
    dirty_builds: tuple[DirtyBuild, ...] = ()
    """Where the wheel says it was built dirty without stating a commit (W411 of the patch with
    `--source`; not written to the document, whose findings hold that W411)."""


@dataclass(frozen=True)
class KindCounts:
    """How many entries of one kind ended in each status."""

    total: int = 0
    identical: int = 0
    changed: int = 0
    missing: int = 0
    added: int = 0


def count_by_kind(entries: Sequence[EntryResult]) -> dict[EntryKind, KindCounts]:
    """Summary counts for every kind (zeros included, so the JSON shape never varies)."""
    if isinstance(entries, EntryResults) and entries.columnar:  # runs counted by kinds alone
        counted = entries.kind_status_counts()
    else:  # counted in C over (kind, status) pairs: one pass over twelve thousand entries
        counted = Counter(zip(map(_KIND, entries), map(_STATUS, entries), strict=True))
    return {
        kind: KindCounts(
            total=sum(counted[kind, status] for status in Status),
            identical=counted[kind, Status.IDENTICAL],
            changed=counted[kind, Status.CHANGED],
            missing=counted[kind, Status.MISSING],
            added=counted[kind, Status.ADDED],
        )
        for kind in EntryKind
    }


_KIND = attrgetter("kind")
_STATUS = attrgetter("status")
_RESULT = itemgetter(1)


def is_notable(entry: EntryResult) -> bool:
    """True when a report says something about the entry beyond counting it: anything but
    identical, or identical but recompressed, moved, diffed or explained."""
    return (
        entry.status is not Status.IDENTICAL
        or entry.recompressed
        or entry.moved
        or entry.diff is not None
        or entry.native is not None
    )


_NOTABLE_FIELDS = attrgetter("status", "recompressed", "moved", "diff", "native")
_QUIET = (Status.IDENTICAL, False, False, None, None)
"""What `is_notable` reads of an entry, and the values that make it say False."""


def filtered_counts(findings: Iterable[Finding], policy: Policy) -> tuple[FilteredCount, ...]:
    """Per code, the findings `policy` does not report (in code order)."""
    counts: Counter[Code] = Counter(f.code for f in findings if not policy.reports(f.code))
    if not counts:
        return ()
    from k3diff.wheels.filtered import FilteredCount  # only when --select / --ignore hid some

    return tuple(
        FilteredCount(code.name, counts[code], policy.fails(code))
        for code in sorted(counts, key=lambda code: code.name)
    )


@dataclass(frozen=True)
class WheelReport:
    """Everything `k3diff wheels` found."""

    base: WheelSide
    """The base wheel."""
    patch: WheelSide
    """The patch wheel."""
    entries: Sequence[EntryResult]
    """Every paired or one-sided entry, sorted by path (from `compare_wheels`: an
    `EntryResults`, whose raw-identical runs are built as results when first read)."""
    metadata_changes: tuple[MetadataChange, ...]
    """Identity fields that differ (name, version, tags, requirements)."""
    findings: tuple[Finding, ...]
    """Findings kept by the policy, in entry order."""
    policy: Policy = field(default_factory=Policy)
    """The policy the findings were kept by; it says which of them fail (`severity`)."""
    settings: Mapping[str, Any] | None = None
    """Every setting that changes the document (`rerunsettings.rerun_settings`): its `rerun`
    object, None for a report not made by `compare_wheels`."""
    provenance: ProvenanceReport | None = None
    """The source-provenance run (repo, revision, prefix, per-file verdicts), when asked."""
    filtered: tuple[FilteredCount, ...] = ()
    """Findings left out by `--select` / `--ignore`, per code (said beside the verdict)."""
    installed: tuple[InstalledView, InstalledView] | None = None
    """The installed views of base and patch (collisions, refusals), as `wheels` built them."""
    surfaces: SurfaceReport | None = None
    """Execution surfaces of both wheels and what the patch changes about them."""
    sboms: SbomReport | None = None
    """PEP 770 SBOMs of both wheels and their component changes, when either ships one."""
    unverified_streams: int = 0
    """Pairs proven identical by equal compressed bytes whose streams were not read to their
    ends, their CRC-32 and size unchecked (`--no-file-hash`; `wheels.streamcheck`): 0 when every
    stream k3diff reads was checked."""
    verified_streams: int = 0
    """Pairs proven identical by equal compressed bytes whose streams were read to their ends
    and passed their CRC-32 and size (the default report, beside the file hashes): 0 under
    `--no-file-hash` or when there were none."""
    explain: bool = False
    """`--explain` was asked: a report with no changed native entry says there was nothing to
    explain (set by `asked_to_explain`)."""
    summary: dict[EntryKind, KindCounts] = field(init=False)
    """Counts per kind and status."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "summary", count_by_kind(self.entries))

    @cached_property
    def notable(self) -> tuple[EntryResult, ...]:
        """The entries `is_notable` keeps, in entry order: what the text and Markdown reports
        list and describe, found in one pass (a rebuilt wheel's are a handful of twelve
        thousand)."""
        entries = self.entries
        if isinstance(entries, EntryResults) and entries.columnar:  # a run's pair: when moved
            return tuple(filter(is_notable, map(_RESULT, entries.sparse())))
        # The few candidates found in C (any of the fields `is_notable` reads not its quiet
        # value), then `is_notable` itself decides each: a C pass instead of a call per entry.
        fields = map(_NOTABLE_FIELDS, entries)
        candidates = compress(entries, map(ne, fields, repeat(_QUIET)))
        return tuple(filter(is_notable, candidates))

    @property
    def different_distributions(self) -> bool:
        """True when base and patch name different projects (PEP 503-normalised)."""
        from k3diff.wheel.filename import different_distributions

        return different_distributions(self.base.identity, self.patch.identity)

    @property
    def exit_code(self) -> ExitCode:
        """1 when any kept finding fails the policy, else 0."""
        return ExitCode.FINDINGS if self.failing else ExitCode.OK

    @property
    def artifacts(self) -> tuple[str, str]:
        """The two wheel files' names (what a waiver's `artifact` glob is matched against)."""
        return (self.base.path, self.patch.path)

    @property
    def failing(self) -> tuple[Finding, ...]:
        """The kept findings that fail the policy (waived ones do not)."""
        return self.policy.failing(self.findings, self.artifacts)

    def severity(self, finding: Finding) -> Severity:
        """error when `finding` fails the run's policy (and no waiver covers it), else info."""
        return self.policy.severity_of(finding, self.artifacts)

    def waiver_outcome(self) -> WaiverOutcome | None:
        """What `--waivers` did for this pair (None without a waiver file)."""
        if self.policy.waivers is None:
            return None
        from k3diff.wheel.waivers import outcome

        names = self.artifacts
        return outcome(self.policy.waivers, ((f, self.patch.path, names) for f in self.findings))


def asked_to_explain(report: WheelReport, explain: bool) -> WheelReport:
    """`report` marked as compared under `--explain` when `explain` (the same report when not,
    so a run without it rebuilds nothing)."""
    return replace(report, explain=True) if explain and not report.explain else report
