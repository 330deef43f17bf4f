"""Pair the parts of two ELF layouts and say, part by part, whether they differ."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import xxhash

from k3diff.native.elf_layout import SHF_ALLOC, SHF_EXECINSTR, ElfSection
from k3diff.native.model import (
    Category,
    Placement,
    RowStatus,
    SectionRow,
    SegmentInfo,
    SegmentRow,
    ValueChange,
)

NOTE_NAMES = frozenset({".comment", ".gnu_debuglink", ".gnu_debugaltlink"})
NOTE_PREFIXES = (".note", ".gnu.build.attributes")
DEBUG_PREFIXES = (".debug_", ".zdebug_")
"""DWARF sections (compressed ones too): never loaded, they describe the code for debuggers."""
CUDA_PREFIXES = (".nv_fatbin", ".nvFatBin")
SYMBOL_TYPES = frozenset(
    {
        "SHT_DYNSYM",
        "SHT_SYMTAB",
        "SHT_HASH",
        "SHT_GNU_HASH",
        "SHT_GNU_versym",
        "SHT_GNU_verdef",
        "SHT_GNU_verneed",
    }
)
SYMBOL_STRING_TABLES = frozenset({".dynstr", ".strtab"})

SectionKey = tuple[str, int]


Load = tuple[int, int, bool]
"""A PT_LOAD segment's file range (start, end) and whether it is mapped executable."""


@dataclass(frozen=True)
class Mapping:
    """What the loader maps of one side, from its program headers (which, unlike section
    names and flags, are what it reads)."""

    loads: tuple[Load, ...] = ()
    """Every PT_LOAD segment with file bytes."""
    notes: tuple[tuple[int, int], ...] = ()
    """File ranges of the PT_NOTE segments: where a linker puts the notes it loads."""


def mapping_of(segments: Sequence[SegmentInfo]) -> Mapping:
    """The loaded and note ranges of one side's program headers."""
    return Mapping(
        loads=tuple(
            (segment.offset, segment.offset + segment.filesz, "X" in segment.flags)
            for segment in segments
            if segment.type == "PT_LOAD" and segment.filesz > 0
        ),
        notes=tuple(
            (segment.offset, segment.offset + segment.filesz)
            for segment in segments
            if segment.type == "PT_NOTE"
        ),
    )


def _file_range(section: ElfSection) -> tuple[int, int] | None:
    if section.type == "SHT_NOBITS" or section.size == 0:
        return None
    return section.offset, section.offset + section.size


def _overlapped(section: ElfSection, mapping: Mapping) -> list[bool]:
    """For each loaded segment the section's file bytes overlap, whether it is executable."""
    span = _file_range(section)
    if span is None:
        return []
    return [
        executable for low, high, executable in mapping.loads if span[0] < high and low < span[1]
    ]


def _loaded_note(section: ElfSection, mapping: Mapping) -> bool:
    """An allocated note inside a PT_NOTE segment, as linkers lay out the build-id."""
    span = _file_range(section)
    return span is not None and any(
        low <= span[0] and span[1] <= high for low, high in mapping.notes
    )


def section_category(section: ElfSection, mapping: Mapping = Mapping()) -> Category:
    """What a section's bytes are for. Names say notes or debug only for bytes the program
    never sees: a DWARF or named note section neither allocated nor loaded, or an SHT_NOTE that
    is unloaded or lies in a PT_NOTE segment. Executable sections are code whatever their name,
    and so is a section whose header says "not allocated" over bytes an executable segment maps
    (section names and flags are not what the loader reads: a function put in a section named
    `.note.*` or `.debug_*`, or a header rewritten to hide one, must not read as a rebuild's
    noise). Inside an executable segment, allocated non-executable sections stay data: linkers
    that do not map code apart put read-only data there."""
    overlapped = _overlapped(section, mapping)
    allocated = bool(section.flags & SHF_ALLOC)
    if section.flags & SHF_EXECINSTR or (not allocated and any(overlapped)):
        return "code"  # the second: a header saying "not loaded" over bytes mapped executable
    unloaded = not allocated and not overlapped
    named_note = section.name in NOTE_NAMES or section.name.startswith(NOTE_PREFIXES)
    if section.type == "SHT_NOTE" and (unloaded or _loaded_note(section, mapping)):
        return "notes"
    if section.type != "SHT_NOTE" and named_note and unloaded:
        return "notes"
    if section.name.startswith(DEBUG_PREFIXES) and unloaded:
        return "debug"
    if section.name.startswith(CUDA_PREFIXES):
        return "cuda"
    if section.type in SYMBOL_TYPES or section.name in SYMBOL_STRING_TABLES:
        static = section.type == "SHT_SYMTAB" or section.name == ".strtab"
        return "data" if static and not unloaded else "symbols"
    return "data"


