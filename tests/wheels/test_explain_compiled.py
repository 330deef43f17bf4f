"""`explain_native` on shared libraries built by the system C compiler (skipped without `cc`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from k3diff.native import NativeExplanation, explain_native

SOURCE = """
int scale(int x) { return 3 * x + 1; }
const char *greeting(void) { return "hello"; }
"""
EXTRA_FUNCTION = """
int scale_twice(int x) { return scale(scale(x)); }
"""


def compile_library(tmp_path: Path, name: str, source: str, build_id: str) -> Path:
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (cc) on PATH")
    # Same file names on both sides: the source name is recorded in .symtab.
    directory = tmp_path / name
    directory.mkdir()
    source_path = directory / "lib.c"
    source_path.write_text(source)
    output = directory / "lib.so"
    subprocess.run(
        [
            compiler,
            "-shared",
            "-fPIC",
            "-O1",
            f"-Wl,--build-id=0x{build_id}",
            "-o",
            output.name,
            source_path.name,
        ],
        check=True,
        capture_output=True,
        cwd=directory,
    )
    return output


def differing(result: NativeExplanation) -> list[str]:
    return [row.name for row in result.differing_sections]


def test_rebuild_with_another_build_id_is_notes_only(tmp_path: Path) -> None:
    base = compile_library(tmp_path, "base", SOURCE, "11" * 20)
    patch = compile_library(tmp_path, "patch", SOURCE, "22" * 20)
    result = explain_native(base, patch)
    assert result.classification == ("notes-only",)
    assert differing(result) == [".note.gnu.build-id"]
    assert (result.base.build_id, result.patch.build_id) == ("11" * 20, "22" * 20)


def test_byte_tampered_in_compiled_text_is_code(tmp_path: Path) -> None:
    base = compile_library(tmp_path, "base", SOURCE, "11" * 20)
    text = next(row for row in explain_native(base, base).sections if row.name == ".text")
    assert text.base is not None
    data = bytearray(base.read_bytes())
    data[text.base.offset + 4] ^= 0x01
    patch = tmp_path / "tampered.so"
    patch.write_bytes(data)
    result = explain_native(base, patch)
    assert result.classification == ("code",)
    assert differing(result) == [".text"]


def test_added_exported_function_is_listed_under_symbols_added(tmp_path: Path) -> None:
    base = compile_library(tmp_path, "base", SOURCE, "11" * 20)
    patch = compile_library(tmp_path, "patch", SOURCE + EXTRA_FUNCTION, "11" * 20)
    result = explain_native(base, patch)
    assert [symbol.name for symbol in result.symbols.added] == ["scale_twice"]
    added = result.symbols.added[0]
    assert added.type == "STT_FUNC" and added.binding == "STB_GLOBAL" and added.defined
    assert result.symbols.removed == ()
    assert {"code", "symbols"} <= set(result.classification)
    assert ".text" in differing(result)


def compile_with_debug(tmp_path: Path, name: str, source: str, build_id: str) -> Path:
    """`cc -g` with the build directory mapped to a per-side path: only DWARF and build-id
    differ, as between two CI rebuilds of the same commit in different directories."""
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (cc) on PATH")
    directory = tmp_path / name
    directory.mkdir()
    (directory / "lib.c").write_text(source)
    subprocess.run(
        [
            compiler,
            "-shared",
            "-fPIC",
            "-O1",
            "-g",
            f"-fdebug-prefix-map={directory}=/build/{name}-checkout",
            f"-Wl,--build-id=0x{build_id}",
            "-o",
            "lib.so",
            "lib.c",
        ],
        check=True,
        capture_output=True,
        cwd=directory,
    )
    return directory / "lib.so"


def test_rebuild_differing_only_in_debug_info_is_debug_only(tmp_path: Path) -> None:
    base = compile_with_debug(tmp_path, "base", SOURCE, "11" * 20)
    patch = compile_with_debug(tmp_path, "patch-elsewhere", SOURCE, "22" * 20)
    result = explain_native(base, patch)
    assert result.classification == ("debug-only",)
    assert any(name.startswith(".debug_") for name in differing(result))
    assert result.summary.startswith("debug-only: ")


def test_debug_rebuild_with_a_changed_constant_is_still_data(tmp_path: Path) -> None:
    base = compile_with_debug(tmp_path, "base", SOURCE, "11" * 20)
    patch = compile_with_debug(
        tmp_path, "patch-elsewhere", SOURCE.replace('"hello"', '"jello"'), "22" * 20
    )
    assert "data" in explain_native(base, patch).classification


def test_wheels_explain_says_debug_only(k3diff_cli: Any, tmp_path: Path) -> None:
    import wheelkit

    libs = [
        compile_with_debug(tmp_path, side, SOURCE, build_id)
        for side, build_id in (("base", "11" * 20), ("patch-elsewhere", "22" * 20))
    ]
    wheels = [
        wheelkit.make_wheel(
            tmp_path / f"w{i}", "engine", "1.0", {"engine/lib.so": lib.read_bytes()}
        )
        for i, lib in enumerate(libs)
    ]
    result = k3diff_cli("wheels", *wheels, "--explain")
    assert result.exit_code == 1
    assert "elf: debug-only: " in result.stdout
