"""The loader's demands of an ELF read with `struct`, for `audit`'s tap: the same answer as
`k3diff.native.platform` (pyelftools), at a fraction of the cost.

pyelftools builds its struct tables for every file and parses each dynamic tag through
`construct`: on the torch CPU wheel (136 ELFs) that was a fifth of the audit's CPU time. `FastTap`
keeps the very regions `ElfTap` keeps (the first `KEPT_PREFIX` bytes, the PT_DYNAMIC segment)
and replays `_read`'s reads in pyelftools' order over them, with `Sparse`'s semantics (a short
read at a region's end, the section-table fields read as zero). It answers only when every read
is one pyelftools would make and succeed on; the first read outside the regions leads to the same
second pass `ElfTap` makes (the string and version-need tables, collected from a re-read). Any
other turn, or a second miss, hands the entry to `ElfTap` itself over a re-read of the content, so
every unusual ELF gets the exact old answer and message. Solaris tag sets are not modelled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from k3diff.audit.elfread import (
    DT_NULL,
    DT_STRSZ,
    DT_STRTAB,
    DT_VERNEED,
    PT_LOAD,
    STRING_TAGS,
    Layout,
    Miss,
    Regions,
    Unsure,
    dynamic_of,
    read_needs,
)
from k3diff.audit.tablecapture import EARLY_MIN_SIZE, TableCapture
from k3diff.native import platform as native
from k3diff.native.platform import KEPT_PREFIX, ElfTap, PlatformNeeds
from k3diff.native.sparse import collect
from k3diff.native.tablestrings import PastCap, past_cap


def _capture_for(
    prefix: bytes, dynamic: tuple[int, int], start: int, size: int
) -> TableCapture | None:
    """A `TableCapture` for an ELF whose dynamic segment is (offset, length), keeping the
    stretch of its loaded segment before it when that lies ahead (at or after `start`, the
    chunk being read) and past the kept prefix, and a large ELF's start (`tablecapture`)."""
    if dynamic[1] <= 0 or size <= KEPT_PREFIX:
        return None  # the kept prefix holds all there is: nothing lies ahead of it
    capture = TableCapture(size)
    if size >= EARLY_MIN_SIZE and start < KEPT_PREFIX:
        capture.speculate_early(start)
    view = Regions({0: prefix}, size)
    try:
        layout = Layout(view.exact(0, 64))
        for index in range(layout.phnum):
            kind, offset, _vaddr, filesz = layout.segment(view, index)
            inside = offset <= dynamic[0] < offset + filesz
            if kind == PT_LOAD and inside and offset >= max(start, KEPT_PREFIX):
                capture.speculate(offset, dynamic[0] - offset)
                break
    except (Miss, Unsure):
        pass
    return capture


