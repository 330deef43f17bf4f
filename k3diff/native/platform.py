"""Platform truth for an ELF: what the dynamic loader will demand of the system.

Per ELF: the highest `GLIBC_`, `GLIBCXX_` and `CXXABI_` symbol versions it requires (its
version-needs table), DT_NEEDED, DT_RPATH and DT_RUNPATH, read through the program headers as
the loader reads them (pyelftools' dynamic segment and its version-need structures), so the
section table at the end of a large library is never needed: `read_needs_from_stream` inflates
an entry only as far as these tables lie (at most `PREFIX_CAP` bytes) and never writes it to
disk. auditwheel's question follows: does any ELF need a newer glibc than the wheel's
`manylinux_2_X` tag promises (or any glibc at all on a `musllinux` tag)?
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from elftools.common.exceptions import ELFError
from elftools.common.utils import struct_parse
from elftools.construct import ConstructError
from elftools.elf.dynamic import DynamicSegment
from elftools.elf.elffile import ELFFile

PREFIX_CAP = 64 << 20
"""Most bytes of one entry inflated to find its loader tables."""

_FAMILIES = ("GLIBC", "GLIBCXX", "CXXABI")
_VERSION = re.compile(r"^(GLIBC|GLIBCXX|CXXABI)_(\d+(?:\.\d+)*)$")
_LEGACY_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
_MANYLINUX = re.compile(r"^manylinux_(\d+)_(\d+)_")
_ERRORS = (ELFError, ConstructError, ValueError, KeyError, IndexError, OSError, EOFError)


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

    def changes(self, newer: PlatformNeeds) -> list[str]:
        """One line per field that differs from `self` to `newer`."""
        lines = [
            f"{label}: {getattr(self, field) or '(none)'} -> {getattr(newer, field) or '(none)'}"
            for field, label in (
                ("glibc", "GLIBC"),
                ("glibcxx", "GLIBCXX"),
                ("cxxabi", "CXXABI"),
                ("rpath", "RPATH"),
                ("runpath", "RUNPATH"),
            )
            if getattr(self, field) != getattr(newer, field)
        ]
        added = [n for n in newer.needed if n not in self.needed]
        removed = [n for n in self.needed if n not in newer.needed]
        if added or removed:
            lines.append(
                "DT_NEEDED: " + ", ".join([*(f"-{n}" for n in removed), *(f"+{n}" for n in added)])
            )
        return lines

    def raises(self, newer: PlatformNeeds) -> list[str]:
        """The families whose required version `newer` raises above `self`'s."""
        return [
            family
            for family, field in zip(_FAMILIES, ("glibc", "glibcxx", "cxxabi"), strict=True)
            if version_key(getattr(newer, field)) > version_key(getattr(self, field))
        ]


def version_key(version: str | None) -> tuple[int, ...]:
    """`2.17` as (2, 17); None as () (lower than any version)."""
    return tuple(int(part) for part in version.split(".")) if version else ()


def read_needs(elf: ELFFile) -> PlatformNeeds:
    """The loader's demands, from the PT_DYNAMIC segment; PlatformUnknown when malformed."""
    try:
        return _read(elf)
    except _ERRORS as exc:
        raise PlatformUnknown(f"{type(exc).__name__}: {exc}") from exc


def read_needs_from_stream(chunks: Iterable[bytes], size: int) -> PlatformNeeds:
    """`read_needs` over an entry's content chunks, inflated only as far as it is read."""
    stream = _LazyContent(iter(chunks), size)
    try:
        return _read(ELFFile(stream))  # type: ignore[arg-type]
    except _ERRORS as exc:
        raise PlatformUnknown(f"{type(exc).__name__}: {exc}") from exc


