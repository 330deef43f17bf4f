"""`explain_native` on hand-made ELF files: each test changes one thing and names what it finds."""

from __future__ import annotations

import json
from pathlib import Path

from elfkit import (
    SHF_ALLOC,
    SHT_PROGBITS,
    BuiltElf,
    Section,
    Sym,
    build_elf,
    build_id_note,
    dynamic_sections,
    text_section,
)

from k3diff.documents.native import explanation_json
from k3diff.native import NativeExplanation, explain_native

CODE = bytes(range(64))


def library(
    *,
    build_id: bytes = b"\xaa" * 20,
    code: bytes = CODE,
    symbols: tuple[Sym, ...] = (Sym("compute"),),
    needed: tuple[str, ...] = ("libc.so.6",),
    runpath: str | None = "$ORIGIN",
    extra: tuple[Section, ...] = (),
) -> BuiltElf:
    rodata = Section(".rodata", SHT_PROGBITS, b"constant data\0", flags=SHF_ALLOC)
    dynamic = dynamic_sections(list(symbols), needed=needed, soname="libx.so.1", runpath=runpath)
    sections = [build_id_note(build_id), text_section(code), rodata, *dynamic, *extra]
    return build_elf(sections)


def explain(tmp_path: Path, base: bytes, patch: bytes) -> NativeExplanation:
    base_path, patch_path = tmp_path / "base.so", tmp_path / "patch.so"
    base_path.write_bytes(base)
    patch_path.write_bytes(patch)
    result = explain_native(base_path, patch_path)
    json.dumps(explanation_json(result))  # every result must be JSON-ready
    return result


def differing(result: NativeExplanation) -> list[str]:
    return [row.name for row in result.differing_sections]


def test_only_build_id_bytes_differ_is_notes_only(tmp_path: Path) -> None:
    result = explain(
        tmp_path, library(build_id=b"\xaa" * 20).data, library(build_id=b"\xbb" * 20).data
    )
    assert result.format == "elf"
    assert result.classification == ("notes-only",)
    assert differing(result) == [".note.gnu.build-id"]
    assert (result.base.build_id, result.patch.build_id) == ("aa" * 20, "bb" * 20)
    assert "notes-only" in result.summary and "bb" * 20 in result.summary
    assert result.error is None and not result.symbols and not result.segments


def test_byte_tampered_inside_text_is_code_and_names_text(tmp_path: Path) -> None:
    base = library()
    tampered = bytearray(base.data)
    tampered[base.offsets[".text"] + 10] ^= 0xFF
    result = explain(tmp_path, base.data, bytes(tampered))
    assert result.classification == ("code",)
    assert differing(result) == [".text"]
    text = result.differing_sections[0]
    assert text.category == "code" and text.status == "changed" and not text.moved
    assert text.base is not None and text.patch is not None
    assert text.base.size == text.patch.size == len(CODE)
    assert text.base.xxh3_128 != text.patch.xxh3_128
    assert ".text" in result.summary


def test_added_exported_function_is_listed_under_symbols_added(tmp_path: Path) -> None:
    base = library(symbols=(Sym("compute"),))
    patch = library(symbols=(Sym("compute"), Sym("compute_fast", size=48)))
    result = explain(tmp_path, base.data, patch.data)
    assert "symbols" in result.classification
    assert [(s.name, s.type, s.binding, s.size, s.defined) for s in result.symbols.added] == [
        ("compute_fast", "STT_FUNC", "STB_GLOBAL", 48, True)
    ]
    assert result.symbols.removed == () and result.symbols.changed == ()
    assert "+1" in result.summary


def test_symbol_size_and_definedness_changes_are_listed_as_changed(tmp_path: Path) -> None:
    base = library(symbols=(Sym("compute", size=16), Sym("malloc", defined=False)))
    patch = library(symbols=(Sym("compute", size=32), Sym("malloc", defined=True)))
    result = explain(tmp_path, base.data, patch.data)
    changes = {c.base.name: (c.base, c.patch) for c in result.symbols.changed}
    assert changes["compute"][0].size == 16 and changes["compute"][1].size == 32
    assert changes["malloc"][0].defined is False and changes["malloc"][1].defined is True


