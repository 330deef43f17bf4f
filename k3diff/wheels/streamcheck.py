"""The streams of pairs proven identical by their equal compressed bytes, read to their ends.

Equal raw bytes prove two entries identical without inflating either (`proof.How.RAW_BYTES`),
but they say nothing of whether the stream passes its own checks: one whose content fails its
declared CRC-32 or size makes pip refuse the wheel (zipfile raises "Bad CRC-32" while
installing), and then both wheels carry it. The default report (with the whole-file SHA-256)
reads one side of every such pair to its end with its checks, the bytes being the same on both
sides, and counts the streams that passed (`WheelReport.verified_streams`); `--no-file-hash`
keeps the verdict's speed and counts what it did not check (`WheelReport.unverified_streams`).
Every report states its count, down to the verdict line.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from k3diff.batches import largest_first_sized
from k3diff.errors import CorruptEntryError
from k3diff.progress import Tally
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


def unchecked(entries: Sequence[EntryResult], pairs: Sequence[EntryPair]) -> list[int]:
    """Indices of the pairs proven identical by raw bytes (`by_raw_bytes`) whose stream nothing
    read to its end since (a RECORD hash reads it with its checks, and says when it is
    corrupt), and that k3diff reads: stored or deflated, not encrypted (W603), not a bomb
    (W612, never inflated). One pass in a few attribute reads per entry: `--no-file-hash` runs
    it over every entry of the verdict too (12,000 on torch)."""
    assert len(entries) == len(pairs), "one result per pair, in pair order"
    raw, mode = How.RAW_BYTES, How.MODE
    indices = []
    for index, result in enumerate(entries):
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


def settle(
    patch: ZipArchive,
    pairs: Sequence[EntryPair],
    entries: tuple[EntryResult, ...],
    file_hash: bool,
    jobs: int | None,
    tally: Tally | None = None,
) -> tuple[tuple[EntryResult, ...], int, int]:
    """(entries, unverified, verified). When the whole files are hashed (`file_hash`: the default
    report): `entries` with the streams `unchecked` left checked (`check_streams`, on `jobs`
    threads, default one per core), 0, and how many of those streams passed their CRC-32 and
    size (the others are W604). Else `entries` as they are, how many streams went unchecked
    (`--no-file-hash`: the verdict's budget cannot afford the inflate) and 0. Both counts come
    from the indices already found: nothing per entry."""
    indices = unchecked(entries, pairs)
    if not file_hash:
        return entries, len(indices), 0
    jobs = jobs or os.cpu_count() or 1
    checked = check_streams(patch, pairs, entries, indices, jobs, tally)
    if checked is entries:  # no stream failed
        return checked, 0, len(indices)
    failed = sum(1 for index in indices if checked[index].corrupt is not None)
    return checked, 0, len(indices) - failed


def check_streams(
    patch: ZipArchive,
    pairs: Sequence[EntryPair],
    entries: tuple[EntryResult, ...],
    indices: list[int],
    jobs: int,
    tally: Tally | None = None,
) -> tuple[EntryResult, ...]:
    """`entries` with every pair of `indices` (`unchecked`) read to its end on the patch side,
    on `jobs` threads, largest first; a stream that fails its CRC-32 or size marks its result
    `corrupt` (W604) as carried by both wheels. One small entry is read whole, a larger one
    streamed in chunks (memory bounded whatever its size); every read counts against the
    archive's inflate budget. `tally` (the run's progress) grows by the compressed bytes read
    and counts each batch once it is checked."""
    if not indices:
        return entries
    sizes = [pairs[index].patch.compressed_size for index in indices]  # type: ignore[union-attr]
    batches = largest_first_sized(indices, sizes)
    if tally is not None:
        tally.grow(sum(sizes))
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="k3diff-crc") as pool:
        found = [pool.submit(_check_batch, patch, pairs, batch, tally) for batch in batches]
        problems = [problem for future in found for problem in future.result()]
    if not problems:
        return entries
    results = list(entries)
    for index, problem in problems:
        results[index] = replace(results[index], corrupt=f"{BOTH_SIDES}: {problem}")
    return tuple(results)


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


def stream_problem(archive: ZipArchive, entry: ZipEntry) -> str | None:
    """Why the entry's stream fails its declared CRC-32 or size, or None when it passes: a small
    entry inflated whole in one step (its CRC-32 computed while inflating), any other, or one
    that step cannot settle, streamed to its end through `content_chunks`, which words the
    problem as every other report of a corrupt stream does."""
    if entry.size <= CHUNK:
        read = archive.small_content_crc(entry)
        if read is not None and read[1] == entry.crc32:
            return None
    try:
        for _ in archive.content_chunks(entry):
            pass
    except CorruptEntryError as exc:
        return exc.problem
    return None
