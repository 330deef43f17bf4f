"""`compare_wheels`: the library function behind `k3diff wheels`.

Both archives are read in place. Entry pairs are proven identical or changed in parallel across
all cores (largest first, so one huge library does not finish last), kinds are sniffed from the
first content bytes when the path does not decide them, and the whole-file SHA-256 of each wheel
is computed alongside.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

from k3diff.archive import ZipArchive
from k3diff.errors import ArchiveError, CorruptEntryError, InputError
from k3diff.wheels.details import (
    DETAIL_COMPARATORS,
    DetailComparator,
    Sides,
    add_details,
    reads_patch_content,
)
from k3diff.wheels.findings import Policy
from k3diff.wheels.kinds import SNIFF_BYTES, EntryKind, is_native_magic, kind_from_path
from k3diff.wheels.layout import layout_findings
from k3diff.wheels.metadata import WheelIdentity, identity_changes, read_identity, read_record
from k3diff.wheels.model import EntryResult, WheelReport, WheelSide, filtered_counts
from k3diff.wheels.pairing import EntryPair, pair_entries
from k3diff.wheels.policy_findings import collect_findings
from k3diff.wheels.proof import IDENTICAL_RAW, How, Proof, Status, prove
from k3diff.wheels.recordcheck import (
    Records,
    content_proof_algorithm,
    digest_content,
    wanted_algorithm,
)
from k3diff.wheels.soundness import soundness_findings
from k3diff.wheels.sourcecheck import SourceSpec, attach_provenance
from k3diff.wheels.spans import Span, plan_spans, read_equal_span
from k3diff.wheels.wheelname import filename_findings
from k3diff.zipdir import ZipEntry

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class WheelOptions:
    """What `compare_wheels` should do beyond the default comparison."""

    policy: Policy = field(default_factory=Policy)
    """Which findings are kept and which fail."""
    comparators: tuple[DetailComparator, ...] = DETAIL_COMPARATORS
    """Detail comparators, first match wins (the CLI adds the native explainer on --explain)."""
    jobs: int | None = None
    """Worker threads (default: one per core)."""
    source: SourceSpec | None = None
    """Check changed Python files against a git commit or range (`--source`)."""
    file_hash: bool = True
    """Compute the SHA-256 of both wheel files. It reads every byte of both files, so on large
    wheels it costs more than the comparison itself; the verdict does not depend on it."""


def compare_wheels(
    base_path: Path,
    patch_path: Path,
    options: WheelOptions | None = None,
    progress: ProgressCallback | None = None,
) -> WheelReport:
    """Compare two wheels entry by entry and apply the policy."""
    options = options or WheelOptions()
    with ZipArchive.open(base_path) as base, ZipArchive.open(patch_path) as patch:
        for archive in (base, patch):
            _refuse_duplicate_names(archive)
        # Whole-file hashes run in threads of their own so the comparison never waits on them.
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="k3diff-sha256") as hashers:
            digests = [
                hashers.submit(_file_sha256, archive.path) if options.file_hash else None
                for archive in (base, patch)
            ]
            pairs = pair_entries(base.entries, patch.entries)
            jobs = options.jobs or os.cpu_count() or 1
            # RECORD first: it says which changed or added entries to hash while they are read.
            identities = (read_identity(base), read_identity(patch))
            records = (
                read_record(base, identities[0].dist_info),
                read_record(patch, identities[1].dist_info),
            )
            with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="k3diff") as pool:
                pending = _submit_pairs(pool, base, patch, pairs, _Hashing(records, options))
                try:
                    # The main thread would only wait: it checks paths meanwhile, and adds
                    # each result's details as it arrives.
                    unsound = [
                        *soundness_findings(base, "base"),
                        *soundness_findings(patch, "patch"),
                        *layout_findings(base, "base"),
                        *layout_findings(patch, "patch"),
                    ]

                    def detail(index: int, result: EntryResult) -> EntryResult:
                        pair = pairs[index]
                        algorithm = wanted_algorithm(result, records, options.policy)
                        sides = Sides(base, patch, pair.base, pair.patch, algorithm)
                        result = add_details(result, sides, options.comparators)
                        if wanted_algorithm(result, records, options.policy) is None:
                            return result
                        # No comparator read it after all: hash it here.
                        assert pair.patch is not None and algorithm is not None
                        return _with_digest(result, patch, pair.patch, algorithm)

                    detailed = _collect(pending, len(pairs), detail, progress)
                except BaseException:
                    # Report the error now, not after every queued comparison has run.
                    pool.shutdown(wait=False, cancel_futures=True)
                    raise
            base_side, patch_side = (
                _side(archive, digest.result() if digest else None, identity)
                for archive, digest, identity in zip(
                    (base, patch), digests, identities, strict=True
                )
            )
        provenance = None
        if options.source is not None:
            detailed, provenance = attach_provenance(detailed, patch, options.source)
    changes = identity_changes(base_side.identity, patch_side.identity)
    unsound += filename_findings(base_side, patch_side)
    # Collected unfiltered, then filtered here, so the report can say what the filter hid.
    unfiltered = Policy(allow_native_changes=options.policy.allow_native_changes)
    every = collect_findings(detailed, unfiltered, changes, records[1], records[0], unsound)
    findings = [f for f in every if options.policy.reports(f.code)]
    return WheelReport(
        base=base_side,
        patch=patch_side,
        entries=detailed,
        metadata_changes=tuple(changes),
        findings=tuple(findings),
        provenance=provenance,
        filtered=filtered_counts(every, options.policy),
    )


def _refuse_duplicate_names(archive: ZipArchive) -> None:
    counts = Counter(entry.name for entry in archive.entries)
    duplicates = sorted(name for name, count in counts.items() if count > 1)
    if duplicates:
        shown = ", ".join(repr(name) for name in duplicates[:3])
        raise ArchiveError(
            f"{archive.path}: duplicate entry names ({shown}): which one an installer takes is "
            "undefined (W608; `k3diff audit` lists them all)"
        )


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    buffer = bytearray(4 << 20)
    view = memoryview(buffer)
    try:
        with open(path, "rb", buffering=0) as handle:
            while size := handle.readinto(buffer):
                digest.update(view[:size])
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return digest.hexdigest()


def _side(archive: ZipArchive, sha256: str | None, identity: WheelIdentity) -> WheelSide:
    return WheelSide(
        path=str(archive.path),
        sha256=sha256,
        size=archive.file_size,
        identity=identity,
        entry_count=len(archive.entries),
    )


BATCH_BYTES = 8 << 20
"""Small entries are compared in batches of about this many compressed bytes per task."""


@dataclass(frozen=True)
class _Hashing:
    """What the workers need to hash changed and added entries' content for RECORD."""

    records: Records
    options: WheelOptions


