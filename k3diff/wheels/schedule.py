"""Phase schedule of `compare_wheels`: the entry pairs as tasks on the worker pool.

Pairs outside spans go largest first (a huge library must not finish last), small ones grouped
in batches so task overhead stays small; spans of back-to-back identical records are one read
each. Each task proves its pairs (`proof.prove`), sniffs their kind and, when RECORD asks for it
and no detail comparator will read the content, hashes the patch side. A task hands back which
of its results are final (identical content, no hash wanted: nearly every entry of a rebuilt
wheel) apart from those `compare._detail` still sees to, so the main thread touches only those.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from itertools import compress, repeat
from operator import is_, itemgetter
from typing import NamedTuple

from k3diff.batches import mixed_sized
from k3diff.errors import CorruptEntryError
from k3diff.wheel.kinds import (
    EntryKind,
    kinds_from_paths,
)
from k3diff.wheel.policy import Policy
from k3diff.wheel.recordhash import digest_content
from k3diff.wheels import smallpairs
from k3diff.wheels.early import EarlyRaw, RawAnswer
from k3diff.wheels.entrydetails import DetailComparator, reads_patch_content, worker_may_detail
from k3diff.wheels.entryruns import IdenticalRun, split_run
from k3diff.wheels.model import EntryResult
from k3diff.wheels.pairing import EntryPair
from k3diff.wheels.pairresult import entry_kind, pair_result
from k3diff.wheels.proof import IDENTICAL_RAW, How, Proof, Status, prove_reading
from k3diff.wheels.recordplan import (
    Records,
    content_proof_algorithm,
    unchanged_rows,
    wanted_algorithm,
)
from k3diff.wheels.sniffchild import SniffChild
from k3diff.wheels.spans import Span, equal_records, plan_spans, read_span, span_natives
from k3diff.wheels.streamcheck import corrupt_side
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry


class Hashing(NamedTuple):
    """What the workers need to hash changed and added entries' content for RECORD (a named
    tuple: private to the run's schedule, defined in a tenth of a frozen dataclass's ≈ 1 ms)."""

    records: Records
    """The RECORD lines of both wheels."""
    policy: Policy
    """The run's policy (which digest RECORD findings need)."""
    comparators: tuple[DetailComparator, ...]
    """The run's detail comparators (an entry one of them reads is hashed there instead)."""
    unchanged: frozenset[str] = frozenset()
    """`recordplan.unchanged_rows` of `records`: the paths whose identical entries need no
    hash (computed once, not asked per entry)."""

    @classmethod
    def of(
        cls, records: Records, policy: Policy, comparators: tuple[DetailComparator, ...]
    ) -> Hashing:
        """The hashing plan of a run, its unchanged rows computed."""
        return cls(records, policy, comparators, unchanged_rows(records))


Results = list[tuple[int, EntryResult]]
"""Results by pair index."""

Detail = Callable[[int, EntryResult], EntryResult]
"""`compare._detail`: a pair's result (by index) with its comparator's detail and RECORD
hash."""


class Finished(NamedTuple):
    """What one task hands back."""

    final: Results
    """Results as they stay: identical content with no hash wanted (`_is_final`)."""
    pending: Results
    """Results `compare._detail` still sees to on the main thread (a comparator's detail, a
    hash) where the task did not (`compare_batch`)."""
    runs: list[IdenticalRun]
    """Raw-identical pairs kept as columns (`_identical`): final, no result built for each."""


def submit_pairs(
    pool: ThreadPoolExecutor,
    base: ZipArchive,
    patch: ZipArchive,
    pairs: list[EntryPair],
    hashing: Hashing,
    detail: Detail | None = None,
    early: EarlyRaw | None = None,
    heads: SniffChild | None = None,
) -> list[Future[Finished]]:
    """Pairs outside spans largest first (a huge library must not finish last), small ones
    grouped so task overhead stays small; then spans of back-to-back records, one read each;
    last the pairs whose raw comparison already runs (`early`), so no worker waits on one while
    other work is queued. `detail`: what the tasks call on the results they may detail
    themselves (`compare_batch`); `heads`: the child screening the patch's heads (`sniffchild`)."""
    spans, singles = plan_spans(base, patch, pairs)
    started = early.started_among(pairs, singles) if early else []
    if started:
        begun = set(started)
        singles = [index for index in singles if index not in begun]
    # Small pairs' batches among the large: their GIL-holding Python beside GIL-free inflates.
    batches = mixed_sized(singles, [_work(pairs[index]) for index in singles])
    futures = [
        pool.submit(compare_batch, base, patch, pairs, batch, hashing, detail) for batch in batches
    ]
    turn = threading.Lock()  # the spans' results one task at a time (`_compare_span`)
    futures += [
        pool.submit(_compare_span, base, patch, pairs, span, hashing, detail, turn, heads)
        for span in spans
    ]
    return futures + [
        pool.submit(compare_batch, base, patch, pairs, [index], hashing, detail, early)
        for index in started
    ]


