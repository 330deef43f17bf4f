"""Pair the parts of two ELF layouts and say, part by part, whether they differ."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import xxhash

from k3diff.native.elf_layout import SHF_EXECINSTR, ElfSection
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


def section_category(section: ElfSection) -> Category:
    """What a section's bytes are for; notes first, since build notes are never code."""
    if (
        section.type == "SHT_NOTE"
        or section.name in NOTE_NAMES
        or section.name.startswith(NOTE_PREFIXES)
    ):
        return "notes"
    if section.name.startswith(DEBUG_PREFIXES):
        return "debug"
    if section.flags & SHF_EXECINSTR:
        return "code"
    if section.name.startswith(CUDA_PREFIXES):
        return "cuda"
    if section.type in SYMBOL_TYPES or section.name in SYMBOL_STRING_TABLES:
        return "symbols"
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
) -> tuple[SectionRow, ...]:
    """Every section of either side, in base order then patch-only ones."""
    base_keyed, patch_keyed = _keyed(base), _keyed(patch)
    keys = list(base_keyed) + [key for key in patch_keyed if key not in base_keyed]
    rows = []
    for key in keys:
        old, new = base_keyed.get(key), patch_keyed.get(key)
        old_place = None if old is None else _placement(old, base_hashes)
        new_place = None if new is None else _placement(new, patch_hashes)
        shown = new if new is not None else old
        assert shown is not None
        categories = {section_category(s) for s in (old, new) if s is not None}
        rows.append(
            SectionRow(
                name=shown.name,
                type=shown.type,
                category="code" if "code" in categories else section_category(shown),
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
