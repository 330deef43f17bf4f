"""Phase schedule of `compare_wheels`: the entry pairs as tasks on the worker pool.

Pairs outside spans go largest first (a huge library must not finish last), small ones grouped
in batches so task overhead stays small; spans of back-to-back identical records are one read
each. Each task proves its pairs (`proof.prove`), sniffs their kind and, when RECORD asks for it
and no detail comparator will read the content, hashes the patch side.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace

from k3diff.batches import largest_first_batches
from k3diff.errors import CorruptEntryError
from k3diff.wheel.codes import Policy
from k3diff.wheel.kinds import SNIFF_BYTES, EntryKind, is_native_magic, kind_from_path
from k3diff.wheel.modes import mode_change
from k3diff.wheel.recordhash import digest_content
from k3diff.wheels.entrydetails import DetailComparator, reads_patch_content
from k3diff.wheels.model import EntryResult, entry_result_from
from k3diff.wheels.pairing import EntryPair
from k3diff.wheels.proof import IDENTICAL_RAW, How, Proof, Status, prove_reading
from k3diff.wheels.recordplan import Records, content_proof_algorithm, wanted_algorithm
from k3diff.wheels.spans import Span, plan_spans, read_equal_span
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry
from k3diff.zip.inflate import head_from_data


@dataclass(frozen=True)
class Hashing:
    """What the workers need to hash changed and added entries' content for RECORD."""

    records: Records
    """The RECORD lines of both wheels."""
    policy: Policy
    """The run's policy (which digest RECORD findings need)."""
    comparators: tuple[DetailComparator, ...]
    """The run's detail comparators (an entry one of them reads is hashed there instead)."""


def submit_pairs(
    pool: ThreadPoolExecutor,
    base: ZipArchive,
    patch: ZipArchive,
    pairs: list[EntryPair],
    hashing: Hashing,
) -> list[Future[list[tuple[int, EntryResult]]]]:
    """Pairs outside spans largest first (a huge library must not finish last), small ones
    grouped so task overhead stays small; then spans of back-to-back records, one read each."""
    spans, singles = plan_spans(base, patch, pairs)
    batches = largest_first_batches(singles, lambda index: _work(pairs[index]))
    futures = [pool.submit(compare_batch, base, patch, pairs, batch, hashing) for batch in batches]
    futures += [pool.submit(_compare_span, base, patch, pairs, span, hashing) for span in spans]
    return futures


def _compare_span(
    base: ZipArchive, patch: ZipArchive, pairs: list[EntryPair], span: Span, hashing: Hashing
) -> list[tuple[int, EntryResult]]:
    stretch = read_equal_span(base, patch, span)
    if stretch is None:
        return compare_batch(base, patch, pairs, list(span.indices), hashing)
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


def compare_batch(
    base: ZipArchive, patch: ZipArchive, pairs: list[EntryPair], batch: list[int], hashing: Hashing
) -> list[tuple[int, EntryResult]]:
    return [(index, _compare_pair(base, patch, pairs[index], hashing)) for index in batch]


def _work(pair: EntryPair) -> int:
    return max(entry.compressed_size for entry in (pair.base, pair.patch) if entry is not None)


def _compare_pair(
    base: ZipArchive, patch: ZipArchive, pair: EntryPair, hashing: Hashing
) -> EntryResult:
    if pair.base is not None and pair.patch is not None:
        algorithm = content_proof_algorithm(hashing.records, pair.base, pair.patch)
        proof, patch_raw, patch_head = prove_reading(base, pair.base, patch, pair.patch, algorithm)
    elif pair.base is not None:
        proof, patch_raw, patch_head = Proof(Status.MISSING, How.ONE_SIDED), None, None
    else:
        proof, patch_raw, patch_head = Proof(Status.ADDED, How.ONE_SIDED), None, None
    # Identical content has one kind: sniff the patch side only.
    base_entry = None if proof.status is Status.IDENTICAL else pair.base
    differs = proof.status is not Status.IDENTICAL
    kind = _kind(base, base_entry, patch, pair.patch, differs, patch_raw, patch_head)
    result = _result(pair, proof, kind)
    algorithm = wanted_algorithm(result, hashing.records, hashing.policy)
    if algorithm is None or reads_patch_content(result, hashing.comparators):
        return result  # nothing to hash, or the detail comparator hashes it as it reads
    assert pair.patch is not None
    return with_digest(result, patch, pair.patch, algorithm)