def _compare_span(
    base: ZipArchive,
    patch: ZipArchive,
    pairs: list[EntryPair],
    span: Span,
    hashing: Hashing,
    detail: Detail | None = None,
    turn: AbstractContextManager[object] | None = None,
    heads: SniffChild | None = None,
) -> Finished:
    """A span's pairs: those whose records are equal on both sides are identical (raw bytes),
    the others are proven one by one. `turn` is held while the results are built: two tasks'
    thousands of small inflates (each lets the GIL go) then do not pass the GIL back and forth
    between them, and their reads still overlap."""
    sides = read_span(base, patch, span)
    if sides is None:
        return compare_batch(base, patch, pairs, list(span.indices), hashing, detail)
    base_bytes, patch_bytes = sides
    del sides
    same, differ = equal_records(base, patch, pairs, span, base_bytes, patch_bytes)
    del base_bytes  # only the patch's bytes are sniffed: the other buffer goes now
    with turn or nullcontext():
        finished = _identical(patch, pairs, span, patch_bytes, same, hashing, heads)
    if differ:
        rest = compare_batch(base, patch, pairs, differ, hashing, detail)
        finished.final.extend(rest.final)
        finished.pending.extend(rest.pending)
        finished.runs.extend(rest.runs)
    return finished


def _identical(
    patch: ZipArchive,
    pairs: list[EntryPair],
    span: Span,
    patch_bytes: bytes,
    indices: list[int],
    hashing: Hashing,
    heads: SniffChild | None = None,
) -> Finished:
    """Results of pairs proven identical by their equal records in a span: the kind from the
    path, or sniffed from the span's bytes already read, both for all its pairs at once by C-level
    maps (`kinds_from_paths`, `span_natives`). Nearly every entry of a rebuilt wheel passes here:
    a pair installed with the same mode on both sides, at one path whose RECORD row needs no
    hash, gets no result of its own but joins the span's `IdenticalRun` (its result, built when
    read, is `pair_result(pair, IDENTICAL_RAW, kind)`'s); the others are built by `pair_result`."""
    if not indices:
        return Finished([], [], [])
    chosen = list(map(pairs.__getitem__, indices))
    patch_entries = list(map(_PATCH, chosen))
    names = list(map(_NAME, patch_entries))
    kinds = kinds_from_paths(names)
    if None in kinds:
        silent = list(compress(range(len(kinds)), map(is_, kinds, repeat(None))))
        natives = span_natives(
            patch,
            list(map(patch_entries.__getitem__, silent)),
            memoryview(patch_bytes),
            span.patch_start,
            patch.known_data_offsets(),
            heads.answer() if heads is not None else None,  # the child's, if in by now
        )
        for number, native in zip(silent, natives, strict=True):
            kinds[number] = EntryKind.NATIVE if native else EntryKind.OTHER
    run, others = split_run(
        indices,
        chosen,
        kinds,  # type: ignore[arg-type]  # no None left
        hashing.unchanged,
        patch_entries,
        names,
    )
    final: Results = []
    pending: Results = []
    for number in others:
        kind = kinds[number]
        assert kind is not None
        result = pair_result(chosen[number], IDENTICAL_RAW, kind)
        (final if _is_final(result, hashing) else pending).append((indices[number], result))
    return Finished(final, pending, [run] if run is not None else [])


_NAME = itemgetter(0)
_PATCH = itemgetter(1)
"""`ZipEntry.name` and `EntryPair.patch`, as C-level getters."""


