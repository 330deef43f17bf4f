"""Loader strings read only from the file bytes their segment maps (elf77).

glibc maps a PT_LOAD's file bytes up to its p_filesz and zeroes its memory past them (up to
p_memsz). A library whose first PT_LOAD ends inside its RUNPATH `$ORIGIN:/usr/lib` gives the
loader `$ORIGIN:`, whose empty component is the working directory (`LD_DEBUG=libs` below); k3diff
read the string on in the file and passed it, exit 0. A string running past its segment's file
bytes is unreadable now: A116, W632 unchecked."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from wheel.test_installed_view import audit_code

from audit.test_rpath_beside_runpath import _trace
from audit.test_rpath_hijack import demo_wheel
from audit.test_rpath_loader_reads import _helper, _user
from audit.test_rpath_overlapping_loads import _headers, assert_unreadable

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

SAFE = "$ORIGIN:/usr/lib"


def _cut(data: bytes, string: str, keep: int) -> bytes:
    """`data` with its first PT_LOAD's p_filesz ending after `keep` bytes of `string`."""
    first = next(h for h in _headers(data) if h[0] == 1)
    where = data.index(string.encode() + b"\0")
    assert first[2] == 0 and where < first[5], first
    patched = bytearray(data)
    phoff = struct.unpack_from("<Q", data, 32)[0]
    index = _headers(data).index(first)
    struct.pack_into("<Q", patched, phoff + index * 56 + 32, where + keep)
    return bytes(patched)


def test_a_runpath_cut_by_its_segments_end_is_unreadable(tmp_path: Path) -> None:
    whole = _user(tmp_path, SAFE, _helper(tmp_path / "helper"))  # needs libhelper.so
    data = _cut(whole, SAFE, len("$ORIGIN:"))
    trace = _trace(data, tmp_path / "load")  # the working directory is searched, /usr/lib not
    (searched,) = (line for line in trace.splitlines() if "loaded.so)" in line)
    assert "/usr/lib" not in searched and "trying file=libhelper.so" in trace, searched
    assert audit_code(demo_wheel(tmp_path / "w0", "1.0", {"demo/_ext.so": whole})) == (0, set())
    assert_unreadable(tmp_path, data)
