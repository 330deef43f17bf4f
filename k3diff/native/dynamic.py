"""What the dynamic loader sees: DT_NEEDED / DT_SONAME / RPATH / RUNPATH and dynamic symbols.

These tables are small (kilobytes even in a 750 MB library), so pyelftools parses them whole.
"""

from __future__ import annotations

from dataclasses import dataclass

from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerDefSection, GNUVerNeedSection, GNUVerSymSection
from elftools.elf.sections import SymbolTableSection

from k3diff.native.model import (
    DynamicChanges,
    DynamicSymbol,
    SymbolChange,
    SymbolChanges,
    ValueChange,
)
from k3diff.paths import normalized_key

_SINGLE_TAGS = ("DT_SONAME", "DT_RPATH", "DT_RUNPATH")
_VERSYM_HIDDEN = 0x8000

SymbolKey = tuple[str, str | None]


@dataclass(frozen=True)
class DynamicInfo:
    """The dynamic section's loader-facing strings."""

    needed: tuple[str, ...]
    """DT_NEEDED entries in order."""
    single: dict[str, str]
    """DT_SONAME / DT_RPATH / DT_RUNPATH values that are present."""


def read_dynamic(elf: ELFFile) -> DynamicInfo:
    """DT_NEEDED and the single-valued string tags of every SHT_DYNAMIC section."""
    needed: list[str] = []
    single: dict[str, str] = {}
    for section in elf.iter_sections("SHT_DYNAMIC"):
        if not isinstance(section, DynamicSection):
            continue
        for tag in section.iter_tags():
            name = str(tag.entry.d_tag)
            if name == "DT_NEEDED":
                needed.append(str(getattr(tag, "needed")))  # noqa: B009 (untyped attribute)
            elif name in _SINGLE_TAGS:
                single[name] = str(getattr(tag, name[3:].lower()))
    return DynamicInfo(tuple(needed), single)


def compare_dynamic(base: DynamicInfo, patch: DynamicInfo) -> DynamicChanges:
    base_needed, patch_needed = set(base.needed), set(patch.needed)
    changes = tuple(
        ValueChange(tag, base.single.get(tag), patch.single.get(tag))
        for tag in _SINGLE_TAGS
        if base.single.get(tag) != patch.single.get(tag)
    )
    added = [n for n in patch.needed if n not in base_needed]
    removed = [n for n in base.needed if n not in patch_needed]
    rehashed = _rehashed(removed, added)
    renamed = {change.base for change in rehashed} | {change.patch for change in rehashed}
    return DynamicChanges(
        needed_added=tuple(n for n in added if n not in renamed),
        needed_removed=tuple(n for n in removed if n not in renamed),
        changes=changes,
        needed_rehashed=rehashed,
    )


def _rehashed(removed: list[str], added: list[str]) -> tuple[ValueChange, ...]:
    """Removed/added DT_NEEDED names that are one vendored library under a new auditwheel hash
    (the same rule that pairs the library files themselves); only one-to-one matches count."""
    by_key: dict[str, tuple[list[str], list[str]]] = {}
    for names, side in ((removed, 0), (added, 1)):
        for name in names:
            key = normalized_key(name)
            if key != name:
                by_key.setdefault(key, ([], []))[side].append(name)
    return tuple(
        ValueChange("DT_NEEDED", old[0], new[0])
        for old, new in by_key.values()
        if len(old) == 1 and len(new) == 1
    )


def read_dynamic_symbols(elf: ELFFile) -> dict[SymbolKey, DynamicSymbol]:
    """Every .dynsym entry but the null one, keyed by (name, version)."""
    table = next(
        (s for s in elf.iter_sections("SHT_DYNSYM") if isinstance(s, SymbolTableSection)), None
    )
    if table is None:
        return {}
    versions = _version_names(elf)
    versym = next(
        (s for s in elf.iter_sections("SHT_GNU_versym") if isinstance(s, GNUVerSymSection)), None
    )
    symbols: dict[SymbolKey, DynamicSymbol] = {}
    for index in range(1, table.num_symbols()):
        symbol = table.get_symbol(index)
        version = None
        if versym is not None and index < versym.num_symbols():
            ndx = versym.get_symbol(index)["ndx"]
            # pyelftools names the reserved indices (local, global); the rest are ints.
            version = versions.get(ndx & ~_VERSYM_HIDDEN) if isinstance(ndx, int) else None
        entry = DynamicSymbol(
            name=symbol.name,
            version=version,
            binding=str(symbol["st_info"]["bind"]),
            type=str(symbol["st_info"]["type"]),
            size=int(symbol["st_size"]),
            defined=symbol["st_shndx"] != "SHN_UNDEF",
        )
        symbols.setdefault((entry.name, entry.version), entry)
    return symbols


def _version_names(elf: ELFFile) -> dict[int, str]:
    """Version index → name, from the version definitions and the version needs."""
    names: dict[int, str] = {}
    for section in elf.iter_sections():
        if isinstance(section, GNUVerDefSection):
            for verdef, auxiliaries in section.iter_versions():
                first = next(iter(auxiliaries), None)
                if first is not None:
                    names[int(verdef["vd_ndx"])] = str(first.name)
        elif isinstance(section, GNUVerNeedSection):
            for _verneed, auxiliaries in section.iter_versions():
                for aux in auxiliaries:
                    names[int(aux["vna_other"])] = str(aux.name)
    return names


def compare_symbols(
    base: dict[SymbolKey, DynamicSymbol], patch: dict[SymbolKey, DynamicSymbol]
) -> SymbolChanges:
    """Added, removed and changed symbols, each sorted by name."""
    added = sorted((patch[key] for key in patch.keys() - base.keys()), key=_order)
    removed = sorted((base[key] for key in base.keys() - patch.keys()), key=_order)
    changed = sorted(
        (
            SymbolChange(base[key], patch[key])
            for key in base.keys() & patch.keys()
            if base[key] != patch[key]
        ),
        key=lambda change: _order(change.base),
    )
    return SymbolChanges(tuple(added), tuple(removed), tuple(changed))


def _order(symbol: DynamicSymbol) -> tuple[str, str]:
    return (symbol.name, symbol.version or "")