def _is_final(result: EntryResult, hashing: Hashing) -> bool:
    """True when `compare._detail` would hand `result` back as it is: identical content (no
    comparator reads it) whose RECORD row wants no hash."""
    if result.status is not Status.IDENTICAL:
        return False
    path = result.patch_path
    if path is not None and path == result.base_path and path in hashing.unchanged:
        return True
    return wanted_algorithm(result, hashing.records, hashing.policy) is None


def compare_batch(
    base: ZipArchive,
    patch: ZipArchive,
    pairs: list[EntryPair],
    batch: list[int],
    hashing: Hashing,
    detail: Detail | None = None,
    early: EarlyRaw | None = None,
) -> Finished:
    """The pairs of `batch`, each proven on its own (with its raw or content comparison from
    `early` when one was started). With `detail`, the task also details the results a worker may
    (`worker_may_detail`: the changed sources of a patch, beside the other comparisons instead
    of after them on the main thread) and hands them back final."""
    final: Results = []
    pending: Results = []
    if early is None:  # small recompressed pairs proven identical in one loop (`smallpairs`)
        final, batch = smallpairs.identical_small(base, patch, pairs, batch, hashing.unchanged)
    for index in batch:
        pair = pairs[index]
        raw_answer = content_answer = None
        if early is not None:
            raw_answer = early.answer(pair.base, pair.patch)
            content_answer = early.content(pair.base, pair.patch)
        result = _compare_pair(base, patch, pair, hashing, raw_answer, content_answer)
        if _is_final(result, hashing):
            final.append((index, result))
        elif detail is not None and worker_may_detail(result, hashing.comparators):
            final.append((index, detail(index, result)))
        else:
            pending.append((index, result))
    return Finished(final, pending, [])


def _work(pair: EntryPair) -> int:
    """The larger compressed size of the pair's entries (it runs for every pair)."""
    base, patch = pair.base, pair.patch
    if base is None or patch is None:
        one = base if patch is None else patch
        assert one is not None
        return one.compressed_size
    base_size, patch_size = base.compressed_size, patch.compressed_size
    return base_size if base_size > patch_size else patch_size


def _compare_pair(
    base: ZipArchive,
    patch: ZipArchive,
    pair: EntryPair,
    hashing: Hashing,
    raw_answer: RawAnswer | None = None,
    content_answer: RawAnswer | None = None,
) -> EntryResult:
    if pair.base is not None and pair.patch is not None:
        algorithm = content_proof_algorithm(hashing.records, pair.base, pair.patch)
        proof, patch_raw, patch_head = prove_reading(
            base, pair.base, patch, pair.patch, algorithm, raw_answer, content_answer
        )
    elif pair.base is not None:
        proof, patch_raw, patch_head = Proof(Status.MISSING, How.ONE_SIDED), None, None
    else:
        proof, patch_raw, patch_head = Proof(Status.ADDED, How.ONE_SIDED), None, None
    # Identical content has one kind: sniff the patch side only.
    base_entry = None if proof.status is Status.IDENTICAL else pair.base
    differs = proof.status is not Status.IDENTICAL
    kind = entry_kind(base, base_entry, patch, pair.patch, differs, patch_raw, patch_head)
    result = pair_result(pair, proof, kind)
    algorithm = wanted_algorithm(result, hashing.records, hashing.policy)
    if algorithm is None or reads_patch_content(result, hashing.comparators):
        return result  # nothing to hash, or the detail comparator hashes it as it reads
    assert pair.patch is not None
    return with_digest(result, patch, pair.patch, algorithm, hashing.policy)


def with_digest(
    result: EntryResult, archive: ZipArchive, entry: ZipEntry, algorithm: str, policy: Policy
) -> EntryResult:
    """The result with the patch content's hash, or the corruption that reading it found; of
    a native `--allow-native-changes` lets change, with its loader tables kept on the way
    (`nativepaths`: its search paths are judged)."""
    try:
        if policy.allow_native_changes and result.kind is EntryKind.NATIVE:
            from k3diff.wheels.nativeread import digest_and_loader

            digest, loader = digest_and_loader(archive, entry, algorithm)
            return replace(result, patch_digest=digest, loader=loader)
        return replace(result, patch_digest=digest_content(archive, entry, algorithm))
    except CorruptEntryError as exc:
        return replace(result, corrupt=f"{corrupt_side(result, 'patch')}: {exc.problem}")
