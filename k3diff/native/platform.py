"""Platform truth for an ELF: what the dynamic loader will demand of the system.

Per ELF: the highest `GLIBC_`, `GLIBCXX_` and `CXXABI_` versions it requires (its version-needs
table; numberless `GLIBC_` names apart), DT_NEEDED, DT_RPATH and DT_RUNPATH, read through the
program headers as the loader reads them (pyelftools' dynamic segment and version needs), so
the section table is never needed, and no entry is written to disk (`audit` taps the read it
makes to hash it: `ElfTap`). What tags promise: `glibcpromise`, `libstdcxx`."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from k3diff.native.glibcpromise import LOADER_PRIVATE, glibc_floor, is_loader
from k3diff.native.loadmap import as_the_loader
from k3diff.native.sparse import Missing, Sparse
from k3diff.native.sparse import collect as _collect
from k3diff.native.syslibs import raised_syslibs
from k3diff.native.tablestrings import PastCap, past_cap
from k3diff.output import first_few

# pyelftools (≈ 50 ms of imports) is imported where an ELF is parsed with it (audit: elfneeds).
if TYPE_CHECKING:
    from elftools.elf.dynamic import DynamicSegment
    from elftools.elf.elffile import ELFFile

PREFIX_CAP = 64 << 20
"""Most bytes of a loader table kept from a second pass over an entry."""
_VERSION_ENTRIES = 65536
"""Most version-need entries read from one ELF (real libraries have a few dozen)."""
VERNEED_BYTES = 32 * _VERSION_ENTRIES  # a second pass keeps an Elf_Verneed + Elf_Vernaux each
_SECOND_PASS = threading.BoundedSemaphore(1)
"""One second pass at a time: its kept tables are the one large allocation, so memory stays
bounded however many threads verify entries."""

_LOADER_STRINGS = ("DT_NEEDED", "DT_RPATH", "DT_RUNPATH", "DT_SONAME", "DT_AUXILIARY", "DT_FILTER")
"""Tags whose string `_read` reads (kept past the cap too: `tablestrings`)."""
_FAMILIES = ("GLIBC", "GLIBCXX", "CXXABI")
_OTHER = ("GLIBC_", "GCC_", "LIBATOMIC_", "ZLIB_")
_VERSION = re.compile(r"^(GLIBC|GLIBCXX|CXXABI)_(?:(?<=[XI]_)(?:LDBL|IEEE128)_)?(\d+(?:\.\d+)*)$")
"""libstdc++'s long-double variants (ppc64le, s390x: `GLIBCXX_IEEE128_3.4.29`) as its number."""


@cache
def _errors(*extra: type[Exception]) -> tuple[type[Exception], ...]:
    """What a malformed ELF raises through pyelftools (imported when something was raised)."""
    from elftools.common.exceptions import ELFError
    from elftools.construct import ConstructError

    return (ELFError, ConstructError, ValueError, KeyError, IndexError, OSError, EOFError, *extra)


class PlatformUnknown(Exception):
    """The loader tables could not be read (malformed, or past the cap)."""