def _submit_pairs(
    pool: ThreadPoolExecutor,
    base: ZipArchive,
    patch: ZipArchive,
    pairs: list[EntryPair],
    hashing: _Hashing,
) -> list[Future[list[tuple[int, EntryResult]]]]:
    """Pairs outside spans largest first (a huge library must not finish last), small ones
    grouped so task overhead stays small; then spans of back-to-back records, one read each."""
    spans, singles = plan_spans(base, patch, pairs)
    order = sorted(singles, key=lambda i: -_work(pairs[i]))
    batches: list[list[int]] = []
    current: list[int] = []
    volume = 0
    for index in order:
        current.append(index)
        volume += _work(pairs[index]) + 4096
        if volume >= BATCH_BYTES or len(current) >= 256:
            batches.append(current)
            current, volume = [], 0
    if current:
        batches.append(current)
    futures = [pool.submit(_compare_batch, base, patch, pairs, batch, hashing) for batch in batches]
    futures += [pool.submit(_compare_span, base, patch, pairs, span, hashing) for span in spans]
    return futures


def _compare_span(
    base: ZipArchive, patch: ZipArchive, pairs: list[EntryPair], span: Span, hashing: _Hashing
) -> list[tuple[int, EntryResult]]:
    stretch = read_equal_span(base, patch, span)
    if stretch is None:
        return _compare_batch(base, patch, pairs, list(span.indices), hashing)
    view = memoryview(stretch)
    results = []
    for index in span.indices:
        pair = pairs[index]
        assert pair.patch is not None
        kind = kind_from_path(pair.patch.name)
        if kind is None:
            record = view[pair.patch.header_offset - span.patch_start :]
            native = is_native_magic(patch.head_in(pair.patch, record, SNIFF_BYTES))
            kind = EntryKind.NATIVE if native else EntryKind.OTHER
        results.append((index, _result(pair, IDENTICAL_RAW, kind)))
    return results