def test_removed_symbol_is_listed_under_symbols_removed(tmp_path: Path) -> None:
    base = library(symbols=(Sym("compute"), Sym("legacy_api")))
    result = explain(tmp_path, base.data, library(symbols=(Sym("compute"),)).data)
    assert [s.name for s in result.symbols.removed] == ["legacy_api"]


def test_needed_and_runpath_changes_are_reported(tmp_path: Path) -> None:
    base = library(needed=("libc.so.6", "libold.so.1"), runpath="$ORIGIN")
    patch = library(needed=("libc.so.6", "libnew.so.2"), runpath="$ORIGIN/../lib")
    result = explain(tmp_path, base.data, patch.data)
    assert result.dynamic.needed_added == ("libnew.so.2",)
    assert result.dynamic.needed_removed == ("libold.so.1",)
    changes = {(c.field, c.base, c.patch) for c in result.dynamic.changes}
    assert changes == {("DT_RUNPATH", "$ORIGIN", "$ORIGIN/../lib")}
    assert "symbols" in result.classification


def test_vendored_needed_under_a_new_auditwheel_hash_is_rehashed_not_added(
    tmp_path: Path,
) -> None:
    base = library(needed=("libc.so.6", "libgomp-a34b3233.so.1", "libz-0123abcd.so.1"))
    patch = library(needed=("libc.so.6", "libgomp-6e1a1e6f.so.1", "libzstd-89abcdef.so.1"))
    result = explain(tmp_path, base.data, patch.data)
    rehashed = {(c.field, c.base, c.patch) for c in result.dynamic.needed_rehashed}
    assert rehashed == {("DT_NEEDED", "libgomp-a34b3233.so.1", "libgomp-6e1a1e6f.so.1")}
    # A different library is still a dependency added and one removed.
    assert result.dynamic.needed_added == ("libzstd-89abcdef.so.1",)
    assert result.dynamic.needed_removed == ("libz-0123abcd.so.1",)
    assert "1 vendored DT_NEEDED re-hashed" in result.summary
    assert "DT_NEEDED +1 -1" in result.summary
    document = explanation_json(result)["dynamic"]
    assert document["needed_rehashed"] == [
        {"field": "DT_NEEDED", "base": "libgomp-a34b3233.so.1", "patch": "libgomp-6e1a1e6f.so.1"}
    ]


def test_two_candidates_for_one_rehashed_name_stay_added_and_removed(tmp_path: Path) -> None:
    base = library(needed=("libgomp-a34b3233.so.1",))
    patch = library(needed=("libgomp-6e1a1e6f.so.1", "libgomp-11112222.so.1"))
    result = explain(tmp_path, base.data, patch.data)
    assert result.dynamic.needed_rehashed == ()
    assert result.dynamic.needed_removed == ("libgomp-a34b3233.so.1",)
    assert set(result.dynamic.needed_added) == {"libgomp-6e1a1e6f.so.1", "libgomp-11112222.so.1"}


def test_added_section_is_added_and_moves_the_layout(tmp_path: Path) -> None:
    extra = Section(".data", SHT_PROGBITS, b"\x01\x02\x03\x04", flags=SHF_ALLOC)
    result = explain(tmp_path, library().data, library(extra=(extra,)).data)
    rows = {row.name: row for row in result.sections}
    assert rows[".data"].status == "added" and rows[".data"].base is None
    assert "layout" in result.classification and "data" in result.classification


def test_grown_text_is_code_and_layout(tmp_path: Path) -> None:
    result = explain(tmp_path, library().data, library(code=CODE + b"\x90" * 64).data)
    assert result.classification[0] == "code" and "layout" in result.classification
    rows = {row.name: row for row in result.sections}
    moved = rows[".rodata"]
    assert moved.status == "identical" and moved.moved
    assert "+64 B" in result.summary