@dataclass(frozen=True)
class PlatformNeeds:
    """What one ELF demands of the system it loads on."""

    glibc: str | None
    """Highest GLIBC_ version required (`2.34`), None when none."""
    glibcxx: str | None
    """Highest GLIBCXX_ (libstdc++) version required, None when none."""
    cxxabi: str | None
    """Highest CXXABI_ version required, None when none."""
    needed: tuple[str, ...]
    """DT_NEEDED in order."""
    rpath: str | None
    """DT_RPATH, None when absent."""
    runpath: str | None
    """DT_RUNPATH, None when absent."""
    other_versions: tuple[str, ...] = ()
    """Other versions required that a manylinux policy judges, sorted: numberless `GLIBC_` ones
    (`GLIBC_ABI_DT_RELR`: `glibcpromise`), libgcc_s' `GCC_`, libatomic's, zlib's (`syslibs`)."""
    soname: str | None = None
    """DT_SONAME, None when absent (pairs an added library with the one it replaces)."""
    filtees: tuple[str, ...] = ()
    """DT_AUXILIARY and DT_FILTER names in order: libraries the loader opens as it opens a
    DT_NEEDED one (review76g: AUXILIARY `/tmp/x/libh.so` ran what was planted there)."""
    glibc_of: tuple[str, ...] = ()
    """The libraries (vn_file) a numbered `GLIBC_` version is needed of, sorted: glibc's, or one
    defining it too (aarch64 musl's libgcc_s: `__register_frame_info@GLIBC_2.0`; musl80)."""

    def changes(self, newer: PlatformNeeds) -> list[str]:
        """One line per field that differs from `self` to `newer`."""
        lines = [
            f"{field.upper()}: {getattr(self, field) or '(none)'} -> "
            f"{getattr(newer, field) or '(none)'}"
            for field in ("glibc", "glibcxx", "cxxabi", "rpath", "runpath")
            if getattr(self, field) != getattr(newer, field)
        ]
        added = [n for n in newer.needed if n not in self.needed]
        removed = [n for n in self.needed if n not in newer.needed]
        if added or removed:
            lines.append(
                "DT_NEEDED: " + ", ".join([*(f"-{n}" for n in removed), *(f"+{n}" for n in added)])
            )
        if self.other_versions != newer.other_versions:
            old, new = (first_few(n.other_versions, ", ") or "(none)" for n in (self, newer))
            lines.append(f"Other versions: {old} -> {new}")
        return lines

    def raises(self, newer: PlatformNeeds) -> list[str]:
        """The families whose required version `newer` raises above `self`'s (for GLIBC the
        oldest glibc defining every version needed, numberless names included; `GCC`,
        `LIBATOMIC`, `ZLIB` by their highest version)."""
        numbered = [
            family
            for family, field in zip(_FAMILIES, ("glibc", "glibcxx", "cxxabi"), strict=True)
            if newer._floor(field) > self._floor(field)
        ]
        return [*numbered, *raised_syslibs(self.other_versions, newer.other_versions)]

    def raised_changes(self, newer: PlatformNeeds) -> list[str]:
        """The `changes` lines of the families `newer` raises (W713's detail); [] for none."""
        raised = self.raises(newer)
        if not raised:
            return []
        shown = {*raised, "Other versions"}  # where numberless GLIBC_, GCC_, ZLIB_ ... show
        return [line for line in self.changes(newer) if line.split(":")[0] in shown]

    def _floor(self, field: str) -> tuple[int, ...]:
        numbered = version_key(getattr(self, field))
        return glibc_floor(numbered, self.other_versions) if field == "glibc" else numbered


def needs_from(
    names: Iterable[tuple[str, str]],
    needed: list[str],
    rpath: str | None,
    runpath: str | None,
    soname: str | None = None,
    filtees: Iterable[str] = (),
) -> PlatformNeeds:
    """The needs of an ELF whose version-need table names `names`, (library, version) pairs
    (either reader's answer)."""
    best: dict[str, tuple[int, ...]] = {}
    named: set[str] = set()
    glibc_of: set[str] = set()
    for file, name in names:
        match = _VERSION.match(name)
        if match:
            best[match[1]] = max(best.get(match[1], ()), version_key(match[2]))
            if match[1] == "GLIBC":
                glibc_of.add(file)
        elif name.startswith(_OTHER):
            named.add(name)
    glibc, cxx, abi = (".".join(map(str, best[f])) if f in best else None for f in _FAMILIES)
    other = tuple(sorted(named))
    return PlatformNeeds(
        glibc,
        cxx,
        abi,
        tuple(needed),
        rpath,
        runpath,
        other,
        soname,
        tuple(filtees),
        tuple(sorted(glibc_of)),
    )


def version_key(version: str | None) -> tuple[int, ...]:
    """`2.17` as (2, 17); None as () (lower than any version). A part of over 9 digits (an
    input's: 5,000 of them, which `int` refuses, was an internal error) reads as 10**9."""
    return tuple(min(int(part[:10]), 10**9) for part in version.split(".")) if version else ()


def read_needs(elf: ELFFile) -> PlatformNeeds:
    """The loader's demands, from the PT_DYNAMIC segment; PlatformUnknown when malformed."""
    try:
        return _read(elf)
    except _errors() as exc:
        raise PlatformUnknown(f"{type(exc).__name__}: {exc}") from exc


def read_needs_from_stream(chunks: Iterable[bytes], size: int) -> PlatformNeeds:
    """`read_needs` over an entry's content chunks, read in one pass (`ElfTap`), with a second
    pass when the string and version tables lie past the kept prefix."""
    chunks = list(chunks) if not isinstance(chunks, list) else chunks
    tap = ElfTap(size)
    for chunk in chunks:
        tap.feed(chunk)
    return tap.needs(lambda: iter(chunks))


