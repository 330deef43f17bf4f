"""How much work one archive may cost: compression bombs and the inflate budget.

An entry that declares a bomb's ratio (W612) is never inflated, nor is one whose data runs into
another record (W611, `ZipArchive.data_offset`); whatever else is read, an archive produces at
most `INFLATE_BUDGET_FACTOR` times the content its non-overlapping entries declare.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from itertools import compress, repeat
from operator import add, itemgetter, le, lt

from k3diff.zip.directory import LOCAL_HEADER, ZipEntry
from k3diff.zip.localheaders import HEADER_OFFSET

BOMB_RATIO = 1000
"""Declared inflated/compressed ratio from which an entry is treated as a compression bomb.
Deflate cannot exceed about 1032:1, so only maximally repetitive content comes near it."""

BOMB_MIN_SIZE = 64 << 20
"""Declared sizes below this are never called bombs, whatever their ratio."""

INFLATE_BUDGET_FACTOR = 8
"""Content bytes one archive may produce in all, as a multiple of the sizes its directory
declares for entries that do not overlap (plus `INFLATE_BUDGET_SLACK`): comparing, diffing and
hashing read an entry a few times at most, and an overlapping ("quine") bomb, whose entries
declare and share the same compressed bytes, is never inflated at all."""

INFLATE_BUDGET_SLACK = 64 << 20
"""Bytes added to every archive's inflate budget."""


_POSITION = itemgetter(1)
_COMPRESSED_SIZE = itemgetter(5)
_SIZE = itemgetter(6)
_OFFSET = itemgetter(7)


def is_bomb(entry: ZipEntry) -> bool:
    """Declares at least `BOMB_MIN_SIZE` bytes at over `BOMB_RATIO`:1 (W612): never inflated,
    the finding fails the run anyway and inflating it would cost up to a thousand times the
    bytes it occupies."""
    return entry.size >= BOMB_MIN_SIZE and entry.size > BOMB_RATIO * max(entry.compressed_size, 1)


class InflateBudget:
    """Content bytes an archive may still produce, shared by every thread reading it.

    `limit` may be a function that reckons it, given with a `floor` it is known not to be
    below: it is then called once, only when more than `floor` bytes were spent. An archive's
    budget (`deferred`) is never below `INFLATE_BUDGET_SLACK`; a verdict on a patch that kept
    its compressed bytes inflates a few metadata files and the changed sources, far less, so it
    never sums the sizes the directory declares (≈ 1.3 ms of the main thread a 12,000-entry
    wheel, before anything else could run)."""

    def __init__(self, limit: int | Callable[[], int], floor: int = 0) -> None:
        self._limit = limit
        self._floor = floor
        self._spent = 0
        self._lock = threading.Lock()

    @classmethod
    def deferred(
        cls, entries: Sequence[ZipEntry], ends: Callable[[], dict[int, int]]
    ) -> InflateBudget:
        """`for_ends(entries, ends())`, reckoned only once more than `INFLATE_BUDGET_SLACK`
        bytes were spent."""
        return cls(lambda: cls.for_ends(entries, ends()).limit, INFLATE_BUDGET_SLACK)

    @property
    def limit(self) -> int:
        """Content bytes the archive may produce in all."""
        with self._lock:
            return self._reckoned()

    def _reckoned(self) -> int:
        """The limit, reckoned now if it was deferred (the lock held)."""
        if not isinstance(self._limit, int):
            self._limit = self._limit()
        return self._limit

    @classmethod
    def for_entries(
        cls, entries: Sequence[ZipEntry], record_end: Callable[[ZipEntry], int | None]
    ) -> InflateBudget:
        """The budget of an archive: its non-overlapping entries' declared sizes, scaled."""
        declared = sum(
            entry.size
            for entry in entries
            if (end := record_end(entry)) is not None
            and entry.header_offset + LOCAL_HEADER.size + entry.compressed_size <= end
        )
        return cls(INFLATE_BUDGET_FACTOR * declared + INFLATE_BUDGET_SLACK)

    @classmethod
    def for_ends(cls, entries: Sequence[ZipEntry], ends: dict[int, int]) -> InflateBudget:
        """`for_entries`, given every entry's record end by position (`record_ends`): judged
        in C-level maps when every entry has one."""
        if len(ends) != len(entries):
            return cls.for_entries(entries, lambda entry: ends.get(entry.position))
        starts = map(add, map(_OFFSET, entries), repeat(LOCAL_HEADER.size))
        data_ends = map(add, starts, map(_COMPRESSED_SIZE, entries))
        fits = map(le, data_ends, map(ends.__getitem__, map(_POSITION, entries)))
        declared = sum(compress(map(_SIZE, entries), fits))
        return cls(INFLATE_BUDGET_FACTOR * declared + INFLATE_BUDGET_SLACK)

    def spend(self, produced: int) -> bool:
        """Count `produced` bytes; False once the budget is spent."""
        with self._lock:
            self._spent += produced
            return self._spent <= self._floor or self._spent <= self._reckoned()

    def describe(self) -> str:
        """The budget, said as a cap."""
        return (
            f"the archive's inflate budget of {self.limit:,} bytes ({INFLATE_BUDGET_FACTOR}x the "
            "sizes its directory declares) is spent"
        )


_ENTRY_POSITION = itemgetter(1)
"""`ZipEntry.position`, as a C-level key."""
_COMPRESSED_SIZE = itemgetter(5)
"""`ZipEntry.compressed_size`, as a C-level key."""


def record_ends(starts: Sequence[ZipEntry], directory_offset: int) -> dict[int, int]:
    """Where each entry's local record (header, data, descriptor) ends, by position: the next
    record's offset, or the central directory's. `starts`: the entries in header-offset order.
    An entry that shares its offset with another has none."""
    if not starts:  # an empty archive (only its end record): no record ends anywhere
        return {}
    offsets = list(map(HEADER_OFFSET, starts))
    nexts = [*offsets[1:], directory_offset]
    if all(map(lt, offsets, nexts)):  # no two records share an offset
        return dict(zip(map(_ENTRY_POSITION, starts), nexts, strict=True))
    ends: dict[int, int] = {}
    for current, following in zip(starts, [*starts[1:], None], strict=True):
        end = directory_offset if following is None else following.header_offset
        if end > current.header_offset:
            ends[current.position] = end
    return ends


def readable_offsets(
    found: dict[int, int], entries: Sequence[ZipEntry], ends: dict[int, int], file_size: int
) -> dict[int, int]:
    """The data offsets of `found` (by position, as read from local headers) whose data ends
    inside the file and inside its own record (`ends`: `record_ends`); the others are left for
    `ZipArchive.data_offset` to say what is wrong."""
    positions, offsets = list(found), list(found.values())
    data_ends = list(map(add, offsets, map(_COMPRESSED_SIZE, map(entries.__getitem__, positions))))
    if (
        len(ends) == len(entries)  # every entry has its record's end
        and max(data_ends, default=0) <= file_size
        and all(map(le, data_ends, map(ends.__getitem__, positions)))
    ):  # nearly every archive: each entry's data ends at its record's end or before
        return found
    return {
        position: offset
        for position, offset, data_end in zip(positions, offsets, data_ends, strict=True)
        if data_end <= file_size and (end := ends.get(position)) is not None and data_end <= end
    }
