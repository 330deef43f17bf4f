"""The loader's demands of an ELF read with `struct` from kept regions of its content, as
`k3diff.native.platform._read` (pyelftools) reads them: `FastTap` (`elfneeds`) answers with it.

`Regions` replays `Sparse`'s semantics (a short read at a region's end, the section-table
fields read as zero); `read_needs` makes pyelftools' reads in its order, and raises `Miss` for a
read wholly outside the regions (a second pass may fetch them) or `Unsure` for anything
pyelftools might read differently (`ElfTap` then answers).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from k3diff.native import platform as native
from k3diff.native.glibcpromise import LOADER_PRIVATE, is_loader
from k3diff.native.loadmap import file_mapped, loader_page, loads_disagree, table_place
from k3diff.native.platform import PlatformNeeds

DT_NULL, _DT_NEEDED, DT_STRTAB, DT_STRSZ = 0, 1, 5, 10
_DT_SONAME, _DT_RPATH, _DT_RUNPATH = 14, 15, 29
_DT_AUXILIARY, _DT_FILTER = 0x7FFFFFFD, 0x7FFFFFFF
DT_VERNEED, _DT_VERNEEDNUM = 0x6FFFFFFE, 0x6FFFFFFF
STRING_TAGS = frozenset((_DT_NEEDED, _DT_SONAME, _DT_RPATH, _DT_RUNPATH, _DT_AUXILIARY, _DT_FILTER))
"""Tags whose string `_read` resolves as it reads them (DynamicTag._HANDLED_TAGS; the filtees
`_read` itself)."""
PT_LOAD, _PT_DYNAMIC = 1, 2
_ELFOSABI_SOLARIS = 6
_VERSION_ENTRIES = 65536


class Miss(Exception):
    """A read wholly outside the kept regions (pyelftools: `Missing`, a second pass)."""


class Unsure(Exception):
    """Anything pyelftools might read differently: `ElfTap` answers instead."""


class Regions:
    """`Sparse` of `k3diff.native.sparse`, as plain reads."""

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
        lead = self.items[0][1] if self.items and self.items[0][0] == 0 else b""
        self._lead = lead
        """The region at offset 0 (the kept prefix): most reads fall in it, past the head."""

    def read(self, start: int, length: int) -> bytes:
        """What one `readinto` of `length` bytes at `start` gives (possibly short)."""
        end = min(start + length, self.size)
        if end <= start:
            return b""
        if end <= len(self._lead) and start >= len(self.head):
            return self._lead[start:end]  # what the loop below answers for it, sooner
        for offset, data in self.items:
            if offset <= start < offset + len(data):
                piece = data[start - offset : min(end, offset + len(data)) - offset]
                if offset + len(data) < end and b"\x00" not in piece:
                    continue  # review75g: the file goes on (a 4 MB RUNPATH read as ''): not here
                if start < len(self.head):
                    patched = self.head[start : min(end, len(self.head))]
                    piece = patched + piece[len(patched) :]
                return piece
        raise Miss

    def exact(self, start: int, length: int) -> bytes:
        """A struct's bytes; a short read is a parse error in pyelftools."""
        data = self.read(start, length)
        if len(data) != length:
            raise Unsure
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
                    raise Unsure from None
        chunks = []
        while True:
            chunk, sep, _ = self.read(start, 64).partition(b"\x00")
            chunks.append(chunk)
            if sep:
                text = b"".join(chunks)
                try:
                    return text.decode("utf-8") if text else ""
                except UnicodeDecodeError:
                    raise Unsure from None
            if len(chunk) < 64:
                return ""
            start += 64