def test_tampered_padding_between_sections_is_data(tmp_path: Path) -> None:
    base = library()
    tampered = bytearray(base.data)
    tampered[base.offsets[".rodata"] - 1] = 0x42  # a gap byte no section covers
    result = explain(tmp_path, base.data, bytes(tampered))
    assert result.differing_sections == ()
    assert [row.name for row in result.file_regions if row.status != "identical"] == ["<padding>"]
    assert result.classification == ("data",)


def test_identical_files_are_identical_content(tmp_path: Path) -> None:
    data = library().data
    result = explain(tmp_path, data, data)
    assert result.classification == ("identical-content",)
    assert result.base.xxh3_128 == result.patch.xxh3_128
    assert all(row.status == "identical" for row in result.sections)


def test_truncated_section_table_gives_an_error_not_an_exception(tmp_path: Path) -> None:
    base = library()
    result = explain(tmp_path, base.data, base.data[: base.shoff + 100])
    assert result.error is not None
    assert "patch" in result.error and "section header" in result.error
    assert result.classification == ()
    assert result.patch.size == base.shoff + 100
    assert result.base.xxh3_128 != result.patch.xxh3_128


def test_section_offset_past_the_end_gives_an_error_naming_the_section(tmp_path: Path) -> None:
    base = library()
    broken = bytearray(base.data)
    text_header = base.shoff + 64 * 2  # index 0 is null, 1 the note, 2 .text
    broken[text_header + 24 : text_header + 32] = (10**9).to_bytes(8, "little")
    result = explain(tmp_path, bytes(broken), base.data)
    assert result.error is not None
    assert result.error.startswith("malformed ELF: base:") and ".text" in result.error


# A DOS header whose e_lfanew (offset 0x3C) points at the PE header, as in every real PE.
PE_HEAD = b"MZ" + bytes(0x3A) + (0x40).to_bytes(4, "little") + b"PE\0\0"


def test_macho_and_pe_get_size_and_hash_and_a_note(tmp_path: Path) -> None:
    for magic, fmt in ((b"\xcf\xfa\xed\xfe", "mach-o"), (PE_HEAD, "pe")):
        result = explain(tmp_path, magic + bytes(100), magic + bytes(99) + b"\x01")
        assert result.format == fmt
        assert result.note is not None and "ELF and CUDA only" in result.note
        assert result.base.size == result.patch.size == len(magic) + 100
        assert result.base.xxh3_128 != result.patch.xxh3_128
        assert result.sections == () and result.error is None


def test_format_change_is_reported_as_unknown_with_a_note(tmp_path: Path) -> None:
    result = explain(tmp_path, library().data, PE_HEAD + bytes(64))
    assert result.format == "unknown"
    assert result.note == "the format changed: base is elf, patch is pe"


def test_json_shape_names_every_part(tmp_path: Path) -> None:
    document = explanation_json(
        explain(tmp_path, library().data, library(build_id=b"\x01" * 20).data)
    )
    assert set(document) == {
        "format",
        "classification",
        "summary",
        "base",
        "patch",
        "sections",
        "file_regions",
        "segments",
        "header_changes",
        "dynamic",
        "symbols",
        "cuda",
        "note",
        "error",
        "platform",
    }
    note_row = next(row for row in document["sections"] if row["name"] == ".note.gnu.build-id")
    assert note_row["status"] == "changed" and set(note_row["base"]) == {
        "offset",
        "address",
        "size",
        "xxh3_128",
    }
    assert document["classification"] == ["notes-only"]


def test_hostile_name_table_offset_gives_an_error_not_an_exception(tmp_path: Path) -> None:
    base = library()
    broken = bytearray(base.data)
    shstrndx = int.from_bytes(base.data[62:64], "little")
    name_table_header = base.shoff + 64 * shstrndx
    broken[name_table_header + 24 : name_table_header + 32] = (2**62).to_bytes(8, "little")
    result = explain(tmp_path, base.data, bytes(broken))
    assert result.error is not None and result.error.startswith("malformed ELF: patch:")
    assert result.classification == ()