def with_digest(
    result: EntryResult, archive: ZipArchive, entry: ZipEntry, algorithm: str
) -> EntryResult:
    """The result with the patch content's hash, or the corruption that reading it found."""
    try:
        return replace(result, patch_digest=digest_content(archive, entry, algorithm))
    except CorruptEntryError as exc:
        return replace(result, corrupt=f"the patch wheel's stream: {exc.problem}")


def _result(pair: EntryPair, proof: Proof, kind: EntryKind) -> EntryResult:
    """The entry's result; identical content that pip installs with another exec bit or file
    type is a change (how: mode)."""
    status, how = proof.status, proof.how
    base_entry, patch_entry = pair.base, pair.patch
    base_mode = base_entry.external_attr >> 16 if base_entry is not None else None
    patch_mode = patch_entry.external_attr >> 16 if patch_entry is not None else None
    if status is Status.IDENTICAL and base_mode != patch_mode:  # rare: checked in full only then
        change = mode_change(base_entry, patch_entry)
        if change is not None and change.installed:
            status, how = Status.CHANGED, How.MODE
    # Every field, as `entry_result_from` needs: one of these per entry.
    return entry_result_from(
        {
            "path": pair.path,
            "base_path": base_entry.name if base_entry else None,
            "patch_path": patch_entry.name if patch_entry else None,
            "kind": kind,
            "status": status,
            "how": how,
            "recompressed": proof.recompressed,
            "base_size": base_entry.size if base_entry else None,
            "patch_size": patch_entry.size if patch_entry else None,
            "base_crc32": base_entry.crc32 if base_entry else None,
            "patch_crc32": patch_entry.crc32 if patch_entry else None,
            "diff": None,
            "source": None,
            "native": None,
            "corrupt": proof.corrupt,
            "patch_digest": proof.patch_digest,
            "base_mode": base_mode,
            "patch_mode": patch_mode,
            "installed_path": pair.installed_path,
            "base_installed_path": pair.base_installed_path,
            "moved": pair.moved,
        }
    )


def _kind(
    base: ZipArchive,
    base_entry: ZipEntry | None,
    patch: ZipArchive,
    patch_entry: ZipEntry | None,
    differs: bool,
    patch_raw: bytes | None = None,
    patch_head: bytes | None = None,
) -> EntryKind:
    """Native when either side is native: a library replaced by a stub still counts as native.

    Content magic decides before the extension: an ELF named `.py` is native. A Python file is
    sniffed only when it `differs` (changed, added or missing): an identical entry's kind
    decides no finding, and a wheel's twelve thousand sources need not be read for it.
    `patch_raw`: the patch entry's compressed bytes when the proof read them whole, sniffed
    from there instead of read again; `patch_head`: its first content bytes, when the proof
    inflated it whole."""
    entry = patch_entry if patch_entry is not None else base_entry
    assert entry is not None
    by_path = kind_from_path(entry.name)
    if by_path is not None and not (by_path is EntryKind.PYTHON and differs):
        return by_path
    if (patch_raw is not None or patch_head is not None) and base_entry is None:
        assert patch_entry is not None
        if patch_head is None:
            assert patch_raw is not None
            patch_head = head_from_data(patch_entry, patch_raw, SNIFF_BYTES)
        native = is_native_magic(patch_head)
        return EntryKind.NATIVE if native else (by_path or EntryKind.OTHER)
    sides = ((patch, patch_entry), (base, base_entry))
    for archive, side_entry in sides:
        if side_entry is not None and is_native_magic(archive.head(side_entry, SNIFF_BYTES)):
            return EntryKind.NATIVE
    return by_path or EntryKind.OTHER
