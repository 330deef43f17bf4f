"""A PT_DYNAMIC of no file size over bytes the file loads (elf77).

pyelftools (and k3diff's `struct` reader) read no entry of a PT_DYNAMIC whose p_filesz is 0;
glibc before 2.35 (manylinux2014's 2.17, RHEL 8's 2.28, Ubuntu 20.04's 2.31) sets `l_ld` to its
p_vaddr whatever its size, and musl too, and reads the table there up to DT_NULL. A library
with RUNPATH `/tmp/...` whose PT_DYNAMIC size was zeroed passed `audit` and `wheels
--allow-native-changes`, exit 0. It is unreadable now: A116, W632 unchecked. (glibc 2.35 on
refuses it: "object file has no dynamic section".)"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from audit.test_rpath_hijack import library
from audit.test_rpath_overlapping_loads import assert_unreadable

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")


def _no_dynamic_size(data: bytes) -> bytes:
    """`data` with its PT_DYNAMIC's p_filesz 0 (p_memsz, p_vaddr kept)."""
    patched = bytearray(data)
    phoff = struct.unpack_from("<Q", data, 32)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    for index in range(phnum):
        at = phoff + index * phentsize
        if struct.unpack_from("<I", data, at)[0] == 2:
            struct.pack_into("<Q", patched, at + 32, 0)
    return bytes(patched)


def test_a_dynamic_segment_of_no_file_size_is_unreadable(tmp_path: Path) -> None:
    risky = library(tmp_path / "r", str(tmp_path / "planted"), runpath=True)
    data = _no_dynamic_size(risky)
    assert_unreadable(tmp_path, data)
