"""The loader's demands of an ELF read with `struct`, for `audit`'s tap: the same answer as
`k3diff.native.platform` (pyelftools), at a fraction of the cost.

pyelftools builds its struct tables for every file and parses each dynamic tag through
`construct`: on the torch CPU wheel (136 ELFs) that was a fifth of the audit's CPU time. `FastTap`
keeps the very regions `ElfTap` keeps (the first `KEPT_PREFIX` bytes, the PT_DYNAMIC segment)
and replays `_read`'s reads in pyelftools' order over them, with `_Sparse`'s semantics (a short
read at a region's end, the section-table fields read as zero). It answers only when every read
is one pyelftools would make and succeed on; the first read outside the regions leads to the same
second pass `ElfTap` makes (the string and version-need tables, collected from a re-read). Any
other turn, or a second miss, hands the entry to `ElfTap` itself over a re-read of the content, so
every unusual ELF gets the exact old answer and message. Solaris tag sets are not modelled.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator

from k3diff.native import platform as native
from k3diff.native.platform import KEPT_PREFIX, PREFIX_CAP, ElfTap, PlatformNeeds, version_key

_DT_NULL, _DT_NEEDED, _DT_STRTAB, _DT_STRSZ = 0, 1, 5, 10
_DT_SONAME, _DT_RPATH, _DT_RUNPATH = 14, 15, 29
_DT_VERNEED, _DT_VERNEEDNUM = 0x6FFFFFFE, 0x6FFFFFFF
_STRING_TAGS = frozenset((_DT_NEEDED, _DT_SONAME, _DT_RPATH, _DT_RUNPATH))
"""Tags whose string pyelftools resolves as it reads them (DynamicTag._HANDLED_TAGS)."""
_PT_LOAD, _PT_DYNAMIC = 1, 2
_ELFOSABI_SOLARIS = 6
_VERSION_ENTRIES = 65536


class _Miss(Exception):
    """A read wholly outside the kept regions (pyelftools: `_Missing`, a second pass)."""


class _Unsure(Exception):
    """Anything pyelftools might read differently: `ElfTap` answers instead."""


class _Regions:
    """`_Sparse` of `k3diff.native.platform`, as plain reads."""

    def __init__(self, regions: dict[int, bytes], size: int) -> None:
        self.size = size
        self.items = sorted(regions.items())
        head = bytearray(regions.get(0, b"")[:64])
        if len(head) >= 64:
            if head[4] == 2:
                head[0x28:0x30] = bytes(8)
                head[0x3C:0x40] = bytes(4)
            else:
                head[0x20:0x24] = bytes(4)
                head[0x30:0x34] = bytes(4)
        self.head = bytes(head)

    def read(self, start: int, length: int) -> bytes:
        """What one `readinto` of `length` bytes at `start` gives (possibly short)."""
        end = min(start + length, self.size)
        if end <= start:
            return b""
        for offset, data in self.items:
            if offset <= start < offset + len(data):
                piece = data[start - offset : min(end, offset + len(data)) - offset]
                if start < len(self.head):
                    patched = self.head[start : min(end, len(self.head))]
                    piece = patched + piece[len(patched) :]
                return piece
        raise _Miss

    def exact(self, start: int, length: int) -> bytes:
        """A struct's bytes; a short read is a parse error in pyelftools."""
        data = self.read(start, length)
        if len(data) != length:
            raise _Unsure
        return data

    def cstring(self, start: int) -> str:
        """`parse_cstring_from_stream` and `_DynamicStringTable.get_string`."""
        for offset, data in self.items:  # the usual case at once: the NUL in the same region
            if offset <= start < offset + len(data) and start >= len(self.head):
                end = data.find(b"\x00", start - offset)
                if end < 0 or offset + end >= self.size:
                    break
                try:
                    return data[start - offset : end].decode("utf-8")
                except UnicodeDecodeError:
                    raise _Unsure from None
        chunks = []
        while True:
            chunk, sep, _ = self.read(start, 64).partition(b"\x00")
            chunks.append(chunk)
            if sep:
                text = b"".join(chunks)
                try:
                    return text.decode("utf-8") if text else ""
                except UnicodeDecodeError:
                    raise _Unsure from None
            if len(chunk) < 64:
                return ""
            start += 64


