"""Read an ELF file's headers (not its contents) into plain values, rejecting what does not fit.

pyelftools parses the headers; every offset and size is then checked against the file size here,
so the hashing pass never reads past the end and a damaged file becomes one clear message.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from elftools.common.exceptions import ELFError
from elftools.construct.core import ConstructError
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import NoteSection

from k3diff.native.model import SegmentInfo

PARSE_ERRORS: tuple[type[Exception], ...] = (
    ELFError,
    ConstructError,
    struct.error,
    ValueError,
    LookupError,
    UnicodeDecodeError,
    OverflowError,
    TypeError,
    AttributeError,
    AssertionError,
    RecursionError,
    OSError,
)
"""What pyelftools raises on hostile input (it has no single base class for parse failures).

OSError is here because seeking to a hostile offset fails with EINVAL; a file that truly cannot
be read fails again, and is raised, when its size and hash are taken for the error report.
"""

SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
_BUILD_ID_NOTE_LIMIT = 1 << 16
_TABLE_NAMES = {
    "<elf header>": "ELF header",
    "<program headers>": "program header table",
    "<section headers>": "section header table",
}
_HEADER_FIELDS = ("e_type", "e_machine", "e_version", "e_entry", "e_flags", "e_phnum", "e_shnum")


class MalformedElf(ValueError):
    """Headers that point outside the file or cannot be parsed."""


@dataclass(frozen=True)
class ElfSection:
    """One section header."""

    index: int
    """Position in the section header table."""
    name: str
    """Name from the section header string table."""
    type: str
    """sh_type as pyelftools names it."""
    flags: int
    """sh_flags."""
    offset: int
    """sh_offset."""
    address: int
    """sh_addr."""
    size: int
    """sh_size."""
    link: int
    """sh_link (the string table of a symbol table, …)."""

    @property
    def has_bytes(self) -> bool:
        return self.type != "SHT_NOBITS" and self.size > 0

    @property
    def end(self) -> int:
        return self.offset + (self.size if self.type != "SHT_NOBITS" else 0)


@dataclass(frozen=True)
class ElfLayout:
    """An ELF file's header tables, checked against its size."""

    size: int
    """File size."""
    machine: str
    """e_machine (``EM_X86_64``, ``EM_CUDA``)."""
    abi_version: int
    """e_ident[EI_ABIVERSION] (selects the cubin e_flags layout)."""
    e_flags: int
    """e_flags (SM architecture for a cubin)."""
    header_fields: dict[str, str]
    """ELF header fields worth comparing, as text."""
    header_spans: dict[str, tuple[int, int]]
    """File ranges of the ELF header and the program / section header tables."""
    sections: tuple[ElfSection, ...]
    """Every section but the null one at index 0."""
    segments: tuple[SegmentInfo, ...]
    """Every program header."""


def read_layout(elf: ELFFile, size: int) -> ElfLayout:
    """Headers of `elf`, a file of `size` bytes; MalformedElf when any points outside it."""
    try:
        header = elf.header
        spans = _header_spans(elf, size)
        sections = tuple(_sections(elf, size))
        segments = tuple(_segments(elf, size))
        fields = {name: _text(header[name]) for name in _HEADER_FIELDS}
        fields["EI_OSABI"] = _text(header["e_ident"]["EI_OSABI"])
        fields["EI_ABIVERSION"] = _text(header["e_ident"]["EI_ABIVERSION"])
        return ElfLayout(
            size=size,
            machine=str(header["e_machine"]),
            abi_version=int(header["e_ident"]["EI_ABIVERSION"]),
            e_flags=int(header["e_flags"]),
            header_fields=fields,
            header_spans=spans,
            sections=sections,
            segments=segments,
        )
    except PARSE_ERRORS as exc:
        if isinstance(exc, MalformedElf):
            raise
        raise MalformedElf(f"unparsable ELF headers ({type(exc).__name__}: {exc})") from exc


def _text(value: object) -> str:
    return f"{value:#x}" if isinstance(value, int) else str(value)


def _header_spans(elf: ELFFile, size: int) -> dict[str, tuple[int, int]]:
    header = elf.header
    spans = {"<elf header>": (0, int(header["e_ehsize"]))}
    if header["e_phnum"]:
        start = int(header["e_phoff"])
        spans["<program headers>"] = (start, start + elf.num_segments() * header["e_phentsize"])
    if header["e_shoff"]:
        start = int(header["e_shoff"])
        spans["<section headers>"] = (start, start + elf.num_sections() * header["e_shentsize"])
    for name, (start, end) in spans.items():
        if end > size:
            raise MalformedElf(
                f"{_TABLE_NAMES[name]} at offset {start:#x} ends at {end:#x}, past the end of "
                f"the file ({size:,} bytes)"
            )
    if header["e_shoff"] and header["e_shstrndx"] >= elf.num_sections():
        raise MalformedElf(f"section name table index {header['e_shstrndx']} is out of range")
    return spans


def _sections(elf: ELFFile, size: int) -> list[ElfSection]:
    sections = []
    for index in range(1, elf.num_sections()):
        section = elf.get_section(index)
        row = ElfSection(
            index=index,
            name=section.name,
            type=str(section["sh_type"]),
            flags=int(section["sh_flags"]),
            offset=int(section["sh_offset"]),
            address=int(section["sh_addr"]),
            size=int(section["sh_size"]),
            link=int(section["sh_link"]),
        )
        if row.end > size:
            raise MalformedElf(
                f"section [{index}] {row.name or '?'} at offset {row.offset:#x} with size "
                f"{row.size:#x} runs past the end of the file ({size:,} bytes)"
            )
        sections.append(row)
    return sections


def _segments(elf: ELFFile, size: int) -> list[SegmentInfo]:
    segments = []
    for index, segment in enumerate(elf.iter_segments()):
        flags = int(segment["p_flags"])
        info = SegmentInfo(
            type=str(segment["p_type"]),
            offset=int(segment["p_offset"]),
            vaddr=int(segment["p_vaddr"]),
            filesz=int(segment["p_filesz"]),
            memsz=int(segment["p_memsz"]),
            flags="".join(c if flags & bit else "-" for c, bit in (("R", 4), ("W", 2), ("X", 1))),
            align=int(segment["p_align"]),
        )
        if info.offset + info.filesz > size:
            raise MalformedElf(
                f"program header [{index}] at offset {info.offset:#x} with size "
                f"{info.filesz:#x} runs past the end of the file ({size:,} bytes)"
            )
        segments.append(info)
    return segments


def read_build_id(elf: ELFFile, layout: ElfLayout) -> str | None:
    """The NT_GNU_BUILD_ID note's hex value, from the first small note section holding one."""
    candidates = sorted(
        (s for s in layout.sections if s.type == "SHT_NOTE" and s.size <= _BUILD_ID_NOTE_LIMIT),
        key=lambda s: s.name != ".note.gnu.build-id",
    )
    for row in candidates:
        try:
            section = elf.get_section(row.index)
            if not isinstance(section, NoteSection):
                continue
            for note in section.iter_notes():
                if note["n_type"] == "NT_GNU_BUILD_ID":
                    return str(note["n_desc"])
        except PARSE_ERRORS:
            continue
    return None
