"""A dynamic table read only as far as its PT_LOAD's file bytes (review77e).

glibc zeroes a segment's memory past its p_filesz (to the page's end, where p_memsz is larger)
and reads the dynamic table from memory up to DT_NULL; k3diff read it from the file. A table
RPATH `/tmp/...`, cut there, with RUNPATH `$ORIGIN` past the cut in the file: k3diff read the
RUNPATH, which hides the RPATH (elf77), and passed `audit`, exit 0 (1 before elf77); the
loader read a DT_NULL there, searched `/tmp/...` and ran the library planted in it (held to
the real loader below). Such a table is unreadable now: A116, W632 unchecked."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from audit.test_rpath_beside_runpath import DT_RPATH, DT_SONAME, _retagged
from audit.test_rpath_loader_reads import _dynamic, _helper, _loads_planted, _user
from audit.test_rpath_overlapping_loads import assert_unreadable

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

DT_NULL, DT_RUNPATH = 0, 29


def _runpath_past_the_load(data: bytes) -> bytes:
    """`data` (RUNPATH and RPATH) with its RUNPATH entry moved last, before DT_NULL, and the
    PT_LOAD holding the table cut to end where that entry starts."""
    patched = bytearray(data)
    entries = list(_dynamic(data))
    kept = [(tag, value) for _at, tag, value in entries if tag not in (DT_NULL, DT_RUNPATH)]
    runpath = next((tag, value) for _at, tag, value in entries if tag == DT_RUNPATH)
    start = entries[0][0]
    for index, entry in enumerate([*kept, runpath, (DT_NULL, 0)]):
        struct.pack_into("<qQ", patched, start + 16 * index, *entry)
    cut = start + 16 * len(kept)
    phoff = struct.unpack_from("<Q", data, 32)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    for at in range(phoff, phoff + phnum * phentsize, phentsize):
        kind, _flags, offset, _vaddr, _paddr, filesz = struct.unpack_from("<IIQQQQ", data, at)
        if kind == 1 and offset <= cut < offset + filesz:
            struct.pack_into("<Q", patched, at + 32, cut - offset)
    return bytes(patched)


def test_a_runpath_past_the_loaded_bytes_is_unreadable(tmp_path: Path) -> None:
    planted = tmp_path / "planted"  # under /tmp: world-writable
    helper = _helper(planted)
    built = _user(tmp_path, "$ORIGIN", helper, soname=str(planted))
    both = _retagged(built, {DT_SONAME: DT_RPATH})  # RUNPATH `$ORIGIN`, RPATH planted
    data = _runpath_past_the_load(both)
    trace = _loads_planted(data, tmp_path)  # the loader searches the RPATH
    assert f"RPATH from file {tmp_path / 'loaded.so'}" in trace
    assert_unreadable(tmp_path, data)
