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
bss would lie over the earlier one's bytes) or they are out of address order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from elftools.elf.dynamic import DynamicSegment
    from elftools.elf.elffile import ELFFile

LOADER_PAGE = 4096
"""The smallest page a loader maps (x86-64's; a larger one only makes more segments share)."""
MOST_LOADS = 64
"""More PT_LOAD segments than this are refused (real objects: 2-5, patchelf adds one or two):
the check is pairwise."""


def loads_disagree(loads: Iterable[tuple[int, int, int]]) -> str | None:
    """Why the loader would read some address from another place of the file than its first
    PT_LOAD does, given each PT_LOAD's (p_offset, p_vaddr, p_memsz); None when it would not."""
    spans = []
    for offset, vaddr, memsz in loads:
        if memsz:  # the loader skips an empty PT_LOAD
            start = vaddr // LOADER_PAGE * LOADER_PAGE
            end = -(-(vaddr + memsz) // LOADER_PAGE) * LOADER_PAGE
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
                    "two PT_LOAD segments map one page from different places of the file: the "
                    "loader reads the later one's bytes there, not the ones k3diff would read"
                )
    return None


def elf_loads(elf: ELFFile) -> Iterator[tuple[int, int, int]]:
    """(p_offset, p_vaddr, p_memsz) of each PT_LOAD pyelftools reads."""
    for segment in elf.iter_segments():
        if segment["p_type"] == "PT_LOAD":
            yield int(segment["p_offset"]), int(segment["p_vaddr"]), int(segment["p_memsz"])


def as_the_loader(elf: ELFFile, segment: DynamicSegment) -> str | None:
    """Make pyelftools read `segment` as the loader does: its entries where its address loads
    from, its strings from its last DT_STRTAB (elf76); why it cannot, else None."""
    from elftools.elf.dynamic import _DynamicStringTable

    if (disagree := loads_disagree(elf_loads(elf))) is not None:
        return disagree
    loaded = next(elf.address_offsets(int(segment["p_vaddr"])), None)
    if segment["p_filesz"] and loaded != int(segment["p_offset"]):
        return (
            "PT_DYNAMIC's file offset is not where its address loads from: the loader reads "
            "another dynamic table than the one at its offset"
        )
    table = None
    for entry in segment._iter_tags("DT_STRTAB"):  # raw entries: no string is resolved
        table = int(entry["d_ptr"])
    if table is None:
        return None
    offset = next(elf.address_offsets(table), None)
    if offset is None:
        return "DT_STRTAB is not in a loaded segment"
    segment._stringtable = _DynamicStringTable(elf.stream, offset)
    return None
