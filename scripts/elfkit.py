"""A tiny ELF64 and fatbin writer for the tests (a fixture builder, importable as `elfkit`: pytest puts
scripts/ on the path).

Hand-made files let the suite run without a compiler and let a test put one byte exactly where
it wants: inside .text, inside the padding, past a truncated section table.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

SHT_PROGBITS, SHT_STRTAB, SHT_DYNAMIC, SHT_NOTE, SHT_NOBITS, SHT_DYNSYM = 1, 3, 6, 7, 8, 11
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 0x1, 0x2, 0x4
STB_GLOBAL, STT_FUNC, STT_OBJECT = 1, 2, 1
DT_NULL, DT_NEEDED, DT_SONAME, DT_RUNPATH = 0, 1, 14, 29
EM_X86_64, EM_CUDA = 62, 190
PT_LOAD = 1
PT_NOTE = 4
EHDR_SIZE, PHDR_SIZE, SHDR_SIZE = 64, 56, 64


@dataclass
class Section:
    """One section to write; `link` names the section it links to.

    `fill` zero bytes follow `data` inside the section without being held in memory, so a test
    can describe a section of hundreds of megabytes and write it sparsely.
    """

    name: str
    type: int
    data: bytes
    flags: int = 0
    link: str | None = None
    info: int = 0
    entsize: int = 0
    align: int = 8
    nobits_size: int = 0
    fill: int = 0

    @property
    def file_size(self) -> int:
        return 0 if self.type == SHT_NOBITS else len(self.data) + self.fill


@dataclass
class BuiltElf:
    """An ELF file as (offset, bytes) pieces over zeros, and where each section landed."""

    pieces: list[tuple[int, bytes]]
    size: int
    offsets: dict[str, int] = field(default_factory=dict)
    shoff: int = 0

    @property
    def data(self) -> bytes:
        out = bytearray(self.size)
        for offset, piece in self.pieces:
            out[offset : offset + len(piece)] = piece
        return bytes(out)

    def write_sparse(self, path: Path) -> None:
        """Write only the pieces; the zeros between them become holes in the file."""
        with open(path, "wb") as stream:
            stream.truncate(self.size)
            for offset, piece in self.pieces:
                stream.seek(offset)
                stream.write(piece)


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def _strtab(names: list[str]) -> tuple[bytes, dict[str, int]]:
    table, index = b"\0", {"": 0}
    for name in names:
        if name not in index:
            index[name] = len(table)
            table += name.encode() + b"\0"
    return table, index


def _section_header(section: Section, name: int, offset: int, link: int) -> bytes:
    size = section.nobits_size if section.type == SHT_NOBITS else section.file_size
    address = offset if section.flags & SHF_ALLOC else 0
    return struct.pack(
        "<IIQQQQIIQQ",
        name,
        section.type,
        section.flags,
        address,
        offset,
        size,
        link,
        section.info,
        section.align,
        section.entsize,
    )


def _elf_header(
    machine: int, e_flags: int, abi_version: int, phnum: int, shoff: int, shnum: int
) -> bytes:
    ident = b"\x7fELF" + bytes([2, 1, 1, 0, abi_version]) + bytes(7)
    phoff = EHDR_SIZE if phnum else 0
    return ident + struct.pack(
        "<HHIQQQIHHHHHH",
        *(3, machine, 1, 0, phoff, shoff, e_flags),
        *(EHDR_SIZE, PHDR_SIZE, phnum, SHDR_SIZE, shnum, shnum - 1),
    )


def build_elf(
    sections: list[Section],
    *,
    machine: int = EM_X86_64,
    e_flags: int = 0,
    abi_version: int = 0,
    load_segment: bool = True,
    gap: int = 16,
) -> BuiltElf:
    """An ELF64 little-endian shared object: header, one PT_LOAD (read, execute: the layout of
    linkers that do not map code apart), a PT_NOTE for each allocated note section (as linkers
    write them), sections, section headers.

    Sections are laid out in order, each followed by `gap` zero bytes of padding.
    """
    shstrtab, shstr_index = _strtab([s.name for s in sections] + [".shstrtab"])
    all_sections = [*sections, Section(".shstrtab", SHT_STRTAB, shstrtab, align=1)]
    indices = {s.name: i + 1 for i, s in enumerate(all_sections)}
    loaded_notes = [s for s in sections if s.type == SHT_NOTE and s.flags & SHF_ALLOC]
    phnum = 1 + len(loaded_notes) if load_segment else 0
    offset = EHDR_SIZE + phnum * PHDR_SIZE
    pieces: list[tuple[int, bytes]] = []
    offsets: dict[str, int] = {}
    for section in all_sections:
        offset = _align(offset, section.align)
        offsets[section.name] = offset
        if section.type != SHT_NOBITS:
            pieces.append((offset, section.data))
        offset += section.file_size + gap
    shoff = _align(offset, 8)
    table = bytes(SHDR_SIZE) + b"".join(
        _section_header(s, shstr_index[s.name], offsets[s.name], indices[s.link] if s.link else 0)
        for s in all_sections
    )
    pieces.append((shoff, table))
    shnum = len(all_sections) + 1
    pieces.append((0, _elf_header(machine, e_flags, abi_version, phnum, shoff, shnum)))
    if phnum:
        load = struct.pack("<IIQQQQQQ", PT_LOAD, 5, 0, 0, 0, shoff, shoff, 0x1000)
        pieces.append((EHDR_SIZE, load))
        for index, note in enumerate(loaded_notes, start=1):
            at, size = offsets[note.name], len(note.data)
            header = struct.pack("<IIQQQQQQ", PT_NOTE, 4, at, at, at, size, size, 4)
            pieces.append((EHDR_SIZE + index * PHDR_SIZE, header))
    return BuiltElf(pieces, shoff + len(table), offsets, shoff)


def build_id_note(build_id: bytes) -> Section:
    """A .note.gnu.build-id section holding NT_GNU_BUILD_ID."""
    data = struct.pack("<III", 4, len(build_id), 3) + b"GNU\0" + build_id
    return Section(".note.gnu.build-id", SHT_NOTE, data, flags=SHF_ALLOC, align=4)


@dataclass(frozen=True)
class Sym:
    """A dynamic symbol to write: defined in .text unless `defined` is False."""

    name: str
    size: int = 16
    type: int = STT_FUNC
    defined: bool = True


def dynamic_sections(
    symbols: list[Sym],
    *,
    needed: tuple[str, ...] = (),
    soname: str | None = None,
    runpath: str | None = None,
    text_index: int = 1,
) -> list[Section]:
    """.dynstr, .dynsym and .dynamic for the given symbols and loader strings."""
    strings = [s.name for s in symbols] + list(needed) + [v for v in (soname, runpath) if v]
    dynstr, where = _strtab(strings)
    dynsym = bytes(24) + b"".join(
        struct.pack(
            "<IBBHQQ",
            where[s.name],
            (STB_GLOBAL << 4) | s.type,
            0,
            text_index if s.defined else 0,
            0x1000 + 32 * i if s.defined else 0,
            s.size if s.defined else 0,
        )
        for i, s in enumerate(symbols)
    )
    tags = [(DT_NEEDED, where[name]) for name in needed]
    tags += [(DT_SONAME, where[soname])] if soname else []
    tags += [(DT_RUNPATH, where[runpath])] if runpath else []
    dynamic = b"".join(struct.pack("<qQ", tag, value) for tag, value in [*tags, (DT_NULL, 0)])
    return [
        Section(".dynstr", SHT_STRTAB, dynstr, flags=SHF_ALLOC, align=1),
        Section(".dynsym", SHT_DYNSYM, dynsym, SHF_ALLOC, ".dynstr", info=1, entsize=24),
        Section(".dynamic", SHT_DYNAMIC, dynamic, SHF_ALLOC | SHF_WRITE, ".dynstr", entsize=16),
    ]


def text_section(code: bytes) -> Section:
    return Section(".text", SHT_PROGBITS, code, flags=SHF_ALLOC | SHF_EXECINSTR, align=16)


@dataclass(frozen=True)
class FatImage:
    """One fatbin entry to write."""

    kind: int
    arch: int
    payload: bytes
    flags: int = 0x11
    uncompressed_size: int = 0


def build_fatbin(containers: list[list[FatImage]]) -> bytes:
    """Containers of entries laid end to end, in the layout libcublasLt uses."""
    out = bytearray()
    for images in containers:
        body = bytearray()
        for image in images:
            padded = _align(len(image.payload), 8)
            body += struct.pack(
                "<HHIQIIHHIIIQQQ",
                image.kind,
                0x0101,
                64,
                padded,
                len(image.payload),
                0,
                7,
                1,
                image.arch,
                0,
                0,
                image.flags,
                0,
                image.uncompressed_size or len(image.payload),
            )
            body += image.payload + bytes(padded - len(image.payload))
        out += struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body
    return bytes(out)


# The writer's own tests: pyelftools must read back exactly what was written.