def _read(elf: ELFFile) -> PlatformNeeds:
    best: dict[str, tuple[int, ...]] = {}
    needed: list[str] = []
    rpath = runpath = None
    for segment in elf.iter_segments():
        if not isinstance(segment, DynamicSegment):
            continue
        for tag in segment.iter_tags():
            kind = tag.entry.d_tag
            if kind == "DT_NEEDED":
                needed.append(str(getattr(tag, "needed")))  # noqa: B009 (untyped attribute)
            elif kind == "DT_RPATH":
                rpath = str(getattr(tag, "rpath"))  # noqa: B009
            elif kind == "DT_RUNPATH":
                runpath = str(getattr(tag, "runpath"))  # noqa: B009
        for name in _version_needs(elf, segment):
            match = _VERSION.match(name)
            if match:
                key = version_key(match[2])
                best[match[1]] = max(best.get(match[1], ()), key)
    shown = {family: ".".join(map(str, key)) for family, key in best.items()}
    return PlatformNeeds(
        shown.get("GLIBC"), shown.get("GLIBCXX"), shown.get("CXXABI"), tuple(needed), rpath, runpath
    )


def _version_needs(elf: ELFFile, segment: DynamicSegment) -> Iterator[str]:
    """Every version name of the DT_VERNEED table (Elf_Verneed / Elf_Vernaux chains)."""
    _, offset = segment.get_table_offset("DT_VERNEED")
    counts = [int(tag["d_val"]) for tag in segment.iter_tags("DT_VERNEEDNUM")]
    if offset is None or not counts:
        return
    strings = segment._get_stringtable()
    structs = elf.structs
    for _ in range(min(counts[0], 4096)):
        need = struct_parse(structs.Elf_Verneed, elf.stream, offset)
        aux_offset = offset + int(need["vn_aux"])
        for _ in range(min(int(need["vn_cnt"]), 4096)):
            aux = struct_parse(structs.Elf_Vernaux, elf.stream, aux_offset)
            yield strings.get_string(int(aux["vna_name"]))
            if not aux["vna_next"]:
                break
            aux_offset += int(aux["vna_next"])
        if not need["vn_next"]:
            break
        offset += int(need["vn_next"])


class _LazyContent(io.RawIOBase):
    """A seekable view of an entry's content that inflates only as far as it is read, with the
    section-header fields of the ELF header zeroed (a stripped section table is valid ELF), so
    pyelftools never seeks to the end of a large library."""

    def __init__(self, chunks: Iterator[bytes], size: int) -> None:
        self._chunks = chunks
        self._size = size
        self._buffer = bytearray()
        self._position = 0
        self._patched = False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        end = min(self._position + len(buffer), self._size)
        self._fill(end)
        data = self._buffer[self._position : end]
        buffer[: len(data)] = data
        self._position += len(data)
        return len(data)

    def _fill(self, end: int) -> None:
        while len(self._buffer) < end:
            if len(self._buffer) >= PREFIX_CAP:
                raise EOFError(f"the loader tables lie past the first {PREFIX_CAP >> 20} MiB")
            chunk = next(self._chunks, None)
            if chunk is None:
                return
            self._buffer += chunk
        if not self._patched and len(self._buffer) >= 64:
            self._patched = True
            if self._buffer[4] == 2:  # ELFCLASS64: e_shoff at 0x28, e_shnum/e_shstrndx at 0x3c
                self._buffer[0x28:0x30] = bytes(8)
                self._buffer[0x3C:0x40] = bytes(4)
            else:  # ELFCLASS32: e_shoff at 0x20, e_shnum/e_shstrndx at 0x30
                self._buffer[0x20:0x24] = bytes(4)
                self._buffer[0x30:0x34] = bytes(4)


def promised_glibc(platform_tags: Iterable[str]) -> tuple[int, ...] | None:
    """The glibc a wheel's platform tags promise to need at most: the lowest of its manylinux
    tags; () for a musllinux tag (no glibc at all); None when no tag promises anything."""
    promises: list[tuple[int, ...]] = []
    for tag in platform_tags:
        if tag.startswith("musllinux_"):
            promises.append(())
        legacy = next((v for k, v in _LEGACY_MANYLINUX.items() if tag.startswith(k + "_")), None)
        if legacy is not None:
            promises.append(legacy)
        match = _MANYLINUX.match(tag)
        if match:
            promises.append((int(match[1]), int(match[2])))
    return min(promises) if promises else None
