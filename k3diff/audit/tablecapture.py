"""The loader tables of an ELF kept on the first read, so a second pass re-reads little or nothing.

`FastTap` keeps an ELF's first `KEPT_PREFIX` bytes and its PT_DYNAMIC segment as the content
streams past for hashing; the dynamic string and version-need tables it also needs often lie
elsewhere, and fetching them was a second pass that inflates the entry again from its start up
to the last table. A library `auditwheel repair` patched (patchelf) has its new `.dynstr` in a
segment appended at the end of the file, after the code: on torch's 906 MB CUDA wheel those
second passes re-inflated 1.6 GB, nearly the whole wheel again, a third of the audit's time.

So three kinds of range are kept as they stream past (`TableCapture`):
- speculatively, from the program headers: the loaded segment that holds PT_DYNAMIC, from its
  start up to the dynamic segment (patchelf puts the new string table there, just before it);
- speculatively, by size: the first `EARLY_BYTES` of a library of `EARLY_MIN_SIZE` or more,
  where the linker puts the symbol, string and version tables, and where a library with that
  many symbols has them past the kept prefix (torch 2.13's libtorch_cpu.so: 5 MB of strings
  from 1.8 MB in, the version-need table at 7.4 MB; its second pass was 19 ms CPU);
- exactly, once the dynamic segment is whole and its tags name the tables' places: every table
  range that still lies ahead.
A second pass then reads only the ranges that lay behind (typically the version-need table, a
few MB in) and stops there. The bytes served are exactly what that pass
(`k3diff.native.sparse.collect`) would return for the same ranges. They come out of one
shared reservation (`CAPTURE_BYTES`; the early stretches have their own, `EARLY_CAPTURE_BYTES`,
so they never take the room of patchelf's tables), so memory stays bounded however many threads
read ELFs; a range that does not fit is left to the second pass.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

CAPTURE_BYTES = 32 << 20
"""Most bytes all taps together keep ahead of a second pass (real tables: a few MB; torch's
CUDA library has the largest seen, an 11 MB string table)."""

SPECULATIVE_BYTES = 16 << 20
"""Longest stretch of a loaded segment kept before its dynamic segment."""

EARLY_MIN_SIZE = 64 << 20
"""Smallest ELF whose start is kept speculatively (below it, a second pass is short)."""

EARLY_BYTES = 16 << 20
"""How much of such an ELF's start is kept."""

EARLY_CAPTURE_BYTES = 16 << 20
"""Most bytes all early stretches together keep (one library at a time, at the default)."""

_lock = threading.Lock()


class _Pool:
    """Bytes held against one cap by every thread's captures. The cap is read at each
    reservation (a module constant, which tests lower)."""

    def __init__(self, cap: Callable[[], int]) -> None:
        self._cap = cap
        self.used = 0

    def reserve(self, amount: int) -> bool:
        with _lock:
            if self.used + amount > self._cap():
                return False
            self.used += amount
            return True

    def release(self, amount: int) -> None:
        with _lock:
            self.used -= amount


_MAIN = _Pool(lambda: CAPTURE_BYTES)
_EARLY = _Pool(lambda: EARLY_CAPTURE_BYTES)


def reserved() -> int:
    """Bytes all captures hold now (tests check that every tap gives its share back)."""
    return _MAIN.used + _EARLY.used


