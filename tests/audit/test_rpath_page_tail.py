"""Loader tables in the rest of a PT_LOAD's last page, read as the loader reads them (elf78).

Every loader maps a segment's file bytes whole pages at a time and zeroes memory past p_filesz
only where p_memsz is larger. patchelf leaves tables there: casadi 3.7.2's `cbc` and `clp` have
PT_DYNAMIC (and the end of DT_STRTAB) just past their first PT_LOAD's p_filesz, on its page;
glibc 2.36 reads them from the file (`LD_DEBUG=libs` searches their RPATH `$ORIGIN`), and
`audit` failed both, A116 (exit 1). Where p_memsz equals p_filesz such a table is read from the
file now, up to the 4 KiB page's end; where p_memsz is larger the loaders zero it (glibc up to
p_memsz, musl and the kernel to the page's end) and it stays unreadable (review77e, elf77)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from wheel.test_installed_view import audit_code, codes, wheels_json

from audit.test_rpath_beside_runpath import _trace
from audit.test_rpath_cut_strings import SAFE
from audit.test_rpath_hijack import demo_wheel, library
from audit.test_rpath_loader_reads import ALLOW, EXPLAIN, _helper, _loads_planted, _user
from audit.test_rpath_overlapping_loads import _headers, assert_unreadable

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

PF_R, PAGE = 4, 0x1000


def _rewritten(data: bytearray, headers: list[list[int]]) -> bytes:
    phoff = struct.unpack_from("<Q", data, 32)[0]
    for index, header in enumerate(headers):
        struct.pack_into("<IIQQQQQQ", data, phoff + index * 56, *header)
    return bytes(data)


def _table_in_the_tail(data: bytes, inside: int, bss: int = 0) -> bytes:
    """`data` with a copy of its dynamic table just past its first PT_LOAD's file bytes (in the
    padding before the next page), PT_DYNAMIC (read-only) naming the copy, and that PT_LOAD's
    p_filesz ending `inside` bytes into the copy; p_memsz `bss` bytes more (patchelf's shape
    where `inside` and `bss` are 0)."""
    patched, headers = bytearray(data), [list(h) for h in _headers(data)]
    first = next(h for h in headers if h[0] == 1)
    dynamic = next(h for h in headers if h[0] == 2)
    table = data[dynamic[2] : dynamic[2] + dynamic[5]]
    at = -(-(first[2] + first[5]) // 8) * 8
    assert first[2] == first[3] == 0 and at + len(table) <= PAGE, first
    patched[at : at + len(table)] = table
    dynamic[1:5] = [PF_R, at, at, at]  # the loader writes no read-only table (glibc 2.35 on)
    first[5] = at + inside
    first[6] = first[5] + bss
    return _rewritten(patched, headers)


def test_a_dynamic_table_past_its_loads_file_bytes_on_its_page_is_read(tmp_path: Path) -> None:
    helper = _helper(tmp_path / "beside")
    safe = _user(tmp_path, "$ORIGIN", helper)
    plain = demo_wheel(tmp_path / "b", "1.0", {"demo/_ext.so": library(tmp_path / "p", None)})
    for inside in (0, 32):  # wholly past p_filesz (casadi's `cbc`), or running past it
        data = _table_in_the_tail(safe, inside)
        trace = _trace(data, tmp_path / f"t{inside}")  # the loader reads RUNPATH `$ORIGIN`
        assert f"RUNPATH from file {tmp_path / f't{inside}' / 'loaded.so'}" in trace
        wheel = demo_wheel(tmp_path / f"w{inside}", "2.0", {"demo/_ext.so": data})
        assert audit_code(wheel) == (0, set()), inside  # A116 before, exit 1
        for options in (ALLOW, EXPLAIN):
            exit_code, report = wheels_json(plain, wheel, *options)
            assert exit_code == 0, (inside, options, report["findings"])  # W632 before
            assert not codes(report) & {"W632", "W713"}, report["findings"]


def test_a_table_on_the_tail_is_judged_as_the_loader_searches_it(tmp_path: Path) -> None:
    """The loader reads RUNPATH `/tmp/...` from the tail and runs the library planted there:
    `audit` reads the same RUNPATH and fails it as a hijack (A139), no longer unread (A116)."""
    planted = tmp_path / "planted"  # under /tmp: world-writable
    data = _table_in_the_tail(_user(tmp_path, str(planted), _helper(planted)), 0)
    trace = _loads_planted(data, tmp_path)
    assert f"RUNPATH from file {tmp_path / 'loaded.so'}" in trace
    assert audit_code(demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": data})) == (1, {"A139"})


def test_a_tail_the_loader_zeroes_or_the_file_lacks_stays_unreadable(tmp_path: Path) -> None:
    """p_memsz past p_filesz: glibc zeroes the table's first entry (a DT_NULL: no RUNPATH, no
    libhelper.so), musl and older kernels may not; a file ending inside the table."""
    safe = _user(tmp_path, "$ORIGIN", _helper(tmp_path / "beside"))
    zeroed = _table_in_the_tail(safe, 0, bss=16)
    trace = _trace(zeroed, tmp_path / "z")
    assert "find library=libhelper.so" not in trace, trace[-2000:]
    assert_unreadable(tmp_path / "zeroed", zeroed)
    whole = _table_in_the_tail(safe, 0)
    at = next(h for h in _headers(whole) if h[0] == 2)[2]
    assert_unreadable(tmp_path / "short", whole[: at + 40])


def test_a_string_past_its_loads_file_bytes_on_its_page_is_read(tmp_path: Path) -> None:
    """test_rpath_cut_strings' cut with p_memsz cut alike: no loader zeroes the rest of the
    string, glibc searches `/usr/lib` (A116 before, exit 1)."""
    data = bytearray(_user(tmp_path, SAFE, _helper(tmp_path / "helper")))
    headers = [list(h) for h in _headers(data)]
    first = next(h for h in headers if h[0] == 1)
    first[5] = first[6] = data.index(SAFE.encode() + b"\0") + len("$ORIGIN:")
    cut = _rewritten(data, headers)
    trace = _trace(cut, tmp_path / "load")
    assert "trying file=/usr/lib/libhelper.so" in trace, trace[-2000:]
    assert "trying file=libhelper.so" not in trace, trace[-2000:]  # no empty component
    assert audit_code(demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": cut})) == (0, set())
