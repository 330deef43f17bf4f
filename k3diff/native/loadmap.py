"""Whether an ELF's PT_LOAD segments map an address as k3diff reads it: the loader's view of
its own tables.

glibc's loader (`elf/dl-map-segments.h`) maps each PT_LOAD in program-header order with
`MAP_FIXED`, whole pages at least: a later segment whose pages reach into an earlier one's
replaces those bytes with its own file range's. k3diff (and pyelftools' `address_offsets`)
takes an address's bytes from the first PT_LOAD holding it. Where two segments share a page
and map it from different places of the file, the loader reads other tables than k3diff
(review76g: a second PT_LOAD over the first page showed the loader RUNPATH /tmp where k3diff
read `$ORIGIN/...`; `audit` passed, exit 0). No linker writes that: it is refused, unreadable.
Segments sharing a page at the same file-to-address shift (`-z max-page-size` below the page)
map the same bytes there, and pass, unless their own ranges overlap (the later one's zeroed
bss would lie over the earlier one's bytes) or they are out of address order.

The page is the largest a kernel of the ELF's machine maps with (`loader_page`): aarch64 and
ppc64(le) kernels run with 64 KiB pages (RHEL's did), and there segments that share no 4 KiB
page share a 64 KiB one (elf77: a PT_LOAD in the last 4 KiB of the first 64 KiB, from the
file's end, replaced the first page and its RUNPATH on such a loader; a 4 KiB rule passed it).
Sharing only grows with the page, so the largest decides. A segment whose file-to-address shift
is no multiple of that page is refused too: glibc refuses to load it there ("ELF load command
address/offset not properly aligned"), musl maps it anyway from the page-aligned offset, so
every address reads bytes from another place of the file than k3diff's. `p_align` is no
stronger statement: no loader maps with it (glibc maps with the kernel's page and only refuses
a `p_align` that is not a multiple of it; musl ignores it)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from elftools.elf.dynamic import DynamicSegment
    from elftools.elf.elffile import ELFFile

_KIB = 1024
_LARGEST_PAGES = {3: 4 * _KIB, 62: 4 * _KIB, 22: 4 * _KIB, 40: 4 * _KIB, 243: 4 * _KIB}
"""Machines whose Linux kernels map 4 KiB pages only: EM_386, EM_X86_64, EM_S390 (s390x),
EM_ARM (armv7l; LPAE too), EM_RISCV (its base page); and those with larger ones:"""
_LARGEST_PAGES |= {183: 64 * _KIB, 21: 64 * _KIB, 43: 8 * _KIB, 20: 256 * _KIB}
"""EM_AARCH64 (4, 16 or 64 KiB), EM_PPC64 (ppc64le: 64 KiB on RHEL, SUSE, Ubuntu), EM_SPARCV9
(8 KiB), EM_PPC (44x kernels: 256 KiB)."""
OTHER_PAGE = 64 * _KIB
"""Any other machine (MIPS, LoongArch, IA-64 ...): 64 KiB, the largest their ABIs allow."""
SMALLEST_PAGE = 4 * _KIB
"""The smallest page a Linux kernel of any machine maps with: a PT_LOAD's last page holds at
least the file's bytes up to the next multiple of it (`loaded_place`)."""
_PT_LOAD = 1
MEMSZ_SHORT = (
    "a PT_LOAD segment's p_filesz is larger than its p_memsz (no linker writes one): glibc "
    "maps its file bytes all the same, over other segments' pages, musl only p_memsz's"
)
"""review78d: a PT_LOAD of p_memsz 0 was skipped as empty, while glibc 2.36 mapped its file
pages over the first PT_LOAD's, RUNPATH `/tmp/...` where k3diff read `$ORIGIN/...`: `audit`
and `wheels --allow-native-changes` passed, exit 0, and the planted library ran."""
MOST_LOADS = 64
"""More PT_LOAD segments than this are refused (real objects: 2-5, patchelf adds one or two):
the check is pairwise."""


def loader_page(machine: int | str) -> int:
    """The largest page a Linux kernel of ELF machine `machine` (e_machine, or pyelftools'
    name for it) maps with."""
    if isinstance(machine, str):
        from elftools.elf.enums import ENUM_E_MACHINE

        machine = ENUM_E_MACHINE.get(machine, -1)
    return _LARGEST_PAGES.get(machine, OTHER_PAGE)