class FastTap:
    """`ElfTap` of `k3diff.native.platform`, answered by `read_needs`: fed an entry's content in
    order, it keeps the same regions (without copying anything of an entry that is not an ELF)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._prefix: bytearray | bytes = bytearray()
        """The kept prefix so far; the first chunk itself when it holds all of it."""
        self._position = 0
        self._dynamic: tuple[int, int] | None = None
        self._dynamic_bytes = bytearray()
        self._elf: bool | None = None
        self._unsure = False
        """The header is one `read_needs` does not model: `ElfTap` answers."""
        self._capture: TableCapture | None = None
        self._frozen: bytes | None = None
        """`_prefix_bytes`' copy."""
        self._whole: bytes | None = None
        """The whole content, when `feed_whole` gave it: the kept prefix, not copied."""
        """The string and version tables that lay ahead once the dynamic segment was whole."""

    def feed(self, chunk: bytes | memoryview) -> None:
        """The next chunk of content."""
        start, self._position = self._position, self._position + len(chunk)
        if self._elf is False or self._unsure:
            return
        if self._elf is None:
            head = bytes(self._prefix[:4]) + bytes(chunk[: 4 - len(self._prefix)])
            if len(head) >= 4:
                self._elf = head == b"\x7fELF"
                if not self._elf:
                    self._prefix = bytearray()
                    return
        kept = len(self._prefix)
        if kept < KEPT_PREFIX:
            piece = chunk[: KEPT_PREFIX - kept]
            if not kept and len(piece) == KEPT_PREFIX and isinstance(piece, bytes):
                self._prefix = piece  # all of it in the first chunk: kept as it is, not copied
            else:
                self._prefix += piece
        if self._dynamic is None and len(self._prefix) >= 4096:
            prefix = self._prefix_bytes()
            self._dynamic = dynamic_of(prefix, self.size)
            if self._dynamic is None:
                self._unsure = True
                return
            self._capture = _capture_for(prefix, self._dynamic, start, self.size)
        if self._dynamic is not None and self._dynamic[1] > 0:
            offset, length = self._dynamic
            low, high = max(start, offset), min(self._position, offset + length)
            if low < high:
                self._dynamic_bytes += chunk[low - start : high - start]
            capture = self._capture
            if capture is not None and capture.wanted is None:
                capture.feed(start, chunk)
                if high == offset + length and low < high:  # the dynamic segment is whole now
                    self._plan_capture(capture, start, chunk)
            elif capture is not None:
                capture.feed(start, chunk)

    def feed_whole(self, content: bytes) -> None:
        """`feed` of the whole content in one piece (an entry read in one step), keeping the
        same regions without copying the prefix: it is `content` itself. Anything else (content
        already fed, a size other than declared, more than `KEPT_PREFIX`) is plain `feed`."""
        if self._position or len(content) != self.size or self.size > KEPT_PREFIX:
            self.feed(content)
            return
        self._position = self.size
        self._elf = content[:4] == b"\x7fELF"
        if not self._elf or self._unsure:
            return
        self._whole = content
        if self.size < 4096:
            return  # as `feed`: the dynamic segment is found when the needs are asked
        self._dynamic = dynamic_of(content, self.size)
        if self._dynamic is None:
            self._unsure = True
            return
        # No capture: the kept prefix holds all there is (`_capture_for`).
        offset, length = self._dynamic
        if length > 0:
            self._dynamic_bytes += content[offset : offset + length]

    def _plan_capture(self, capture: TableCapture, start: int, chunk: bytes | memoryview) -> None:
        """`tablecapture`: keep the tables the second pass would fetch that still lie ahead."""
        if self._dynamic is None or len(self._dynamic_bytes) != self._dynamic[1]:
            capture.release()
            return
        regions = {0: self._prefix_bytes(), self._dynamic[0]: bytes(self._dynamic_bytes)}
        try:
            wanted = self._table_ranges(regions)
        except Exception:  # the second pass meets the same turn and says it its own way
            capture.release()
            return
        capture.plan(wanted, start, chunk)

    def _prefix_bytes(self) -> bytes:
        """The kept prefix as bytes, copied once for each length it reaches."""
        if self._whole is not None:
            return self._whole
        if isinstance(self._prefix, bytes):
            return self._prefix
        if self._frozen is None or len(self._frozen) != len(self._prefix):
            self._frozen = bytes(self._prefix)
        return self._frozen

    def release(self) -> None:
        """Drop the tables kept ahead of a second pass (done with this entry)."""
        if self._capture is not None:
            self._capture.release()
            self._capture = None

    @property
    def is_elf(self) -> bool:
        """The content starts with the ELF magic."""
        return bool(self._elf)

    @property
    def head(self) -> bytes:
        """The first 20 bytes kept (the ELF identity and `e_machine`; fewer when not an ELF)."""
        if self._whole is not None:
            return self._whole[:20]
        return bytes(self._prefix[:20])

    @property
    def not_elf(self) -> bool:
        """The content read so far (four bytes or more) does not start with the ELF magic."""
        return self._elf is False

    def needs(self, reread: Callable[[], Iterator[bytes]]) -> PlatformNeeds:
        """`ElfTap.needs`: the loader's demands; PlatformUnknown when they cannot be read."""
        try:
            return self._needs(reread)
        finally:
            self.release()

    def _needs(self, reread: Callable[[], Iterator[bytes]]) -> PlatformNeeds:
        if self._dynamic is None and self._elf and not self._unsure:
            self._dynamic = dynamic_of(self._prefix_bytes(), self.size)
        if self._unsure or self._dynamic is None:
            return self._fallback(reread)
        regions = {0: self._prefix_bytes()}
        if self._dynamic_bytes:
            regions[self._dynamic[0]] = bytes(self._dynamic_bytes)
        try:
            return read_needs(Regions(regions, self.size))
        except Unsure:
            return self._fallback(reread)
        except Miss:
            pass  # the tables lie past the kept regions: the second pass `ElfTap` makes
        try:
            wanted = self._table_ranges(regions)
            kept: dict[int, bytes] = {}
            if self._capture is not None and self._position == self.size:
                kept, wanted = self._capture.split(wanted)
            if wanted:
                with native._SECOND_PASS:  # one second pass at a time, ElfTap's and this one's
                    kept.update(collect(reread(), wanted))
            regions.update(kept)
            return read_needs(Regions(regions, self.size))
        except Exception:  # `ElfTap` meets the same turn and says it its own way
            return self._fallback(reread)

    def _table_ranges(self, regions: dict[int, bytes]) -> list[tuple[int, int]]:
        """`ElfTap._table_ranges`."""
        if not self._dynamic or not self._dynamic_bytes:
            raise Unsure
        view = Regions(regions, self.size)
        layout = Layout(view.exact(0, 64))
        values: dict[int, int] = {}
        strings: list[int] = []
        step = layout.dyn.size
        raw = bytes(self._dynamic_bytes)
        for at in range(0, len(raw) - step + 1, step):
            tag, value = layout.dyn.unpack_from(raw, at)
            if tag == DT_NULL:
                break
            values[tag] = value  # the loader's: the last
            if tag in STRING_TAGS:
                strings.append(value)
        ranges = []
        past = PastCap((), "")
        for address_tag, size in ((DT_STRTAB, values.get(DT_STRSZ, 0)), (DT_VERNEED, 64 << 10)):
            if address_tag in values:
                offset = layout.file_offset(view, values[address_tag])
                if offset is not None:
                    ranges.append((offset, min(size, native.PREFIX_CAP)))
                if offset is not None and address_tag == DT_STRTAB:
                    past = past_cap(offset, size, strings, native.PREFIX_CAP)
        return past.after(ranges)

    def _fallback(self, reread: Callable[[], Iterator[bytes]]) -> PlatformNeeds:
        """`ElfTap` over a re-read of the content: the exact old answer, or its PlatformUnknown."""
        tap = ElfTap(self.size)
        for chunk in reread():
            tap.feed(chunk)
        return tap.needs(reread)
