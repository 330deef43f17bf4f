"""The text and Markdown views of an explanation: compact, capped, and naming the evidence."""

from __future__ import annotations

from pathlib import Path

from elfkit import (
    SHF_ALLOC,
    SHT_PROGBITS,
    FatImage,
    Section,
    Sym,
    build_elf,
    build_fatbin,
    build_id_note,
    dynamic_sections,
    text_section,
)

from k3diff.native import explain_native
from k3diff.report.explain import SYMBOL_CAP, explain_markdown, explain_text_lines


def write_pair(tmp_path: Path, base: bytes, patch: bytes) -> tuple[Path, Path]:
    (tmp_path / "base.so").write_bytes(base)
    (tmp_path / "patch.so").write_bytes(patch)
    return tmp_path / "base.so", tmp_path / "patch.so"


def library(build_id: bytes, symbols: list[Sym], kernel: bytes, code: bytes) -> bytes:
    fatbin = build_fatbin([[FatImage(2, 90, kernel, 0x2011)]])
    return build_elf(
        [
            build_id_note(build_id),
            text_section(code),
            *dynamic_sections(symbols, needed=("libc.so.6",), runpath="$ORIGIN"),
            Section(".nv_fatbin", SHT_PROGBITS, fatbin, flags=SHF_ALLOC),
        ]
    ).data


def test_text_lines_show_summary_sections_build_ids_symbols_and_images(tmp_path: Path) -> None:
    base_symbols = [Sym("api_v1")]
    patch_symbols = [Sym("api_v1"), *(Sym(f"api_new_{n:02}") for n in range(25))]
    base, patch = write_pair(
        tmp_path,
        library(b"\x01" * 20, base_symbols, b"kernel one", b"\x90" * 16),
        library(b"\x02" * 20, patch_symbols, b"kernel two", b"\x90" * 32),
    )
    lines = explain_text_lines(explain_native(base, patch))
    assert lines[0].startswith("elf: code, data, symbols, cuda, layout: ")
    assert "Build-id: " + "01" * 20 + " → " + "02" * 20 in lines
    text_row = next(line for line in lines if line.startswith(".text "))
    assert text_row.split() == [".text", "code", "changed", "16", "32"]
    assert "Dynamic symbols: 25 added, 0 removed, 0 changed" in lines
    symbol_lines = [line for line in lines if line.startswith("  + api_new_")]
    assert len(symbol_lines) == SYMBOL_CAP
    assert symbol_lines[0] == "  + api_new_00 (FUNC GLOBAL, 16 B)"
    assert f"… {25 - SYMBOL_CAP} more" in lines
    assert any(
        line.startswith("CUDA images (.nv_fatbin): 1 → 1; 0 identical, 1 changed") for line in lines
    )
    assert "  ~ cubin sm_90 [0.0] lz4 10 B → 10 B" in lines


def test_text_lines_of_a_notes_only_pair_are_short(tmp_path: Path) -> None:
    symbols = [Sym("api")]
    base, patch = write_pair(
        tmp_path,
        library(b"\x01" * 20, symbols, b"k", b"\x90" * 16),
        library(b"\x02" * 20, symbols, b"k", b"\x90" * 16),
    )
    lines = explain_text_lines(explain_native(base, patch))
    assert lines[0].startswith("elf: notes-only: 1 of ")
    assert not any("Dynamic symbols" in line or "CUDA images" in line for line in lines)


def test_error_is_shown_once(tmp_path: Path) -> None:
    data = library(b"\x01" * 20, [Sym("api")], b"k", b"\x90" * 16)
    base, patch = write_pair(tmp_path, data, data[:200])
    lines = explain_text_lines(explain_native(base, patch))
    assert lines[0].startswith("elf: not explained: malformed ELF: patch: section header table")
    assert sum("malformed" in line for line in lines) == 1


def test_markdown_has_a_section_table_and_symbol_items(tmp_path: Path) -> None:
    base, patch = write_pair(
        tmp_path,
        library(b"\x01" * 20, [Sym("api_v1")], b"k", b"\x90" * 16),
        library(b"\x01" * 20, [Sym("api_v1"), Sym("api_v2")], b"k", b"\x90" * 16),
    )
    markdown = explain_markdown(explain_native(base, patch))
    assert markdown.startswith("**elf**: data, symbols, layout: ")
    assert "| `.dynsym`" in markdown
    assert "- Dynamic symbols: 1 added, 0 removed, 0 changed" in markdown
    assert "  - `+ api_v2 (FUNC GLOBAL, 16 B)`" in markdown


def test_markdown_section_table_right_aligns_both_sizes(tmp_path: Path) -> None:
    # A section only in the patch ("-" in base bytes) and sizes over 1,000: cells tabulate
    # would not all read as numbers.
    extra = Section(".k3extra", SHT_PROGBITS, b"\x07" * 1500, flags=SHF_ALLOC)
    base, patch = write_pair(
        tmp_path,
        build_elf([text_section(b"\x90" * 1200)]).data,
        build_elf([text_section(b"\xcc" * 1300), extra]).data,
    )
    markdown = explain_markdown(explain_native(base, patch))
    table = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert "base bytes" in table[0] and "patch bytes" in table[0]  # words73: the unit
    rows = [line.strip("|").split("|") for line in table]
    assert len(rows) > 1
    for cells in rows:  # header and data: padded on the left, one space on the right
        for size in cells[-2:]:
            assert size.endswith(" ") and not size.endswith("  "), cells
            assert size.startswith("  ") or len(size.strip()) + 2 == len(size), cells
