"""How `audit` cuts its reading into pool tasks: every entry of every wheel but empty
directories, largest first (a huge library must not finish last), small ones batched as
`k3diff.batches.largest_first_batches` batches them (the same batches, in the same order:
tests/audit/test_schedule.py), with the per-entry work done by C-level sorts and keys (on the
torch CPU wheel's 12,000 entries the generic function's Python keys cost ≈ 5 ms)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TypeVar

from k3diff.audit.record import is_empty_directory
from k3diff.batches import BATCH_BYTES, BATCH_ITEMS, ITEM_COST
from k3diff.zip.archive import CHUNK
from k3diff.zip.directory import ZipEntry

W = TypeVar("W")

_COMPRESSED_SIZE = operator.attrgetter("compressed_size")


def to_verify(entries: Sequence[ZipEntry]) -> list[ZipEntry]:
    """The entries verification reads: all but empty directories."""
    return [e for e in entries if e.name[-1:] != "/" or not is_empty_directory(e)]


def largest_first(entries: Sequence[ZipEntry]) -> list[list[ZipEntry]]:
    """`largest_first_batches(entries, size=compressed_size)`: sorted largest first (stable),
    cut before an entry once a batch holds `BATCH_ITEMS` entries or `BATCH_BYTES` of compressed
    bytes and `ITEM_COST` per entry."""
    ordered = sorted(entries, key=_COMPRESSED_SIZE, reverse=True)  # reverse keeps it stable
    batches: list[list[ZipEntry]] = []
    start = volume = 0
    for index, size in enumerate(map(_COMPRESSED_SIZE, ordered)):
        if index > start and (volume >= BATCH_BYTES or index - start >= BATCH_ITEMS):
            batches.append(ordered[start:index])
            start, volume = index, 0
        volume += size + ITEM_COST
    if ordered:
        batches.append(ordered[start:])
    return batches


def batches(
    work: Sequence[tuple[W, Sequence[ZipEntry]]],
) -> tuple[list[tuple[W, list[ZipEntry]]], list[tuple[W, list[ZipEntry]]]]:
    """Batches over the entries of every (wheel, entries) pair, a batch holding entries of one
    wheel: each wheel's batches, then all of them by their largest entry (stable: one wheel's
    stay in order); split into those with an entry streamed in several chunks and those of
    small entries only."""
    cut = [(wheel, batch) for wheel, entries in work for batch in largest_first(entries)]
    cut.sort(key=lambda item: -item[1][0].compressed_size)
    split = next((i for i, (_, b) in enumerate(cut) if b[0].compressed_size <= CHUNK), len(cut))
    return cut[:split], cut[split:]
