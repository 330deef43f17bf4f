"""`--explain` judges a section by what the loader maps, not by its name or header flags: a
function placed in a section named like a note or like DWARF, or one whose section header is
rewritten to say "not allocated", is code (a new-user trial found such a change called
`notes-only` and `debug-only`, the labels a reviewer reads before writing a waiver)."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from k3diff.native import explain_native
from k3diff.native.elf_layout import SHF_ALLOC, SHF_EXECINSTR

HIDDEN = """
__attribute__((section("{section}"), noinline, used)) static int hidden(int x) {{ return x * {k}; }}
int engine_kernel(int x) {{ return hidden(x) + 1; }}
"""
PLAIN = """
__attribute__((noinline, used)) static int hidden(int x) {{ return x * {k}; }}
int engine_kernel(int x) {{ return hidden(x) + 1; }}
"""


def build(tmp_path: Path, name: str, source: str) -> Path:
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (cc) on PATH")
    directory = tmp_path / name
    directory.mkdir()
    (directory / "lib.c").write_text(source)
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-O2", "-Wl,--build-id=none", "-s", "-o", "lib.so", "lib.c"],
        check=True,
        capture_output=True,
        cwd=directory,
    )
    return directory / "lib.so"


@pytest.mark.parametrize("section", [".note.gnu.build-attrs", ".debug_evil", ".comment.x"])
def test_code_in_a_section_named_like_a_note_or_dwarf_is_code(tmp_path: Path, section: str) -> None:
    base = build(tmp_path, "base", HIDDEN.format(section=section, k=3))
    patch = build(tmp_path, "patch", HIDDEN.format(section=section, k=5))
    result = explain_native(base, patch)
    assert "code" in result.classification
    assert not {"notes-only", "debug-only"} & set(result.classification)
    row = next(row for row in result.sections if row.name == section)
    assert row.status == "changed" and row.category == "code"


def _section_headers(data: bytes) -> list[tuple[int, int, int]]:
    """(header offset, sh_type, sh_flags) of every section of a little-endian ELF64."""
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    headers = []
    for index in range(shnum):
        at = shoff + index * shentsize
        _, sh_type, sh_flags = struct.unpack_from("<IIQ", data, at)
        headers.append((at, sh_type, sh_flags))
    return headers


def _disguise_text(path: Path) -> None:
    """Rewrite every executable section's header to say SHT_NOTE, not allocated, not
    executable: the loader, which reads only program headers, still maps and runs the bytes."""
    data = bytearray(path.read_bytes())
    for at, _, flags in _section_headers(bytes(data)):
        if flags & SHF_EXECINSTR:
            struct.pack_into("<IQ", data, at + 4, 7, flags & ~(SHF_EXECINSTR | SHF_ALLOC))
    path.write_bytes(bytes(data))


def test_section_headers_that_lie_about_mapped_code_do_not_hide_it(tmp_path: Path) -> None:
    base = build(tmp_path, "base", PLAIN.format(k=3))
    patch = build(tmp_path, "patch", PLAIN.format(k=5))
    for side in (base, patch):
        _disguise_text(side)
    result = explain_native(base, patch)
    assert "code" in result.classification
    assert "notes-only" not in result.classification
    assert ".text" in [row.name for row in result.differing_sections]


def test_a_real_build_id_note_stays_notes(tmp_path: Path) -> None:
    """The rule does not take the label from honest rebuilds: an SHT_NOTE in a read-only
    mapping (the build-id, since binutils 2.31 maps code apart) is still a note."""
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (cc) on PATH")
    sides = []
    for name, build_id in (("base", "11" * 20), ("patch", "22" * 20)):
        directory = tmp_path / name
        directory.mkdir()
        (directory / "lib.c").write_text(PLAIN.format(k=3))
        subprocess.run(
            [
                compiler,
                "-shared",
                "-fPIC",
                "-O2",
                f"-Wl,--build-id=0x{build_id}",
                "-o",
                "l.so",
                "lib.c",
            ],
            check=True,
            capture_output=True,
            cwd=directory,
        )
        sides.append(directory / "l.so")
    assert explain_native(*sides).classification == ("notes-only",)
