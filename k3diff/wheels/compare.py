"""`compare_wheels`: the library function behind `k3diff wheels`.

Both archives are read in place. Entry pairs are proven identical or changed in parallel across
all cores (largest first, so one huge library does not finish last), kinds are sniffed from the
first content bytes when the path does not decide them, and the whole-file SHA-256 of each wheel
is computed alongside, as is the check of every stream a raw-bytes proof left unread.
"""

from __future__ import annotations

import functools
import operator
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from k3diff import keepalive
from k3diff.progress import ProgressCallback, Tally
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.filename import filename_findings, loaded_formats
from k3diff.wheel.layout import layout_findings
from k3diff.wheel.namescreens import screen_pair
from k3diff.wheel.policy import Policy
from k3diff.wheel.soundness import soundness_findings
from k3diff.wheels import schedule, streamcheck
from k3diff.wheels.archivechecks import ArchiveChecks, check_archives
from k3diff.wheels.collect import collect
from k3diff.wheels.early import EarlyRaw, raw_compares
from k3diff.wheels.entrydetails import (
    DETAIL_COMPARATORS,
    EXPLAINING_COMPARATORS,
    DetailComparator,
    Sides,
    add_details,
)
from k3diff.wheels.facts import WheelFacts, install_checks, read_facts
from k3diff.wheels.installedpairs import installed_entries, pair_installed
from k3diff.wheels.model import EntryResult, WheelReport
from k3diff.wheels.pairing import EntryPair, pair_weights
from k3diff.wheels.proof import Status
from k3diff.wheels.recordplan import Records, wanted_algorithm
from k3diff.wheels.reportparts import wheel_side, with_findings
from k3diff.wheels.rerunsettings import rerun_settings
from k3diff.wheels.shadowing import shadowed_modules
from k3diff.wheels.sniffchild import SniffChild, screened_heads
from k3diff.wheels.surfaces import (
    COMMON_COMMANDS,
    diff_surfaces,
    surface_findings,
)
from k3diff.zip.archive import ZipArchive

if TYPE_CHECKING:
    from k3diff.provenance.setupstop import SourceStart
    from k3diff.wheels.headstart import HeadStart
    from k3diff.wheels.sources import SourceSpec


_NAME = operator.itemgetter(0)
"""`ZipEntry.name`, as a C-level getter."""


@dataclass(frozen=True)
class WheelOptions:
    """What `compare_wheels` should do beyond the default comparison."""

    policy: Policy = field(default_factory=Policy)
    """Which findings are kept and which fail."""
    explain: bool = False
    """Say why each changed native entry differs (sections, symbols, build-id, GPU images)."""
    jobs: int | None = None
    """Worker threads (default: one per core)."""
    source: SourceSpec | None = None
    """Check changed Python files against a git commit or range."""
    protected_commands: frozenset[str] | None = None
    """Command names a script in `bin/` must not shadow (None: `surfaces.COMMON_COMMANDS`)."""
    file_hash: bool = True
    """Compute the SHA-256 of both wheel files. It reads every byte of both files, so on large
    wheels it costs more than the comparison itself; the verdict does not depend on it."""

    @property
    def comparators(self) -> tuple[DetailComparator, ...]:
        """Detail comparators, first match wins: the native explainer only with `explain`."""
        return EXPLAINING_COMPARATORS if self.explain else DETAIL_COMPARATORS


