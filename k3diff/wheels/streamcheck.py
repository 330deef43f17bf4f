"""The streams of pairs proven identical by their equal compressed bytes, read to their ends.

Equal raw bytes prove two entries identical without inflating either (`proof.How.RAW_BYTES`),
but they say nothing of whether the stream passes its own checks: one whose content fails its
declared CRC-32 or size makes pip refuse the wheel (zipfile raises "Bad CRC-32" while
installing), and then both wheels carry it. The default report (with the whole-file SHA-256)
reads one side of every such pair to its end with its checks, the bytes being the same on both
sides, and counts the streams that passed (`WheelReport.verified_streams`); `--no-file-hash`
keeps the verdict's speed and counts what it did not check (`WheelReport.unverified_streams`).
Every report states its count, down to the verdict line.

All of these reads, and the whole-file SHA-256s, run on one pool of one thread per core
(`reader_pool`), in the order submitted, so that no more run at once than there are cores. The
huge pairs' checks go first: on the CUDA shape one library is most of the work (torch 2.5.1's
libtorch_cuda.so: 562 MB deflated to 900 MB, ≈ 4.4 s of one core), which, started once the
comparison was over beside two hashing and two checking threads, finished last, alone on a
core. `wheels.early` starts them (`EarlyStreams`) as soon as both central directories are read,
for the pairs whose raw bytes it compares early (declared alike in size, CRC-32, method and
compressed size: nearly always raw-identical) above `early.CHECK_BYTES`, largest first; then come the file hashes, then,
after the comparison, every other stream. Nothing is trusted on that ground: `check_streams`
takes a started answer only for a pair it would check itself (`unchecked`), and only for the
same patch entry, and that answer is what the same function (`stream_problem`) gave on that
entry, pass or problem, worded as always. The checks started for pairs that turned out
otherwise are stopped unread (their reading counts once more against the inflate budget, which
allows eight reads of every entry).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from itertools import compress, repeat
from operator import and_, attrgetter

from k3diff.batches import largest_first_sized
from k3diff.errors import CorruptEntryError
from k3diff.progress import Tally
from k3diff.wheels.entryruns import EntryResults
from k3diff.wheels.model import EntryResult
from k3diff.wheels.pairing import EntryPair
from k3diff.wheels.proof import How
from k3diff.zip.archive import CHUNK, ZipArchive
from k3diff.zip.bounds import BOMB_MIN_SIZE, is_bomb
from k3diff.zip.directory import DEFLATED, STORED, ZipEntry

BOTH_SIDES = "both wheels' stream (the same compressed bytes in each)"
"""Who carries the corrupt stream of a pair proven identical by its raw bytes."""

_READ_METHODS = (STORED, DEFLATED)
"""The methods k3diff reads (any other: exit 2 or A114 where its content is needed)."""

_UNREADABLE_FLAGS = 0x1 | 0x40
"""Encrypted (bit 0) or strongly encrypted (bit 6): W603 says so; there is nothing to read."""


def by_raw_bytes(result: EntryResult) -> bool:
    """True when the pair's content was proven identical by equal compressed bytes (identical,
    or changed only in mode without recompression), its stream never inflated by the proof."""
    how = result.how
    return how is How.RAW_BYTES or (how is How.MODE and not result.recompressed)


def corrupt_side(result: EntryResult, side: str) -> str:
    """Who carries a corrupt stream found reading `side`'s entry of `result`'s pair: both
    wheels when the pair's compressed bytes are equal."""
    return BOTH_SIDES if by_raw_bytes(result) else f"the {side} wheel's stream"


EARLY_CHUNK = 4 << 20
"""Content bytes an early check inflates per step (half as many compressed bytes read): it runs
beside the main thread's Python passes, and each step takes the GIL back (after up to the
switch interval, 5 ms, while the main thread holds it) two or three times; 1 MiB steps spent
more time waiting than inflating. Its memory: ≈ 6 MB a check."""


class Interrupted(Exception):
    """A check stopped before its stream's end (`stream_problem`'s `stop`): it says nothing."""


def readable(entry: ZipEntry) -> bool:
    """Whether a stream check reads the entry (`unchecked`'s test of the patch entry, which
    runs it inline): stored or deflated, not encrypted (W603), not a bomb (W612)."""
    return (
        entry.method in _READ_METHODS
        and not entry.flags & _UNREADABLE_FLAGS
        and not (entry.size >= BOMB_MIN_SIZE and is_bomb(entry))
    )


