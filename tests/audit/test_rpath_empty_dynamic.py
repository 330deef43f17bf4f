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


def _load_moved_past_dynamic(data: bytes) -> bytes:
    """`data` with its PT_DYNAMIC's p_filesz 0 and the PT_LOAD holding it starting just past
    it, on the same page: the loader maps that page from the file, table and all, though no
    PT_LOAD's file bytes hold the table's address (review77e)."""
    patched = bytearray(_no_dynamic_size(data))
    phoff = struct.unpack_from("<Q", data, 32)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    headers = [
        (at, struct.unpack_from("<IIQQQQQQ", data, at))
        for at in range(phoff, phoff + phnum * phentsize, phentsize)
    ]
    dynamic = next(header for _at, header in headers if header[0] == 2)
    end = dynamic[3] + dynamic[5]
    for at, (kind, flags, offset, vaddr, paddr, filesz, memsz, align) in headers:
        if kind == 1 and vaddr <= dynamic[3] < vaddr + filesz:
            assert end // 4096 == vaddr // 4096  # one page: the table stays mapped
            shift = end - vaddr
            moved = (offset + shift, end, paddr + shift, filesz - shift, memsz - shift, align)
            struct.pack_into("<IIQQQQQQ", patched, at, kind, flags, *moved)
    return bytes(patched)


def test_a_dynamic_segment_of_no_file_size_on_a_loaded_page_is_unreadable(
    tmp_path: Path,
) -> None:
    """Its address before the PT_LOAD's own, on the page the loader maps from the file: k3diff
    read no table there and passed RUNPATH `/tmp/...`, exit 0."""
    risky = library(tmp_path / "r", str(tmp_path / "planted"), runpath=True)
    assert_unreadable(tmp_path, _load_moved_past_dynamic(risky))
