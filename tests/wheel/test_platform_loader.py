"""review74a: the loader's own versions, glibc libraries under a musllinux tag, and natives whose
loader tables cannot be read, against `audit` (A115) and `wheels --explain` (W713)."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest
from cli_support import run_k3diff
from elftools.elf.elffile import ELFFile

from wheel.test_installed_view import BASE_FILES
from wheel.test_platform import compile_library
from wheel.tricks import build

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

STRLEN = "#include <string.h>\nint go(const char *s) { return (int)strlen(s); }\n"


def unreadable_version_needs(library: bytes, tmp_path: Path) -> bytes:
    """`library` with its first Elf_Verneed's vn_aux pointing past the end of the file: the
    sections and symbols read, the version needs do not."""
    (tmp_path / "probe.so").write_bytes(library)
    with open(tmp_path / "probe.so", "rb") as handle:
        offset = int(ELFFile(handle).get_section_by_name(".gnu.version_r")["sh_offset"])
    data = bytearray(library)
    struct.pack_into("<I", data, offset + 8, 0x7FFF0000)  # vn_aux
    return bytes(data)


def test_unreadable_loader_tables_fail_wheels_explain_under_the_allowance(
    tmp_path: Path,
) -> None:
    """review74: no W713 when a changed native's tables could not be read, so
    `--allow-native-changes` passed it (exit 0) whatever glibc the patch needs."""
    old = compile_library(tmp_path, STRLEN, "old")
    new = unreadable_version_needs(compile_library(tmp_path, STRLEN + "int x;\n", "new"), tmp_path)
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, "demo/_lib.so": old})
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo/_lib.so": new})
    result = run_k3diff(
        "wheels", base, patch, "--explain", "--allow-native-changes", "--format", "json"
    )
    assert result.exit_code == 1, result.stdout
    failing = [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]
    assert [f["code"] for f in failing] == ["W713"]
    assert "loader tables unreadable" in failing[0]["detail"]
    readable = build(tmp_path / "r", "2.0", {**BASE_FILES, "demo/_lib.so": old + b"\0"})
    assert (
        run_k3diff("wheels", base, readable, "--explain", "--allow-native-changes").exit_code == 0
    )