class Layout:
    """Word size and byte order of one ELF, with its program headers' place."""

    def __init__(self, head: bytes) -> None:
        if (
            len(head) < 64
            or head[:4] != b"\x7fELF"
            or head[4] not in (1, 2)
            or head[5] not in (1, 2)
        ):
            raise Unsure
        if head[7] == _ELFOSABI_SOLARIS:
            raise Unsure
        self.wide = head[4] == 2
        order = "<" if head[5] == 1 else ">"
        self.page = loader_page(struct.unpack_from(order + "H", head, 18)[0])
        """The largest page its machine's kernels map with (`loadmap.loader_page`)."""
        if self.wide:
            self.phoff, self.phentsize, self.phnum = struct.unpack_from(order + "Q14xHH", head, 32)
            self.phdr = struct.Struct(order + "II6Q")
            self.dyn = struct.Struct(order + "qQ")
        else:
            self.phoff, self.phentsize, self.phnum = struct.unpack_from(order + "I12xHH", head, 28)
            self.phdr = struct.Struct(order + "8I")
            self.dyn = struct.Struct(order + "iI")
        if self.phoff < 64 or self.phentsize < self.phdr.size or self.phnum >= 0xFFFF:
            raise Unsure
        self.verneed = struct.Struct(order + "HHIII")
        self.vernaux = struct.Struct(order + "IHHII")
        self._segments: dict[int, tuple[int, int, int, int]] = {}
        self._segments_of: Regions | None = None

    def segment(self, view: Regions, index: int) -> tuple[int, int, int, int]:
        """(p_type, p_offset, p_vaddr, p_filesz) of program header `index`; each read once
        per view (a view's bytes never change; a read that fails is made again, and fails
        again, as every time)."""
        if view is not self._segments_of:
            self._segments, self._segments_of = {}, view
        known = self._segments.get(index)
        if known is not None:
            return known
        fields = self.phdr.unpack(view.exact(self.phoff + index * self.phentsize, self.phdr.size))
        if self.wide:
            known = fields[0], fields[2], fields[3], fields[5]
        else:
            known = fields[0], fields[1], fields[2], fields[4]
        self._segments[index] = known
        return known

    def loads(self, view: Regions) -> Iterator[tuple[int, int, int, int]]:
        """(p_offset, p_vaddr, p_filesz, p_memsz) of each PT_LOAD (`loadmap.loads_disagree`)."""
        for index in range(self.phnum):
            at = self.phoff + index * self.phentsize
            fields = self.phdr.unpack(view.exact(at, self.phdr.size))
            if fields[0] == PT_LOAD:
                yield (
                    (fields[2], fields[3], fields[5], fields[6])
                    if self.wide
                    else fields[1:3] + fields[4:6]
                )

    def file_offset(self, view: Regions, address: int) -> int | None:
        """`ELFFile.address_offsets(address)`'s first answer."""
        for index in range(self.phnum):
            kind, offset, vaddr, filesz = self.segment(view, index)
            if kind == PT_LOAD and vaddr <= address and address + 1 <= vaddr + filesz:
                return address - vaddr + offset
        return None


def read_needs(view: Regions) -> PlatformNeeds:
    """`k3diff.native.platform._read` over `view`; Miss or Unsure where it would not answer
    the same."""
    layout = Layout(view.exact(0, 64))
    names: list[tuple[str, str]] = []
    needed: list[str] = []
    rpath = runpath = soname = None
    filtees: list[str] = []
    dynamic = False
    for index in range(layout.phnum):
        kind, offset, vaddr, filesz = layout.segment(view, index)
        if kind != _PT_DYNAMIC:
            continue
        segments = [layout.segment(view, index) for index in range(layout.phnum)]
        if dynamic or layout.file_offset(view, vaddr) != (offset if filesz else None):
            raise Unsure  # a second PT_DYNAMIC, or one the loader reads elsewhere: `_read` says
        if not filesz and file_mapped(segments, vaddr, layout.page):
            raise Unsure  # a table the loader reads from the file's pages: `_read` says
        if loads_disagree(layout.loads(view), layout.page) is not None:
            raise Unsure  # pages the loader reads from elsewhere (review76g): `_read` says
        dynamic = True
        held = table_place(segments, vaddr)
        limit = held[1] if filesz and held is not None else None
        table: int | None = None
        verneed: int | None = None
        count = 0
        for tag, value in _tags(layout, view, offset, limit):
            if table is None:  # pyelftools finds the string table at the first tag, any tag
                table, end = _string_table(layout, view, offset, limit)
            if tag in STRING_TAGS:
                text = _loaded_string(view, table + value, end)
                if tag == _DT_NEEDED:
                    needed.append(text)
                elif tag == _DT_RPATH:
                    rpath = text
                elif tag == _DT_RUNPATH:
                    runpath = text
                elif tag == _DT_SONAME:
                    soname = text
                else:
                    filtees.append(text)
            elif tag == DT_VERNEED:  # the loader's: each tag's last entry
                verneed = layout.file_offset(view, value)
            elif tag == _DT_VERNEEDNUM:
                count = value
        if verneed is None or not count or table is None:
            continue
        names.extend(_version_names(layout, view, (table, end), verneed, count))
    return native.needs_from(names, needed, rpath, runpath, soname, filtees)