def _compare_batch(
    base: ZipArchive, patch: ZipArchive, pairs: list[EntryPair], batch: list[int], hashing: _Hashing
) -> list[tuple[int, EntryResult]]:
    return [(index, _compare_pair(base, patch, pairs[index], hashing)) for index in batch]


def _collect(
    pending: list[Future[list[tuple[int, EntryResult]]]],
    count: int,
    detail: Callable[[int, EntryResult], EntryResult],
    progress: ProgressCallback | None,
) -> tuple[EntryResult, ...]:
    """Results in pair order, each passed through `detail` as soon as its task finishes."""
    results: list[EntryResult | None] = [None] * count
    done = 0
    for future in as_completed(pending):
        finished = future.result()
        for index, result in finished:
            results[index] = detail(index, result)
        done += len(finished)
        if progress is not None:
            progress(done, count)
    return tuple(result for result in results if result is not None)


def _work(pair: EntryPair) -> int:
    return max(entry.compressed_size for entry in (pair.base, pair.patch) if entry is not None)


def _compare_pair(
    base: ZipArchive, patch: ZipArchive, pair: EntryPair, hashing: _Hashing
) -> EntryResult:
    if pair.base is not None and pair.patch is not None:
        algorithm = content_proof_algorithm(hashing.records, pair.base, pair.patch)
        proof = prove(base, pair.base, patch, pair.patch, algorithm)
    elif pair.base is not None:
        proof = Proof(Status.MISSING, How.ONE_SIDED)
    else:
        proof = Proof(Status.ADDED, How.ONE_SIDED)
    # Identical content has one kind: sniff the patch side only.
    base_entry = None if proof.status is Status.IDENTICAL else pair.base
    result = _result(pair, proof, _kind(base, base_entry, patch, pair.patch))
    options = hashing.options
    algorithm = wanted_algorithm(result, hashing.records, options.policy)
    if algorithm is None or reads_patch_content(result, options.comparators):
        return result  # nothing to hash, or the detail comparator hashes it as it reads
    assert pair.patch is not None
    return _with_digest(result, patch, pair.patch, algorithm)


def _with_digest(
    result: EntryResult, archive: ZipArchive, entry: ZipEntry, algorithm: str
) -> EntryResult:
    """The result with the patch content's hash, or the corruption that reading it found."""
    try:
        return replace(result, patch_digest=digest_content(archive, entry, algorithm))
    except CorruptEntryError as exc:
        return replace(result, corrupt=f"the patch wheel's stream {exc.problem}")


def _result(pair: EntryPair, proof: Proof, kind: EntryKind) -> EntryResult:
    return EntryResult(
        path=pair.path,
        base_path=pair.base.name if pair.base else None,
        patch_path=pair.patch.name if pair.patch else None,
        kind=kind,
        status=proof.status,
        how=proof.how,
        recompressed=proof.recompressed,
        corrupt=proof.corrupt,
        patch_digest=proof.patch_digest,
        base_size=pair.base.size if pair.base else None,
        patch_size=pair.patch.size if pair.patch else None,
        base_crc32=pair.base.crc32 if pair.base else None,
        patch_crc32=pair.patch.crc32 if pair.patch else None,
    )


def _kind(
    base: ZipArchive, base_entry: ZipEntry | None, patch: ZipArchive, patch_entry: ZipEntry | None
) -> EntryKind:
    """Native when either side is native: a library replaced by a stub still counts as native."""
    entry = patch_entry if patch_entry is not None else base_entry
    assert entry is not None
    by_path = kind_from_path(entry.name)
    if by_path is not None:
        return by_path
    sides = ((patch, patch_entry), (base, base_entry))
    for archive, side_entry in sides:
        if side_entry is not None and is_native_magic(archive.head(side_entry, SNIFF_BYTES)):
            return EntryKind.NATIVE
    return EntryKind.OTHER