def unchecked(entries: Sequence[EntryResult], pairs: Sequence[EntryPair]) -> list[int]:
    """Indices of the pairs proven identical by raw bytes (`by_raw_bytes`) whose stream nothing
    read to its end since (a RECORD hash reads it with its checks, and says when it is
    corrupt), and that k3diff reads: stored or deflated, not encrypted (W603), not a bomb
    (W612, never inflated). A few attribute reads per result; a raw-identical run's pairs
    (`EntryResults.runs`: raw bytes, nothing hashed or corrupt) by their patch entries alone.
    `--no-file-hash` runs it over every entry of the verdict too (12,000 on torch)."""
    assert len(entries) == len(pairs), "one result per pair, in pair order"
    if not (isinstance(entries, EntryResults) and entries.columnar):
        return _unchecked(enumerate(entries), pairs)
    indices = _unchecked(entries.singles, pairs)
    for run in entries.runs:
        patch_entries = run.patch_entries()
        if all(map(_READ_METHODS.__contains__, map(_METHOD, patch_entries))) and not (
            any(map(and_, map(_FLAGS, patch_entries), repeat(_UNREADABLE_FLAGS)))
            or max(map(_SIZE, patch_entries), default=0) >= BOMB_MIN_SIZE
        ):
            indices += run.indices  # every one readable, decided in C (nearly every run)
        else:
            indices += compress(run.indices, map(readable, patch_entries))
    indices.sort()
    return indices


_METHOD, _FLAGS, _SIZE = attrgetter("method"), attrgetter("flags"), attrgetter("size")
"""`ZipEntry.method`, `.flags` and `.size`."""


def _unchecked(results: Iterable[tuple[int, EntryResult]], pairs: Sequence[EntryPair]) -> list[int]:
    """`unchecked` of (index, result) pairs, one by one."""
    raw, mode = How.RAW_BYTES, How.MODE
    indices = []
    for index, result in results:
        how = result.how
        if how is not raw and (how is not mode or result.recompressed):
            continue  # nearly every entry of a recompressed wheel, or a rebuilt one's changes
        if result.corrupt is not None or result.patch_digest is not None:
            continue
        entry = pairs[index].patch
        if (
            entry is None
            or entry.method not in _READ_METHODS
            or entry.flags & _UNREADABLE_FLAGS
            or (entry.size >= BOMB_MIN_SIZE and is_bomb(entry))
        ):
            continue
        indices.append(index)
    return indices


Problem = str | None
"""Why a stream fails its CRC-32 or size (`stream_problem`), None when it passes."""


@contextmanager
def reader_pool(jobs: int | None) -> Iterator[ThreadPoolExecutor]:
    """The pool of `jobs` threads (default one per core) that reads whole streams and files:
    the early stream checks, the whole-file SHA-256s, then the other stream checks, in that
    order, so that no more reads run at once than there are cores and the largest (the first
    submitted) is never left to finish alone. Threads start only when work is submitted. On an
    error, what has not begun is cancelled."""
    pool = ThreadPoolExecutor(
        max_workers=jobs or os.cpu_count() or 1, thread_name_prefix="k3diff-read"
    )
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


class EarlyStreams:
    """Checks (`stream_problem`) of patch entries' streams submitted to `pool` in the order
    given (largest first), each asked for by entry position. `close` stops those not taken (a running one
    within a chunk) and drops those not begun."""

    def __init__(
        self, patch: ZipArchive, entries: Iterable[ZipEntry], pool: ThreadPoolExecutor
    ) -> None:
        self._started: dict[int, tuple[Future[Problem], threading.Event]] = {}
        self.least_size = 1 << 62
        """The smallest compressed size of an entry started (none: larger than any)."""
        for entry in entries:
            self.least_size = min(self.least_size, entry.compressed_size)
            stop = threading.Event()
            future = pool.submit(stream_problem, patch, entry, stop)
            self._started[entry.position] = (future, stop)

    def __len__(self) -> int:
        return len(self._started)

    def take(self, entry: ZipEntry) -> Future[Problem] | None:
        """The started check of this entry (its answer may still be coming), or None when none
        was started for it; each is taken once."""
        found = self._started.pop(entry.position, None)
        return None if found is None else found[0]

    def close(self) -> None:
        """Stop every check not taken (its answer is never read) and cancel those not begun."""
        for future, stop in self._started.values():
            stop.set()
            future.cancel()
        self._started.clear()


def settle(
    patch: ZipArchive,
    pairs: Sequence[EntryPair],
    entries: Sequence[EntryResult],
    file_hash: bool,
    pool: Executor,
    tally: Tally | None = None,
    early: EarlyStreams | None = None,
) -> tuple[Sequence[EntryResult], int, int]:
    """(entries, unverified, verified). When the whole files are hashed (`file_hash`: the default
    report): `entries` with the streams `unchecked` left checked (`check_streams`, on `pool`,
    taking the answers of the checks `early` started), 0, and
    how many of those streams passed their CRC-32 and size (the others are W604). Else `entries`
    as they are, how many streams went unchecked (`--no-file-hash`: the verdict's budget cannot
    afford the inflate) and 0. Both counts come from the indices already found: nothing per
    entry."""
    indices = unchecked(entries, pairs)
    if not file_hash:
        return entries, len(indices), 0
    checked = check_streams(patch, pairs, entries, indices, pool, tally, early)
    if checked is entries:  # no stream failed
        return checked, 0, len(indices)
    failed = sum(1 for index in indices if checked[index].corrupt is not None)
    return checked, 0, len(indices) - failed