def _tags(
    layout: Layout, view: Regions, offset: int, limit: int | None
) -> Iterator[tuple[int, int]]:
    """(d_tag, d_val) of each dynamic entry up to and with DT_NULL (none when `limit`, the end
    of the file bytes its PT_LOAD maps, is None: p_filesz 0); Unsure past `limit`
    (`loadmap.PAST_LOAD`, or the rest of the page `loadmap.loaded_place` reads: `_read` says)."""
    if limit is None:
        return
    step = layout.dyn.size
    while True:
        if offset + step > limit:
            raise Unsure  # the loader reads zeros or other bytes there: `_read` says
        tag, value = layout.dyn.unpack(view.exact(offset, step))
        yield tag, value
        if tag == DT_NULL:
            return
        offset += step


def _string_table(
    layout: Layout, view: Regions, dynamic: int, limit: int | None
) -> tuple[int, int]:
    """The file offset of the last DT_STRTAB, the one the loader reads (`loadmap.as_the_loader`),
    and the end of the file bytes its PT_LOAD maps (`loadmap.LoadedStrings`)."""
    last = None
    for tag, value in _tags(layout, view, dynamic, limit):
        if tag == DT_STRTAB:
            last = value
    segments = (layout.segment(view, index) for index in range(layout.phnum))
    place = None if last is None else table_place(segments, last)
    if place is None:
        raise Unsure
    return place


def _loaded_string(view: Regions, start: int, end: int) -> str:
    """`view.cstring(start)`; Unsure where it runs past `end` (`loadmap.LoadedStrings`)."""
    text = view.cstring(start)
    if start + len(text.encode()) >= end or (not text and view.read(start, 1) != b"\x00"):
        raise Unsure  # past the segment, or to the file's end (`cstring` answers "")
    return text


def _version_names(
    layout: Layout, view: Regions, strings: tuple[int, int], offset: int, count: int
) -> Iterator[tuple[str, str]]:
    """`_version_needs` of `k3diff.native.platform`."""
    table, end = strings
    budget = _VERSION_ENTRIES
    for _ in range(min(count, _VERSION_ENTRIES)):
        _v, cnt, file, aux, following = layout.verneed.unpack(view.exact(offset, 16))
        aux_offset = offset + aux
        for _ in range(min(cnt, budget)):
            budget -= 1
            _h, _fl, _o, name, aux_next = layout.vernaux.unpack(view.exact(aux_offset, 16))
            text = _loaded_string(view, table + name, end)
            library = _loaded_string(view, table + file, end)
            if text != LOADER_PRIVATE or not is_loader(library):
                yield library, text
            if not aux_next:
                break
            aux_offset += aux_next
        if not following or budget <= 0:
            break
        offset += following


def dynamic_of(prefix: bytes, size: int) -> tuple[int, int] | None:
    """`ElfTap._find_dynamic` over `prefix`; None when it might answer otherwise."""
    view = Regions({0: prefix}, size)
    try:
        layout = Layout(view.exact(0, 64))
        for index in range(layout.phnum):
            kind, offset, _vaddr, filesz = layout.segment(view, index)
            if kind == _PT_DYNAMIC:
                return offset, min(filesz, 1 << 20)
    except Miss:
        return 0, 0
    except Unsure:
        return None
    return 0, 0