def loads_disagree(loads: Iterable[tuple[int, int, int, int]], page: int) -> str | None:
    """Why the loader would read some address from another place of the file than its first
    PT_LOAD does, given each PT_LOAD's (p_offset, p_vaddr, p_filesz, p_memsz) and the largest
    page its machine's kernels map (`loader_page`); None when it would not."""
    spans = []
    for offset, vaddr, filesz, memsz in loads:
        if filesz > memsz:  # review78d: p_memsz 0 was skipped, its file pages read nowhere
            return MEMSZ_SHORT
        if memsz:  # nothing to map: neither file bytes nor zeroes
            if (vaddr - offset) % page:
                return (
                    f"a PT_LOAD segment's address and file offset differ by no multiple of "
                    f"the {page // _KIB} KiB page its machine's loader may map: it reads other "
                    "bytes there, or refuses the file"
                )
            start = vaddr // page * page
            end = -(-(vaddr + memsz) // page) * page
            spans.append((start, end, vaddr - offset, vaddr, vaddr + memsz))
    if len(spans) > MOST_LOADS:
        return f"{len(spans)} PT_LOAD segments, more than k3diff maps ({MOST_LOADS})"
    if any(later[3] < earlier[3] for earlier, later in pairwise(spans)):
        return "PT_LOAD segments out of address order (the ELF format sorts them; linkers do)"
    for index, (start, end, shift, low, high) in enumerate(spans):
        for other_start, other_end, other_shift, other_low, other_high in spans[:index]:
            shared = start < other_end and other_start < end
            # at one shift only a later segment's bss, zeroed over the earlier's bytes, differs
            if shared and (shift != other_shift or (low < other_high and other_low < high)):
                return (
                    f"two PT_LOAD segments map one {page // _KIB} KiB page from different places "
                    "of the file: the loader reads the later one's bytes there, not the ones "
                    "k3diff would read"
                )
    return None


def as_the_loader(elf: ELFFile, segment: DynamicSegment) -> str | None:
    """Make pyelftools read `segment` as the loader does: its entries where its address loads
    from, its strings from its last DT_STRTAB (elf76); why it cannot, else None. A PT_DYNAMIC
    of no file size is read as none (glibc 2.35 on skips it, BZ #22101), unless its address
    loads from the file: older glibc (manylinux2014's 2.17, RHEL 8's 2.28) and musl read a
    table there (elf77: RUNPATH `/tmp/...` passed `audit`, exit 0)."""
    page = loader_page(elf["e_machine"])
    loads = list(elf_loads(elf))
    if (disagree := loads_disagree(loads, page)) is not None:
        return disagree
    held = loaded_place(loads, int(segment["p_vaddr"]), page)
    if segment["p_filesz"] and (held is None or held[0] != int(segment["p_offset"])):
        return (
            "PT_DYNAMIC's file offset is not where its address loads from: the loader reads "
            "another dynamic table than the one at its offset"
        )
    if not segment["p_filesz"] and file_mapped(elf_segments(elf), segment["p_vaddr"], page):
        return (
            "PT_DYNAMIC of no file size at an address the file's bytes load to: glibc before "
            "2.35 and musl read a dynamic table there"
        )
    table, count = None, 0
    for entry in segment._iter_tags():  # raw entries: no string is resolved
        count += 1
        if entry["d_tag"] == "DT_STRTAB":
            table = int(entry["d_ptr"])
    if segment["p_filesz"] and (held is None or held[0] + count * segment._tagsize > held[1]):
        return PAST_LOAD
    if table is None:
        return None
    place = loaded_place(loads, table, page)
    if place is None:
        return "DT_STRTAB is not in a loaded segment"
    segment._stringtable = LoadedStrings(elf.stream, *place)
    return None


def elf_loads(elf: ELFFile) -> Iterator[tuple[int, int, int, int]]:
    """(p_offset, p_vaddr, p_filesz, p_memsz) of each PT_LOAD pyelftools reads."""
    for segment in elf.iter_segments():
        if segment["p_type"] == "PT_LOAD":
            yield (
                int(segment["p_offset"]),
                int(segment["p_vaddr"]),
                int(segment["p_filesz"]),
                int(segment["p_memsz"]),
            )


def loaded_place(
    loads: Sequence[tuple[int, int, int, int]], address: int, page: int
) -> tuple[int, int] | None:
    """The file offset the loader reads `address` from, and the end of the file bytes it reads
    on from there, given each PT_LOAD's (p_offset, p_vaddr, p_filesz, p_memsz) and the largest
    page its machine's kernels map (`loader_page`); None where it reads none of the file's.

    A PT_LOAD's own file bytes (`table_place`), or the rest of its last page (elf78). Every
    loader maps a segment's file bytes whole pages at a time (glibc's `_dl_map_segments`, musl's
    `map_library`, the kernel's for an executable) and zeroes memory past p_filesz only where
    p_memsz is larger (glibc up to p_memsz in that page, the kernel to its end, musl to its end
    in a PF_W segment and not at all in another: they disagree, so such bytes stay unread). Where p_memsz is p_filesz none zeroes anything, and
    the rest of that last page holds the file's next bytes on every loader: up to a 4 KiB
    boundary (`SMALLEST_PAGE`), where no other PT_LOAD's pages (at `page`) reach. patchelf
    writes such tables (casadi 3.7.2's `cbc`: PT_DYNAMIC just past its PT_LOAD's p_filesz,
    read by glibc 2.36 from the file, `LD_DEBUG=libs`; A116 before)."""
    for index, (offset, vaddr, filesz, memsz) in enumerate(loads):
        if not filesz:
            continue
        end = vaddr + filesz
        tail = -(-end // SMALLEST_PAGE) * SMALLEST_PAGE
        others = (load for at, load in enumerate(loads) if at != index)
        if memsz == filesz and not any(_pages_reach(other, end, tail, page) for other in others):
            end = tail
        if vaddr <= address < end:
            return address - vaddr + offset, end - vaddr + offset
    return None


def _pages_reach(load: tuple[int, int, int, int], low: int, high: int, page: int) -> bool:
    """Whether the pages a loader may map for `load` (p_offset, p_vaddr, p_filesz, p_memsz),
    file bytes or zeroes, at pages of `page` bytes, reach into [low, high)."""
    _offset, vaddr, filesz, memsz = load
    start = vaddr // page * page
    stop = -(-(vaddr + max(filesz, memsz)) // page) * page
    return start < stop and start < high and low < stop


def elf_segments(elf: ELFFile) -> Iterator[tuple[int, int, int, int]]:
    """(p_type, p_offset, p_vaddr, p_filesz) of each program header pyelftools reads."""
    for segment in elf.iter_segments():
        kind = segment["p_type"]
        yield (
            _PT_LOAD if kind == "PT_LOAD" else -1,
            int(segment["p_offset"]),
            int(segment["p_vaddr"]),
            int(segment["p_filesz"]),
        )


def table_place(
    segments: Iterable[tuple[int, int, int, int]], address: int
) -> tuple[int, int] | None:
    """The file offset of `address` in the first PT_LOAD whose file bytes hold it (as
    `ELFFile.address_offsets`), and the end of those bytes; None when none does."""
    for kind, offset, vaddr, filesz in segments:
        if kind == _PT_LOAD and vaddr <= address < vaddr + filesz:
            return address - vaddr + offset, offset + filesz
    return None


def file_mapped(segments: Iterable[tuple[int, int, int, int]], address: int, page: int) -> bool:
    """Whether the loader maps file bytes to `address`: some PT_LOAD's (p_type, p_offset,
    p_vaddr, p_filesz) own, or the rest of their first and last pages, which it maps whole
    (review77e: a PT_DYNAMIC of no file size just below its PT_LOAD's start, on its page)."""
    return any(
        kind == _PT_LOAD
        and filesz
        and vaddr // page * page <= address < -(-(vaddr + filesz) // page) * page
        for kind, _offset, vaddr, filesz in segments
    )


PAST_LOAD = (
    "the dynamic table runs past the file bytes its PT_LOAD maps: the loader reads the zeros "
    "it lays after them (a DT_NULL) or other bytes there, not the file's entries"
)
"""review77e: RPATH `/tmp/...` and then, past the segment's file bytes, RUNPATH `$ORIGIN`:
k3diff read the RUNPATH, which hides the RPATH, and passed; the loader, reading zeros there,
searched `/tmp/...` and ran the library planted in it."""

PAST_SEGMENT = (
    "a DT_STRTAB string runs past the file bytes its PT_LOAD maps: the loader reads the zeros "
    "it lays after them (or the next page's bytes) there, not the file's"
)


class LoadedStrings:
    """DT_STRTAB's strings, each from the file bytes of the PT_LOAD that maps the table (on
    to its last page's end where no loader zeroes it: `loaded_place`); one
    running past them, or to the file's end (pyelftools read that as empty), is refused
    (ValueError): glibc zeroes a segment's memory past its p_filesz, so a RUNPATH
    `$ORIGIN:/usr/lib` cut there reads `$ORIGIN:`, an empty component (elf77: k3diff read on
    in the file and passed it)."""

    def __init__(self, stream: object, offset: int, end: int) -> None:
        self._stream, self._offset, self._end = stream, offset, end

    def get_string(self, index: int) -> str:
        """`_DynamicStringTable.get_string`, within the segment's file bytes."""
        from elftools.common.utils import parse_cstring_from_stream

        raw = parse_cstring_from_stream(self._stream, self._offset + index)  # type: ignore[arg-type]
        if raw is None or self._offset + index + len(raw) >= self._end:
            raise ValueError(PAST_SEGMENT)
        return raw.decode("utf-8")