def check_streams(
    patch: ZipArchive,
    pairs: Sequence[EntryPair],
    entries: Sequence[EntryResult],
    indices: list[int],
    pool: Executor,
    tally: Tally | None = None,
    early: EarlyStreams | None = None,
) -> Sequence[EntryResult]:
    """`entries` with every pair of `indices` (`unchecked`) read to its end on the patch side,
    on `pool`, largest first; a stream that fails its CRC-32 or size marks its result
    `corrupt` (W604) as carried by both wheels. One small entry is read whole, a larger one
    streamed in chunks (memory bounded whatever its size); every read counts against the
    archive's inflate budget. A pair whose check `early` started is not read again: its answer
    (the same `stream_problem` of the same entry) is waited for; the checks it started for
    other pairs are stopped unread. `tally` (the run's progress)
    grows by the compressed bytes read and counts each batch once it is checked."""
    if not indices:
        return entries
    sizes = [pairs[index].patch.compressed_size for index in indices]  # type: ignore[union-attr]
    if tally is not None:
        tally.grow(sum(sizes))
    begun: list[tuple[int, Future[str | None]]] = []
    if early is not None and len(early):
        indices, sizes, begun = _split_begun(pairs, indices, sizes, early)
        early.close()  # the checks of pairs not asked about: never read
    batches = largest_first_sized(indices, sizes)
    found = [pool.submit(_check_batch, patch, pairs, batch, tally) for batch in batches]
    problems = _answers(pairs, begun, tally)
    problems += [problem for future in found for problem in future.result()]
    if not problems:
        return entries
    results = list(entries)
    for index, problem in problems:
        results[index] = replace(results[index], corrupt=f"{BOTH_SIDES}: {problem}")
    return tuple(results)


def _split_begun(
    pairs: Sequence[EntryPair], indices: list[int], sizes: list[int], early: EarlyStreams
) -> tuple[list[int], list[int], list[tuple[int, Future[str | None]]]]:
    """(indices, sizes) left to check here, and (index, started check) of those whose check
    `early` started. Only the few pairs as large as the smallest started one are asked about."""
    least = early.least_size
    begun, taken = [], set()
    for k in [k for k, size in enumerate(sizes) if size >= least]:
        future = early.take(pairs[indices[k]].patch)  # type: ignore[arg-type]
        if future is not None:
            begun.append((indices[k], future))
            taken.add(k)
    if not taken:
        return indices, sizes, []
    left = [k for k in range(len(indices)) if k not in taken]
    return [indices[k] for k in left], [sizes[k] for k in left], begun


def _answers(
    pairs: Sequence[EntryPair], begun: list[tuple[int, Future[str | None]]], tally: Tally | None
) -> list[tuple[int, str]]:
    """(index, problem) of the started checks that found one, each waited for."""
    problems = []
    for index, future in begun:
        problem = future.result()
        if problem is not None:
            problems.append((index, problem))
        if tally is not None:
            tally.add(pairs[index].patch.compressed_size)  # type: ignore[union-attr]
    return problems


def _check_batch(
    patch: ZipArchive, pairs: Sequence[EntryPair], batch: list[int], tally: Tally | None
) -> list[tuple[int, str]]:
    """(index, problem) of every pair of `batch` whose patch stream fails its own checks."""
    problems = []
    read = 0
    for index in batch:
        entry = pairs[index].patch
        assert entry is not None
        problem = stream_problem(patch, entry)
        if problem is not None:
            problems.append((index, problem))
        read += entry.compressed_size
    if tally is not None:
        tally.add(read)
    return problems


def stream_problem(
    archive: ZipArchive, entry: ZipEntry, stop: threading.Event | None = None
) -> str | None:
    """Why the entry's stream fails its declared CRC-32 or size, or None when it passes: a small
    entry inflated whole in one step (its CRC-32 computed while inflating), any other, or one
    that step cannot settle, streamed to its end through `content_chunks`, which words the
    problem as every other report of a corrupt stream does. Given `stop` (an early check), the
    stream is read in steps of `EARLY_CHUNK`, and once `stop` is set (a run ending on an error,
    a pair that needs no check) it raises `Interrupted` at its next step."""
    if entry.size <= CHUNK:
        read = archive.small_content_crc(entry)
        if read is not None and read[1] == entry.crc32:
            return None
    try:
        for _ in archive.content_chunks(entry, CHUNK if stop is None else EARLY_CHUNK):
            if stop is not None and stop.is_set():
                raise Interrupted(entry.name)
    except CorruptEntryError as exc:
        return exc.problem
    return None