def _read(elf: ELFFile) -> PlatformNeeds:
    """The needs as glibc's loader reads them (`elf/get-dynamic-info.h`): of the one PT_DYNAMIC,
    each tag's last entry (DT_STRTAB, DT_RPATH, DT_VERNEED ...), strings from the last DT_STRTAB
    (never a section's: the loader reads none). elf76: the first DT_STRTAB read, or the string
    section the section table names, was a decoy's, and a RUNPATH of /tmp passed as $ORIGIN."""
    from elftools.elf.dynamic import DynamicSegment

    names: list[tuple[str, str]] = []
    needed: list[str] = []
    rpath = runpath = soname = None
    filtees: list[str] = []
    dynamics = [segment for segment in elf.iter_segments() if isinstance(segment, DynamicSegment)]
    if len(dynamics) > 1:
        raise PlatformUnknown(f"{len(dynamics)} PT_DYNAMIC segments (the loader reads the last)")
    for segment in dynamics:
        if (problem := as_the_loader(elf, segment)) is not None:
            raise PlatformUnknown(problem)
        verneed: int | None = None
        count = 0
        for tag in segment.iter_tags():  # one pass: each pass parses every entry again
            kind = tag.entry.d_tag
            if kind == "DT_NEEDED":
                needed.append(str(getattr(tag, "needed")))  # noqa: B009 (untyped attribute)
            elif kind == "DT_RPATH":
                rpath = str(getattr(tag, "rpath"))  # noqa: B009
            elif kind == "DT_RUNPATH":
                runpath = str(getattr(tag, "runpath"))  # noqa: B009
            elif kind == "DT_SONAME":
                soname = str(getattr(tag, "soname"))  # noqa: B009
            elif kind in ("DT_AUXILIARY", "DT_FILTER"):  # libraries the loader opens too
                filtees.append(segment._get_stringtable().get_string(int(tag.entry.d_val)))
            elif kind == "DT_VERNEED":
                verneed = next(elf.address_offsets(int(tag.entry.d_ptr)), None)
            elif kind == "DT_VERNEEDNUM":
                count = int(tag.entry.d_val)
        names.extend(_version_needs(elf, segment, verneed, count))
    return needs_from(names, needed, rpath, runpath, soname, filtees)


def _version_needs(
    elf: ELFFile, segment: DynamicSegment, offset: int | None, count: int
) -> Iterator[tuple[str, str]]:
    """Every (library, version name) of the DT_VERNEED table (Elf_Verneed / Elf_Vernaux chains)
    at file `offset`, `count` (DT_VERNEEDNUM) entries long."""
    if offset is None or not count:
        return
    from elftools.common.utils import struct_parse

    strings = segment._get_stringtable()  # the segment's own DT_STRTAB reader
    structs = elf.structs
    budget = _VERSION_ENTRIES  # a hostile table cannot make this loop long
    for _ in range(min(count, _VERSION_ENTRIES)):
        need = struct_parse(structs.Elf_Verneed, elf.stream, offset)
        aux_offset = offset + int(need["vn_aux"])
        for _ in range(min(int(need["vn_cnt"]), budget)):
            budget -= 1
            aux = struct_parse(structs.Elf_Vernaux, elf.stream, aux_offset)
            name = strings.get_string(int(aux["vna_name"]))
            file = strings.get_string(int(need["vn_file"]))
            if name != LOADER_PRIVATE or not is_loader(file):
                yield file, name
            if not aux["vna_next"]:
                break
            aux_offset += int(aux["vna_next"])
        if not need["vn_next"] or budget <= 0:
            break
        offset += int(need["vn_next"])


KEPT_PREFIX = 1 << 20
"""Bytes kept from the start of an ELF while it streams past (headers, and in most libraries
the dynamic string and version tables)."""