class _Layout:
    """Word size and byte order of one ELF, with its program headers' place."""

    def __init__(self, head: bytes) -> None:
        if (
            len(head) < 64
            or head[:4] != b"\x7fELF"
            or head[4] not in (1, 2)
            or head[5] not in (1, 2)
        ):
            raise _Unsure
        if head[7] == _ELFOSABI_SOLARIS:
            raise _Unsure
        self.wide = head[4] == 2
        order = "<" if head[5] == 1 else ">"
        if self.wide:
            self.phoff, self.phentsize, self.phnum = struct.unpack_from(order + "Q14xHH", head, 32)
            self.phdr = struct.Struct(order + "II6Q")
            self.dyn = struct.Struct(order + "qQ")
        else:
            self.phoff, self.phentsize, self.phnum = struct.unpack_from(order + "I12xHH", head, 28)
            self.phdr = struct.Struct(order + "8I")
            self.dyn = struct.Struct(order + "iI")
        if self.phoff < 64 or self.phentsize < self.phdr.size or self.phnum >= 0xFFFF:
            raise _Unsure
        self.verneed = struct.Struct(order + "HHIII")
        self.vernaux = struct.Struct(order + "IHHII")

    def segment(self, view: _Regions, index: int) -> tuple[int, int, int, int]:
        """(p_type, p_offset, p_vaddr, p_filesz) of program header `index`."""
        fields = self.phdr.unpack(view.exact(self.phoff + index * self.phentsize, self.phdr.size))
        if self.wide:
            return fields[0], fields[2], fields[3], fields[5]
        return fields[0], fields[1], fields[2], fields[4]

    def file_offset(self, view: _Regions, address: int) -> int | None:
        """`ELFFile.address_offsets(address)`'s first answer."""
        for index in range(self.phnum):
            kind, offset, vaddr, filesz = self.segment(view, index)
            if kind == _PT_LOAD and vaddr <= address and address + 1 <= vaddr + filesz:
                return address - vaddr + offset
        return None


def read_needs(view: _Regions) -> PlatformNeeds:
    """`k3diff.native.platform._read` over `view`; _Miss or _Unsure where it would not answer
    the same."""
    layout = _Layout(view.exact(0, 64))
    best: dict[str, tuple[int, ...]] = {}
    needed: list[str] = []
    rpath = runpath = None
    for index in range(layout.phnum):
        kind, offset, _vaddr, filesz = layout.segment(view, index)
        if kind != _PT_DYNAMIC:
            continue
        table: int | None = None
        verneed: int | None = None
        count = 0
        for tag, value in _tags(layout, view, offset, filesz):
            if table is None:  # pyelftools finds the string table at the first tag, any tag
                table = _string_table(layout, view, offset)
            if tag in _STRING_TAGS:
                text = view.cstring(table + value)
                if tag == _DT_NEEDED:
                    needed.append(text)
                elif tag == _DT_RPATH:
                    rpath = text
                elif tag == _DT_RUNPATH:
                    runpath = text
            elif tag == _DT_VERNEED and verneed is None:
                verneed = layout.file_offset(view, value)
            elif tag == _DT_VERNEEDNUM and not count:
                count = value
        if verneed is None or not count or table is None:
            continue
        for name in _version_names(layout, view, table, verneed, count):
            match = native._VERSION.match(name)
            if match:
                best[match[1]] = max(best.get(match[1], ()), version_key(match[2]))
    shown = {family: ".".join(map(str, key)) for family, key in best.items()}
    return PlatformNeeds(
        shown.get("GLIBC"), shown.get("GLIBCXX"), shown.get("CXXABI"), tuple(needed), rpath, runpath
    )


def _tags(layout: _Layout, view: _Regions, offset: int, filesz: int) -> Iterator[tuple[int, int]]:
    """(d_tag, d_val) of each dynamic entry up to and with DT_NULL (none when p_filesz is 0)."""
    if filesz == 0:
        return
    step = layout.dyn.size
    while True:
        tag, value = layout.dyn.unpack(view.exact(offset, step))
        yield tag, value
        if tag == _DT_NULL:
            return
        offset += step


def _string_table(layout: _Layout, view: _Regions, dynamic: int) -> int:
    """The file offset of DT_STRTAB, as `Dynamic._get_stringtable` finds it (its fallback to a
    section is not modelled: pyelftools' section table is zeroed)."""
    for tag, value in _tags(layout, view, dynamic, 1):
        if tag == _DT_STRTAB:
            offset = layout.file_offset(view, value)
            if offset is None:
                raise _Unsure
            return offset
    raise _Unsure


def _version_names(
    layout: _Layout, view: _Regions, table: int, offset: int, count: int
) -> Iterator[str]:
    """`_version_needs` of `k3diff.native.platform`."""
    budget = _VERSION_ENTRIES
    for _ in range(min(count, _VERSION_ENTRIES)):
        _v, cnt, _f, aux, following = layout.verneed.unpack(view.exact(offset, 16))
        aux_offset = offset + aux
        for _ in range(min(cnt, budget)):
            budget -= 1
            _h, _fl, _o, name, aux_next = layout.vernaux.unpack(view.exact(aux_offset, 16))
            yield view.cstring(table + name)
            if not aux_next:
                break
            aux_offset += aux_next
        if not following or budget <= 0:
            break
        offset += following