class _Pieces:
    """Content bytes kept in order from one offset: the chunks' slices, not copies of them (a
    whole chunk of bytes is kept as it is; a stretch of 16 MB costs no copy until a table is
    cut from it)."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self._ends: list[int] = []
        self.length = 0

    def append(self, piece: bytes | memoryview) -> None:
        data = piece if isinstance(piece, bytes) else bytes(piece)  # a view's buffer may change
        if data:
            self._pieces.append(data)
            self.length += len(data)
            self._ends.append(self.length)

    def cut(self, start: int, stop: int) -> bytes:
        """Bytes [start, stop) of what is kept (stop at most `length`)."""
        parts = []
        begin = 0
        for piece, end in zip(self._pieces, self._ends, strict=True):
            if end > start and begin < stop:
                parts.append(piece[max(start - begin, 0) : min(stop, end) - begin])
            if end >= stop:
                break
            begin = end
        return b"".join(parts)


class TableCapture:
    """Ranges of one entry's content of `size` bytes, kept as the content streams past."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.wanted: list[tuple[int, int]] | None = None
        """The table ranges named by the dynamic segment (None: not known on the first read)."""
        self._ranges: list[tuple[int, int]] = []
        self._kept: dict[int, _Pieces] = {}
        self._speculative: list[tuple[int, int, bool]] = []
        """(offset, length, early) of each speculative stretch."""
        self._served: dict[int, bytes] = {}
        """Table ranges cut from the speculative stretches."""
        self._held = 0
        self._early_held = 0

    def _keep(self, offset: int, length: int) -> bool:
        amount = max(0, min(length, self.size - offset))
        if offset in self._kept or not _MAIN.reserve(amount):
            return False
        self._held += amount
        self._ranges.append((offset, length))
        self._kept[offset] = _Pieces()
        return True

    def speculate(self, offset: int, length: int) -> None:
        """Keep [offset, offset + length), which lies ahead of the read (see the module)."""
        if 0 < length <= SPECULATIVE_BYTES and self._keep(offset, length):
            self._speculative.append((offset, length, False))

    def speculate_early(self, offset: int) -> None:
        """Keep [offset, `EARLY_BYTES`), the start of a large ELF, from the early stretches'
        own reservation; `offset` is where the read is (at or before the kept prefix's end)."""
        length = EARLY_BYTES - offset
        amount = max(0, min(length, self.size - offset))
        if length <= 0 or offset in self._kept or not _EARLY.reserve(amount):
            return
        self._early_held += amount
        self._ranges.append((offset, length))
        self._kept[offset] = _Pieces()
        self._speculative.append((offset, length, True))

    def feed(self, start: int, chunk: bytes | memoryview) -> None:
        """Content bytes [start, start + len(chunk))."""
        for offset, length in self._ranges:
            self.feed_one(offset, length, start, chunk)

    def plan(self, wanted: list[tuple[int, int]], start: int, chunk: bytes | memoryview) -> None:
        """The dynamic segment became whole in `chunk` (content from `start`): keep the ranges
        of `wanted` that lie in a speculative stretch or still ahead; drop the rest."""
        self.wanted = list(wanted)
        offsets = [offset for offset, _ in wanted]
        speculative, kept = self._speculative, self._kept
        self._ranges, self._kept, self._speculative, self._served = [], {}, [], {}
        _MAIN.release(self._held)
        _EARLY.release(self._early_held)
        self._held = self._early_held = 0
        if len(set(offsets)) != len(offsets):  # `collect` merges ranges at one offset
            self.wanted = None
            return
        for first, _count, early in speculative:
            data = kept[first]
            reserve = _EARLY.reserve if early else _MAIN.reserve
            for offset, length in wanted:
                # Kept in order from `first` on: a range wholly inside what it holds is exactly
                # the content `collect` would return for it.
                if offset in self._served or offset < first:
                    continue
                if offset + length <= first + data.length:
                    piece = data.cut(offset - first, offset - first + length)
                    if reserve(len(piece)):
                        self._served[offset] = piece
                        if early:
                            self._early_held += len(piece)
                        else:
                            self._held += len(piece)
        del kept
        for offset, length in wanted:
            if offset not in self._served and offset >= start and self._keep(offset, length):
                self.feed_one(offset, length, start, chunk)

    def feed_one(self, offset: int, length: int, start: int, chunk: bytes | memoryview) -> None:
        """`feed` for one kept range."""
        low, high = max(start, offset), min(start + len(chunk), offset + length)
        if low < high:
            self._kept[offset].append(chunk[low - start : high - start])

    def split(
        self, wanted: list[tuple[int, int]]
    ) -> tuple[dict[int, bytes], list[tuple[int, int]]]:
        """For the ranges a second pass wants (the content having been read to its end):
        those kept here, as `collect` would return them, and those still to read."""
        if self.wanted is None or wanted != self.wanted:
            return {}, list(wanted)
        kept = {offset: data.cut(0, data.length) for offset, data in self._kept.items()}
        kept.update(self._served)
        return kept, [(offset, length) for offset, length in wanted if offset not in kept]

    def release(self) -> None:
        """Give the kept bytes and their reservation back (idempotent)."""
        if self._held:
            _MAIN.release(self._held)
            self._held = 0
        if self._early_held:
            _EARLY.release(self._early_held)
            self._early_held = 0
        self._ranges, self._kept, self._speculative, self._served = [], {}, [], {}
