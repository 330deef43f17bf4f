"""The ELF64 and fatbin writer the explain tests build their inputs with (`scripts/elfkit.py`)
writes files the tools read back as described."""

from __future__ import annotations

import io
import struct

from elfkit import (
    FatImage,
    Sym,
    build_elf,
    build_fatbin,
    build_id_note,
    dynamic_sections,
    text_section,
)
from elftools.elf.elffile import ELFFile


def test_written_elf_reads_back_with_pyelftools() -> None:
    built = build_elf(
        [build_id_note(b"\x01" * 20), text_section(b"\x90" * 32), *dynamic_sections([Sym("f")])]
    )
    elf = ELFFile(io.BytesIO(built.data))
    names = [s.name for s in elf.iter_sections()]
    assert names == [
        "",
        ".note.gnu.build-id",
        ".text",
        ".dynstr",
        ".dynsym",
        ".dynamic",
        ".shstrtab",
    ]
    text, dynsym, notes = (
        elf.get_section_by_name(name) for name in (".text", ".dynsym", ".note.gnu.build-id")
    )
    assert text is not None and dynsym is not None and notes is not None
    assert text.data() == b"\x90" * 32
    assert [s.name for s in dynsym.iter_symbols()] == ["", "f"]  # type: ignore[attr-defined]
    note = next(notes.iter_notes())  # type: ignore[attr-defined]
    assert note["n_desc"] == "01" * 20


def test_written_fatbin_has_the_documented_layout() -> None:
    data = build_fatbin([[FatImage(2, 90, b"abc")]])
    assert data[:4] == bytes.fromhex("50ed55ba")
    assert struct.unpack_from("<Q", data, 8)[0] == 64 + 8
    assert data[16 + 64 : 16 + 67] == b"abc"