def _dynamic_of(prefix: bytes, size: int) -> tuple[int, int] | None:
    """`ElfTap._find_dynamic` over `prefix`; None when it might answer otherwise."""
    view = _Regions({0: prefix}, size)
    try:
        layout = _Layout(view.exact(0, 64))
        for index in range(layout.phnum):
            kind, offset, _vaddr, filesz = layout.segment(view, index)
            if kind == _PT_DYNAMIC:
                return offset, min(filesz, 1 << 20)
    except _Miss:
        return 0, 0
    except _Unsure:
        return None
    return 0, 0


class FastTap:
    """`ElfTap` of `k3diff.native.platform`, answered by `read_needs`: fed an entry's content in
    order, it keeps the same regions (without copying anything of an entry that is not an ELF)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._prefix = bytearray()
        self._position = 0
        self._dynamic: tuple[int, int] | None = None
        self._dynamic_bytes = bytearray()
        self._elf: bool | None = None
        self._unsure = False
        """The header is one `read_needs` does not model: `ElfTap` answers."""

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
        if len(self._prefix) < KEPT_PREFIX:
            self._prefix += chunk[: KEPT_PREFIX - len(self._prefix)]
        if self._dynamic is None and len(self._prefix) >= 4096:
            self._dynamic = _dynamic_of(bytes(self._prefix), self.size)
            if self._dynamic is None:
                self._unsure = True
                return
        if self._dynamic is not None and self._dynamic[1] > 0:
            offset, length = self._dynamic
            low, high = max(start, offset), min(self._position, offset + length)
            if low < high:
                self._dynamic_bytes += chunk[low - start : high - start]

    @property
    def is_elf(self) -> bool:
        """The content starts with the ELF magic."""
        return bool(self._elf)

    @property
    def not_elf(self) -> bool:
        """The content read so far (four bytes or more) does not start with the ELF magic."""
        return self._elf is False

    def needs(self, reread: Callable[[], Iterator[bytes]]) -> PlatformNeeds:
        """`ElfTap.needs`: the loader's demands; PlatformUnknown when they cannot be read."""
        if self._dynamic is None and self._elf and not self._unsure:
            self._dynamic = _dynamic_of(bytes(self._prefix), self.size)
        if self._unsure or self._dynamic is None:
            return self._fallback(reread)
        regions = {0: bytes(self._prefix)}
        if self._dynamic_bytes:
            regions[self._dynamic[0]] = bytes(self._dynamic_bytes)
        try:
            return read_needs(_Regions(regions, self.size))
        except _Unsure:
            return self._fallback(reread)
        except _Miss:
            pass  # the tables lie past the kept regions: the second pass `ElfTap` makes
        try:
            wanted = self._table_ranges(regions)
            with native._SECOND_PASS:  # one second pass at a time, ElfTap's and this one's
                regions.update(native._collect(reread(), wanted))
                return read_needs(_Regions(regions, self.size))
        except Exception:  # `ElfTap` meets the same turn and says it its own way
            return self._fallback(reread)

    def _table_ranges(self, regions: dict[int, bytes]) -> list[tuple[int, int]]:
        """`ElfTap._table_ranges`."""
        if not self._dynamic or not self._dynamic_bytes:
            raise _Unsure
        view = _Regions(regions, self.size)
        layout = _Layout(view.exact(0, 64))
        values: dict[int, int] = {}
        step = layout.dyn.size
        raw = bytes(self._dynamic_bytes)
        for at in range(0, len(raw) - step + 1, step):
            tag, value = layout.dyn.unpack_from(raw, at)
            if tag == _DT_NULL:
                break
            values.setdefault(tag, value)
        ranges = []
        for address_tag, size in ((_DT_STRTAB, values.get(_DT_STRSZ, 0)), (_DT_VERNEED, 64 << 10)):
            if address_tag in values:
                offset = layout.file_offset(view, values[address_tag])
                if offset is not None:
                    ranges.append((offset, min(size, PREFIX_CAP)))
        return ranges

    def _fallback(self, reread: Callable[[], Iterator[bytes]]) -> PlatformNeeds:
        """`ElfTap` over a re-read of the content: the exact old answer, or its PlatformUnknown."""
        tap = ElfTap(self.size)
        for chunk in reread():
            tap.feed(chunk)
        return tap.needs(reread)