def compare_wheels(
    base_path: Path,
    patch_path: Path,
    options: WheelOptions | None = None,
    progress: ProgressCallback | None = None,
    head: HeadStart | None = None,
) -> WheelReport:
    """Compare two wheels entry by entry and apply the policy.

    Phases: open, pair entries (the last of a name given twice, as pip installs it), read facts
    (identity, RECORD: it says which changed entries to hash while they are read), schedule the
    comparisons on a pool, collect the results with their details, then findings. `head`: both
    archives opened and their children started before this module was imported (`headstart`,
    of these two paths), taken instead of opening and starting them here."""
    options = options or WheelOptions()
    # `readers`: the huge pairs' stream checks, then the file hashes, then the other streams.
    with (
        _open_both(base_path, patch_path, head) as (base, patch),
        streamcheck.reader_pool(options.jobs) as readers,
        raw_compares(base, patch, readers if options.file_hash else None, head) as early,
        screened_heads(base, patch, None if head is None else head.heads) as heads,
    ):
        start: SourceStart | None = None
        if options.source is not None:  # holds75: a build setup not read stops before comparing
            from k3diff.provenance.setupstop import read_start

            spec = options.source  # what it reads, the check starts from (setupstop76)
            start = read_start(spec.repo, spec.commit, spec.commits, spec.prefix)
        facts = read_facts(base, patch)
        # RECORD is parsed once per wheel; the installability check reads the same parse.
        # Every name test once for the names both wheels share (equal by value).
        screens = screen_pair(base.entries, patch.entries)
        installs = install_checks(base, patch, facts, screens)
        pairs = pair_installed(
            installed_entries(base),
            installed_entries(patch),
            installs[0].view,
            installs[1].view,
            (screens[0].has_directory, screens[1].has_directory),  # its names, not searched again
        )
        weights = pair_weights(pairs)
        tally = _tally(base, patch, weights, options, progress)
        # Whole-file hashes on the readers: the comparison never waits on them. Imported here:
        # a --no-file-hash run hashes no whole file, and loads no hasher (issue 41).
        if options.file_hash:
            from k3diff.filehash import open_file_sha256
        digests = [
            # The open file: the bytes compared, whatever the path names by now.
            readers.submit(open_file_sha256, archive.fileno(), str(archive.path), tally.advance())
            if options.file_hash
            else None
            for archive in (base, patch)
        ]
        identities = (facts.base_identity, facts.patch_identity)
        meanwhile = functools.partial(
            check_archives, base, patch, installs, identities, explain=options.explain
        )
        unsafe = (screens[0].may_be_unsafe, screens[1].may_be_unsafe)
        entries, unsound, checked = _compare_entries(
            base, patch, pairs, facts, options, tally, weights, meanwhile, early, heads, unsafe
        )
        # Raw-identical pairs' streams: read on the readers, or counted unread.
        entries, unverified, verified = streamcheck.settle(
            patch, pairs, entries, options.file_hash, readers, tally, early.streams
        )
        unsound += [*installs[0].checks, *installs[1].checks]
        if options.policy.allow_native_changes:  # review74a: renamed; elf76: search paths
            from k3diff.wheels.nativepaths import allowed_native_findings

            name = patch_path.name
            unsound += allowed_native_findings(entries, base, patch, name, options.explain)
        versions = (facts.base_identity.version, facts.patch_identity.version)
        surfaces = diff_surfaces(*checked.scans, entries, versions)
        sboms = checked.sboms
        unsound += checked.findings
        protected = options.protected_commands
        loads = loaded_formats(str(patch_path), facts.patch_identity.tags)
        unsound += surface_findings(
            surfaces, entries, COMMON_COMMANDS if protected is None else protected, loads
        )
        unsound += shadowed_modules(entries, installs[1].case, installs[0].case)
        base_side, patch_side = (
            wheel_side(archive, digest.result()[0] if digest else None, identity, screen)
            for archive, digest, identity, screen in zip(
                (base, patch), digests, (facts.base_identity, facts.patch_identity), screens,
                strict=True,
            )
        )  # fmt: skip
        provenance = None
        if options.source is not None:
            # Imported here: it brings git and the source checks, which only --source needs.
            from k3diff.wheels.sources import attach_provenance

            entries, provenance = attach_provenance(
                entries, patch, options.source, patch_side.stated_commits,
                base_side.stated_commits, patch_side.dirty_builds, facts.patch_identity.version,
                start,
            )  # fmt: skip
            unsound += [
                Finding(Code[note.code], note.path, note.message)
                for note in provenance.notes
                if note.code  # a note without a code is said, never a finding
            ]
    if not (installs[0].unusable_dist_info or installs[1].unusable_dist_info):
        # Without one .dist-info with METADATA, W616 says what pip does; names, versions and
        # RECORD read from elsewhere would only be wrong findings beside it.
        unsound += filename_findings(base_side, patch_side)
    keepalive.keep(base, patch, facts, installs, pairs, weights, tally, checked)
    return with_findings(
        base=base_side,
        patch=patch_side,
        entries=entries,
        facts=facts,
        unsound=unsound,
        provenance=provenance,
        policy=options.policy,
        settings=rerun_settings(
            options.policy,
            protected=options.protected_commands,
            explain=options.explain,
            file_hash=options.file_hash,
            spec=options.source,
            provenance=provenance,
        ),
        installs=installs,
        surfaces=surfaces,
        sboms=sboms,
        patch_names=frozenset(map(_NAME, patch.entries)),
        unverified=unverified,
        verified=verified,
    )