class ElfTap:
    """Fed an entry's content in order (the read `audit` makes anyway to hash it); keeps the
    first `KEPT_PREFIX` bytes and the PT_DYNAMIC segment, wherever it lies (after the code, in a
    large library), so the loader's demands are read without inflating the entry again."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._prefix = bytearray()
        self._position = 0
        self._dynamic: tuple[int, int] | None = None
        self._dynamic_bytes = bytearray()
        self._elf: bool | None = None
        self._view: Sparse | None = None
        self._parsed: ELFFile | None = None
        """pyelftools' reader over `_view`, built once (its struct tables are not cheap)."""
        self._cap_note = ""
        """What a refusal says of the caps, when the string table is longer than kept."""

    def feed(self, chunk: bytes | memoryview) -> None:
        """The next chunk of content."""
        start, self._position = self._position, self._position + len(chunk)
        if self._elf is False:
            return
        if len(self._prefix) < KEPT_PREFIX:
            self._prefix += chunk[: KEPT_PREFIX - len(self._prefix)]
        if self._elf is None and len(self._prefix) >= 4:
            self._elf = bytes(self._prefix[:4]) == b"\x7fELF"
            if not self._elf:
                return
        if self._dynamic is None and len(self._prefix) >= 4096:
            self._dynamic = self._find_dynamic()
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
    def kept_all(self) -> bool:
        """Every byte `needs` reads without a second pass has been fed (the kept prefix, the
        dynamic segment whole): the rest of the content need not be read for it."""
        if self._elf is False:
            return True
        if self._position < min(self.size, KEPT_PREFIX) or self._dynamic is None:
            return False
        return self._dynamic[1] <= 0 or len(self._dynamic_bytes) >= self._dynamic[1]

    def _reader(self, regions: dict[int, bytes]) -> ELFFile:
        """pyelftools over `regions`, reusing the reader built for the header."""
        if self._view is None or self._parsed is None:
            from elftools.elf.elffile import ELFFile

            self._view = Sparse(regions, self.size)
            self._parsed = ELFFile(self._view)  # type: ignore[arg-type]
        else:
            self._view.replace(regions)
        return self._parsed

    def _find_dynamic(self) -> tuple[int, int]:
        try:
            elf = self._reader({0: bytes(self._prefix)})
            for segment in elf.iter_segments():
                if segment["p_type"] == "PT_DYNAMIC":
                    return int(segment["p_offset"]), min(int(segment["p_filesz"]), 1 << 20)
        except _errors(Missing):
            pass
        return 0, 0

    def needs(self, reread: Callable[[], Iterator[bytes]]) -> PlatformNeeds:
        """The loader's demands; `reread` streams the content again, used only when the string
        or version tables lie past the kept prefix. PlatformUnknown when they cannot be read."""
        if self._dynamic is None and self._elf:
            self._dynamic = self._find_dynamic()
        regions = {0: bytes(self._prefix)}
        if self._dynamic and self._dynamic_bytes:
            regions[self._dynamic[0]] = bytes(self._dynamic_bytes)
        try:
            return _read(self._reader(regions))
        except _errors(Missing) as exc:
            # pyelftools wraps a read outside the kept regions in its own parse error
            if self._view is None or not self._view.missed:
                raise PlatformUnknown(f"{type(exc).__name__}: {exc}") from exc
        for verneed_bytes in (64 << 10, VERNEED_BYTES):  # a longer table: once more, all of it
            wanted = self._table_ranges(regions, verneed_bytes)
            try:
                with _SECOND_PASS:
                    regions.update(_collect(reread(), wanted))
                    return _read(self._reader(regions))
            except _errors(Missing) as exc:
                if verneed_bytes == VERNEED_BYTES or self._view is None or not self._view.missed:
                    note = f" ({self._cap_note})" if self._cap_note and self._view else ""
                    raise PlatformUnknown(f"{type(exc).__name__}: {exc}{note}") from exc
        raise AssertionError("unreachable")

    def _table_ranges(self, regions: dict[int, bytes], verneed_bytes: int) -> list[tuple[int, int]]:
        """File ranges of the dynamic string table and the version-need table, from the raw
        dynamic entries (no strings needed to read them)."""
        elf = self._reader(regions)
        if not self._dynamic or not self._dynamic_bytes:
            raise PlatformUnknown("no dynamic segment")
        values: dict[str, int] = {}
        strings: list[int] = []
        past = PastCap((), "")
        step = elf.structs.Elf_Dyn.sizeof()
        try:
            for at in range(0, len(self._dynamic_bytes) - step + 1, step):
                dyn = elf.structs.Elf_Dyn.parse(bytes(self._dynamic_bytes[at : at + step]))
                if dyn["d_tag"] == "DT_NULL":
                    break
                values[str(dyn["d_tag"])] = int(dyn["d_val"])  # the loader's: the last
                if dyn["d_tag"] in _LOADER_STRINGS:
                    strings.append(int(dyn["d_val"]))
            ranges = []
            for address_tag, size in (
                ("DT_STRTAB", values.get("DT_STRSZ", 0)),
                ("DT_VERNEED", verneed_bytes),
            ):
                if address_tag in values:
                    offset = next(elf.address_offsets(values[address_tag]), None)
                    if offset is not None:
                        ranges.append((offset, min(size, PREFIX_CAP)))
                    if offset is not None and address_tag == "DT_STRTAB":
                        past = past_cap(offset, size, strings, PREFIX_CAP)
        except _errors(Missing) as exc:
            raise PlatformUnknown(f"unreadable dynamic segment: {exc}") from exc
        self._cap_note = past.note
        return past.after(ranges)
