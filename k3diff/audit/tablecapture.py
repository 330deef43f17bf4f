"""The loader tables of an ELF kept on the first read, so a second pass re-reads little or nothing.

`FastTap` keeps an ELF's first `KEPT_PREFIX` bytes and its PT_DYNAMIC segment as the content
streams past for hashing; the dynamic string and version-need tables it also needs often lie
elsewhere, and fetching them was a second pass that inflates the entry again from its start up
to the last table. A library `auditwheel repair` patched (patchelf) has its new `.dynstr` in a
segment appended at the end of the file, after the code: on torch's 906 MB CUDA wheel those
second passes re-inflated 1.6 GB, nearly the whole wheel again, a third of the audit's time.

So two kinds of range are kept as they stream past (`TableCapture`):
- speculatively, from the program headers: the loaded segment that holds PT_DYNAMIC, from its
  start up to the dynamic segment (patchelf puts the new string table there, just before it);
- exactly, once the dynamic segment is whole and its tags name the tables' places: every table
  range that still lies ahead.
A second pass then reads only the ranges that lay behind (typically the version-need table, a
few MB in) and stops there. The bytes served are exactly what that pass
(`k3diff.native.platform._collect`) would return for the same ranges. They come out of one
shared reservation (`CAPTURE_BYTES`), so memory stays bounded however many threads read ELFs;
a range that does not fit is left to the second pass.
"""

from __future__ import annotations

import threading

CAPTURE_BYTES = 32 << 20
"""Most bytes all taps together keep ahead of a second pass (real tables: a few MB; torch's
CUDA library has the largest seen, an 11 MB string table)."""

SPECULATIVE_BYTES = 16 << 20
"""Longest stretch of a loaded segment kept before its dynamic segment."""

_lock = threading.Lock()
_reserved = 0


def _reserve(amount: int) -> bool:
    global _reserved
    with _lock:
        if _reserved + amount > CAPTURE_BYTES:
            return False
        _reserved += amount
        return True


def _release(amount: int) -> None:
    global _reserved
    with _lock:
        _reserved -= amount


def reserved() -> int:
    """Bytes all captures hold now (tests check that every tap gives its share back)."""
    return _reserved


class TableCapture:
    """Ranges of one entry's content of `size` bytes, kept as the content streams past."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.wanted: list[tuple[int, int]] | None = None
        """The table ranges named by the dynamic segment (None: not known on the first read)."""
        self._ranges: list[tuple[int, int]] = []
        self._kept: dict[int, bytearray] = {}
        self._speculative: tuple[int, int] | None = None
        self._served: dict[int, bytes] = {}
        """Table ranges cut from the speculative stretch."""
        self._held = 0

    def _keep(self, offset: int, length: int) -> bool:
        amount = max(0, min(length, self.size - offset))
        if offset in self._kept or not _reserve(amount):
            return False
        self._held += amount
        self._ranges.append((offset, length))
        self._kept[offset] = bytearray()
        return True

    def speculate(self, offset: int, length: int) -> None:
        """Keep [offset, offset + length), which lies ahead of the read (see the module)."""
        if 0 < length <= SPECULATIVE_BYTES and self._keep(offset, length):
            self._speculative = (offset, length)

    def feed(self, start: int, chunk: bytes | memoryview) -> None:
        """Content bytes [start, start + len(chunk))."""
        for offset, length in self._ranges:
            self.feed_one(offset, length, start, chunk)

    def plan(self, wanted: list[tuple[int, int]], start: int, chunk: bytes | memoryview) -> None:
        """The dynamic segment became whole in `chunk` (content from `start`): keep the ranges
        of `wanted` that lie in the speculative range or still ahead; drop the rest."""
        self.wanted = list(wanted)
        offsets = [offset for offset, _ in wanted]
        speculative, kept = self._speculative, self._kept
        self._ranges, self._kept, self._speculative, self._served = [], {}, None, {}
        _release(self._held)
        self._held = 0
        if len(set(offsets)) != len(offsets):  # `_collect` merges ranges at one offset
            self.wanted = None
            return
        if speculative is not None:
            first, count = speculative
            data = kept[first]
            for offset, length in wanted:
                # the stretch lies before the dynamic segment, which is whole: it is complete
                if first <= offset and offset + length <= first + len(data) == first + count:
                    piece = bytes(data[offset - first : offset - first + length])
                    if _reserve(len(piece)):
                        self._served[offset] = piece
                        self._held += len(piece)
        del kept
        for offset, length in wanted:
            if offset not in self._served and offset >= start and self._keep(offset, length):
                self.feed_one(offset, length, start, chunk)

    def feed_one(self, offset: int, length: int, start: int, chunk: bytes | memoryview) -> None:
        """`feed` for one kept range."""
        low, high = max(start, offset), min(start + len(chunk), offset + length)
        if low < high:
            self._kept[offset] += chunk[low - start : high - start]

    def split(
        self, wanted: list[tuple[int, int]]
    ) -> tuple[dict[int, bytes], list[tuple[int, int]]]:
        """For the ranges a second pass wants (the content having been read to its end):
        those kept here, as `_collect` would return them, and those still to read."""
        if self.wanted is None or wanted != self.wanted:
            return {}, list(wanted)
        kept = {offset: bytes(data) for offset, data in self._kept.items()}
        kept.update(self._served)
        return kept, [(offset, length) for offset, length in wanted if offset not in kept]

    def release(self) -> None:
        """Give the kept bytes and their reservation back (idempotent)."""
        if self._held:
            _release(self._held)
            self._held = 0
        self._ranges, self._kept, self._speculative, self._served = [], {}, None, {}