def _keyed(sections: Sequence[ElfSection]) -> dict[SectionKey, ElfSection]:
    """Sections keyed by (name, occurrence): object files repeat names such as .text."""
    seen: Counter[str] = Counter()
    keyed: dict[SectionKey, ElfSection] = {}
    for section in sections:
        keyed[(section.name, seen[section.name])] = section
        seen[section.name] += 1
    return keyed


def _placement(section: ElfSection, hashes: dict[int, str]) -> Placement:
    digest = None if section.type == "SHT_NOBITS" else hashes.get(section.index, _EMPTY_HASH)
    return Placement(section.offset, section.address, section.size, digest)


_EMPTY_HASH = xxhash.xxh3_128_hexdigest(b"")
"""The hash of a zero-sized section, which the single pass never visits."""


def compare_sections(
    base: Sequence[ElfSection],
    base_hashes: dict[int, str],
    patch: Sequence[ElfSection],
    patch_hashes: dict[int, str],
    base_segments: Sequence[SegmentInfo] = (),
    patch_segments: Sequence[SegmentInfo] = (),
) -> tuple[SectionRow, ...]:
    """Every section of either side, in base order then patch-only ones; a section's category
    is the weightier of its two sides' (code over anything), each judged against its own side's
    loaded segments."""
    base_keyed, patch_keyed = _keyed(base), _keyed(patch)
    base_map, patch_map = mapping_of(base_segments), mapping_of(patch_segments)
    keys = list(base_keyed) + [key for key in patch_keyed if key not in base_keyed]
    rows = []
    for key in keys:
        old, new = base_keyed.get(key), patch_keyed.get(key)
        old_place = None if old is None else _placement(old, base_hashes)
        new_place = None if new is None else _placement(new, patch_hashes)
        shown = new if new is not None else old
        assert shown is not None
        categories = {
            section_category(section, mapping)
            for section, mapping in ((old, base_map), (new, patch_map))
            if section is not None
        }
        shown_map = patch_map if new is not None else base_map
        rows.append(
            SectionRow(
                name=shown.name,
                type=shown.type,
                category="code" if "code" in categories else section_category(shown, shown_map),
                status=_status(old_place, new_place, old, new),
                moved=_moved(old_place, new_place),
                base=old_place,
                patch=new_place,
            )
        )
    return tuple(rows)


def _status(
    old: Placement | None,
    new: Placement | None,
    old_section: ElfSection | None = None,
    new_section: ElfSection | None = None,
) -> RowStatus:
    if old is None:
        return "added"
    if new is None:
        return "removed"
    same_kind = (
        old_section is None
        or new_section is None
        or (old_section.type, old_section.flags) == (new_section.type, new_section.flags)
    )
    same = old.size == new.size and old.xxh3_128 == new.xxh3_128 and same_kind
    return "identical" if same else "changed"


def _moved(old: Placement | None, new: Placement | None) -> bool:
    if old is None or new is None:
        return False
    return (old.offset, old.address) != (new.offset, new.address)


def compare_regions(
    base: dict[str, Placement], patch: dict[str, Placement]
) -> tuple[SectionRow, ...]:
    """Header tables and padding; they move whenever sections grow, so only bytes count."""
    rows = []
    for name in list(base) + [name for name in patch if name not in base]:
        old, new = base.get(name), patch.get(name)
        rows.append(
            SectionRow(
                name=name,
                type="REGION",
                category="padding" if name == "<padding>" else "header",
                status=_status(old, new),
                moved=_moved(old, new),
                base=old,
                patch=new,
            )
        )
    return tuple(rows)


def compare_segments(
    base: Sequence[SegmentInfo], patch: Sequence[SegmentInfo]
) -> tuple[SegmentRow, ...]:
    """Program headers that differ, paired by index."""
    rows = []
    for index in range(max(len(base), len(patch))):
        old = base[index] if index < len(base) else None
        new = patch[index] if index < len(patch) else None
        if old == new:
            continue
        status: RowStatus = "added" if old is None else "removed" if new is None else "changed"
        rows.append(SegmentRow(index, status, old, new))
    return tuple(rows)


def compare_header_fields(base: dict[str, str], patch: dict[str, str]) -> tuple[ValueChange, ...]:
    names = list(base) + [name for name in patch if name not in base]
    return tuple(
        ValueChange(name, base.get(name), patch.get(name))
        for name in names
        if base.get(name) != patch.get(name)
    )
