"""Hash many byte ranges of a file in one sequential read.

Native entries can be 750 MB, so nothing here holds more than one chunk: the file is read once,
front to back, and each chunk is fed to the whole-file hash and to every range it overlaps. Ranges
may overlap one another; several ranges may share a key, and then feed one hash in file order
(how the padding between sections is hashed as a single region).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import xxhash

CHUNK_SIZE = 1 << 20
"""Bytes read at a time: large enough for throughput, small enough for the memory budget."""

K = TypeVar("K", bound=Hashable)


class SeekableReader(Protocol):
    """What the hashing pass needs from a file: an unbuffered `open(path, "rb", buffering=0)`."""

    def seek(self, offset: int, whence: int = 0, /) -> int: ...

    def readinto(self, buffer: bytearray, /) -> int | None: ...


@dataclass(frozen=True)
class ByteRange(Generic[K]):
    """Bytes [start, end) of the file, hashed under `key`."""

    key: K
    """Which hash the bytes feed."""
    start: int
    """First byte offset."""
    end: int
    """One past the last byte offset."""


@dataclass(frozen=True)
class RangeDigests(Generic[K]):
    """What one pass over a file produced."""

    whole: str
    """xxh3-128 hex digest of the entire file."""
    ranges: dict[K, str]
    """Digest per range key (every key passed in, empty ranges included)."""


def hash_ranges(stream: SeekableReader, ranges: Iterable[ByteRange[K]]) -> RangeDigests[K]:
    """Read `stream` from offset 0 to its end once; hash the whole and each range."""
    pending = sorted(ranges, key=lambda r: r.start, reverse=True)
    hashers = {r.key: xxhash.xxh3_128() for r in pending}
    whole = xxhash.xxh3_128()
    active: list[ByteRange[K]] = []
    buffer = bytearray(CHUNK_SIZE)
    view = memoryview(buffer)
    position = 0
    stream.seek(0)
    while count := stream.readinto(buffer):
        chunk_end = position + count
        whole.update(view[:count])
        while pending and pending[-1].start < chunk_end:
            active.append(pending.pop())
        for item in active:
            low, high = max(item.start, position), min(item.end, chunk_end)
            if low < high:
                hashers[item.key].update(view[low - position : high - position])
        active = [item for item in active if item.end > chunk_end]
        position = chunk_end
    return RangeDigests(whole.hexdigest(), {key: h.hexdigest() for key, h in hashers.items()})


def complement(covered: Iterable[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """The parts of [0, size) that no (start, end) range covers, in order."""
    gaps: list[tuple[int, int]] = []
    cursor = 0
    for start, end in sorted(covered):
        if start > cursor:
            gaps.append((cursor, min(start, size)))
        cursor = max(cursor, end)
    if cursor < size:
        gaps.append((cursor, size))
    return [(start, end) for start, end in gaps if start < end]