@contextmanager
def _open_both(
    base_path: Path, patch_path: Path, head: HeadStart | None = None
) -> Iterator[tuple[ZipArchive, ZipArchive]]:
    """Phase open: both archives, read in place (the patch's names beside the base's), or the
    ones `head` opened; closed on leaving either way."""
    if head is not None:
        with head.base as base, head.patch as patch:
            yield base, patch
        return
    with ZipArchive.open(base_path) as base, ZipArchive.open(patch_path, base.entries) as patch:
        yield base, patch


def _tally(
    base: ZipArchive,
    patch: ZipArchive,
    weights: list[int],
    options: WheelOptions,
    progress: ProgressCallback | None,
) -> Tally:
    """Progress weighted by bytes: each pair's compressed bytes (counted once its result and
    details are in, `--explain` included) and, with file hashes, both files' bytes."""
    total = sum(weights)
    if options.file_hash:
        total += base.file_size + patch.file_size
    return Tally(total, progress)


def _compare_entries(
    base: ZipArchive,
    patch: ZipArchive,
    pairs: list[EntryPair],
    facts: WheelFacts,
    options: WheelOptions,
    tally: Tally,
    weights: list[int],
    meanwhile: Callable[[], ArchiveChecks],
    early: EarlyRaw | None = None,
    heads: SniffChild | None = None,
    unsafe: tuple[bool | None, bool | None] = (None, None),
) -> tuple[Sequence[EntryResult], list[Finding], ArchiveChecks]:
    """Phases schedule and collect: every pair proven on the pool, each result given its details
    as it arrives, `meanwhile` run on this thread before the results are collected. Returns
    the results in pair order, the archives' soundness findings and what `meanwhile` gave.
    `unsafe`: whether each wheel's names may be unsafe, when told (`wheel.namescreens`)."""
    jobs = options.jobs or os.cpu_count() or 1
    for archive in (base, patch):  # once, before the pool: every proof then knows its offsets
        archive.local_headers()
    detail = functools.partial(_detail, base, patch, pairs, facts.records, options)
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="k3diff") as pool:
        hashing = schedule.Hashing.of(facts.records, options.policy, options.comparators)
        pending = schedule.submit_pairs(pool, base, patch, pairs, hashing, detail, early, heads)
        try:
            # The main thread would only wait: it checks the archives meanwhile.
            unsound = [
                *soundness_findings(base, "base", unsafe[0]),
                *soundness_findings(patch, "patch", unsafe[1]),
                *layout_findings(base, "base"),
                *layout_findings(patch, "patch"),
            ]
            try:
                checked = meanwhile()
            except Exception as exc:  # raised once the results are in, as when it ran after them:
                failure: Exception | None = exc  # a comparison's error still comes first
            else:
                failure = None
            results = collect(pending, weights, detail, tally)
            if failure is not None:
                raise failure
            return results, unsound, checked
        except BaseException:
            # Report the error now, not after every queued comparison has run.
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _detail(
    base: ZipArchive,
    patch: ZipArchive,
    pairs: list[EntryPair],
    records: Records,
    options: WheelOptions,
    index: int,
    result: EntryResult,
) -> EntryResult:
    """The result with its comparator's detail, and its RECORD hash when still wanted."""
    algorithm = wanted_algorithm(result, records, options.policy)
    if algorithm is None and result.status is Status.IDENTICAL:
        return result  # most entries: no comparator reads identical content, nothing to hash
    pair = pairs[index]
    sides = Sides(base, patch, pair.base, pair.patch, algorithm)
    result = add_details(result, sides, options.comparators)
    # Details only ever settle a wanted hash (a digest, or corruption), never ask for one.
    if algorithm is None or wanted_algorithm(result, records, options.policy) is None:
        return result
    # No comparator read it after all: hash it here.
    assert pair.patch is not None and algorithm is not None
    return schedule.with_digest(result, patch, pair.patch, algorithm, options.policy)
