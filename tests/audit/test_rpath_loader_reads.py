"""Search paths read as glibc's loader reads them, and never passed unread (elf76).

- `wheels --allow-native-changes` without `--explain` compared natives by hash only: a rebuilt
  `.so` that gained RUNPATH `/tmp/...` or `.` passed, exit 0. It is W632 now (W633 for a
  leftover), each changed or added native read up to its dynamic segment.
- An ELF with two DT_STRTAB: k3diff read the first, the loader reads the last (proved below
  with `LD_DEBUG=libs`), so a decoy table showed `$ORIGIN` where the loader searched `/tmp`:
  `audit` passed it, exit 0. A string section the section table names (pyelftools' choice
  when sections exist) was read instead of DT_STRTAB: `wheels --explain` passed a decoy there.
- A table k3diff cannot read but the loader can (a RUNPATH that is not UTF-8) was A116, a
  warning, and A139 went unchecked: exit 0. A116 fails now."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from wheel.test_installed_view import audit_code, codes, wheels_json

from audit.test_rpath_hijack import demo_wheel, library

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

PLANTED = (
    "#include <stdio.h>\n__attribute__((constructor)) static void planted(void) "
    '{ puts("PLANTED LIBRARY RAN"); fflush(stdout); }\nint helper(void) { return 2; }\n'
)
USES = "extern int helper(void);\nint use(void) { return helper(); }\n"
ALLOW = ("--allow-native-changes",)
EXPLAIN = ("--explain", "--allow-native-changes")


def test_allowed_native_changes_without_explain_fail_a_new_risky_search_path(
    tmp_path: Path,
) -> None:
    plain = library(tmp_path / "plain", None)
    base = demo_wheel(tmp_path / "b", "1.0", {"demo/_ext.so": plain})
    cases = [
        ({"demo/_ext.so": library(tmp_path / "t", "/tmp/build/lib", runpath=True)}, "W632"),
        ({"demo/_ext.so": plain, "demo/_new.so": library(tmp_path / "d", ".")}, "W632"),
        ({"demo/_ext.so": library(tmp_path / "o", "/opt/_internal/lib")}, "W633"),
        ({"demo/_ext.so": library(tmp_path / "s", "$ORIGIN/../demo.libs")}, None),
    ]
    for n, (files, code) in enumerate(cases):
        patch = demo_wheel(tmp_path / f"p{n}", "2.0", files)
        exit_code, report = wheels_json(base, patch, *ALLOW)
        found = codes(report) & {"W632", "W633"}
        assert found == ({code} if code else set()), (n, report["findings"])
        assert exit_code == (1 if code == "W632" else 0), (n, report["findings"])
    (finding,) = (f for f in wheels_json(base, demo_wheel(tmp_path / "p1", "2.0", cases[1][0]),
                                         *ALLOW)[1]["findings"] if f["code"] == "W632")  # fmt: skip
    assert finding["path"] == "demo/_new.so" and finding["detail"].startswith("added; RPATH")


def test_allowed_native_changes_keep_a_risky_path_the_base_had(tmp_path: Path) -> None:
    """The base's own search paths are `audit`'s business (review75g), as under `--explain`."""
    old = library(tmp_path / "old", "lib:$ORIGIN")
    kept = library(tmp_path / "kept", "lib:$ORIGIN", source="int plain(void) { return 3; }\n")
    base = demo_wheel(tmp_path / "b", "1.0", {"demo/_ext.so": old})
    exit_code, report = wheels_json(base, demo_wheel(tmp_path / "p", "2.0", {"demo/_ext.so": kept}),
                                    *ALLOW)  # fmt: skip
    assert exit_code == 0 and not codes(report) & {"W632", "W633"}, report["findings"]


def _dynamic(data: bytes | bytearray) -> Iterator[tuple[int, int, int]]:
    """(file offset, d_tag, d_val) of each entry of a little-endian ELF64's PT_DYNAMIC."""
    phoff = struct.unpack_from("<Q", data, 32)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    for index in range(phnum):
        kind, _flags, offset, _vaddr, _paddr, size = struct.unpack_from(
            "<IIQQQQ", data, phoff + index * phentsize
        )
        if kind == 2:
            for at in range(offset, offset + size, 16):
                tag, value = struct.unpack_from("<qQ", data, at)
                yield at, tag, value
                if tag == 0:
                    return


def _decoy_strtab(data: bytes) -> bytes:
    """The DT_SONAME entry (string `$ORIGIN`) turned into a first DT_STRTAB, shifted so that the
    RUNPATH's offset names `$ORIGIN` in it; the real DT_STRTAB comes after it."""
    patched = bytearray(data)
    entries = list(_dynamic(data))
    table = next(value for _, tag, value in entries if tag == 5)
    at, _, soname = next(entry for entry in entries if entry[1] == 14)
    runpath = next(value for _, tag, value in entries if tag == 29)
    struct.pack_into("<qQ", patched, at, 5, table + soname - runpath)
    return bytes(patched)


def _helper(directory: Path) -> Path:
    """`libhelper.so`, whose constructor says it ran."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "h.c").write_text(PLANTED)
    target = directory / "libhelper.so"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-Wl,-soname,libhelper.so", "-o", str(target),
         str(directory / "h.c")],
        check=True, capture_output=True,
    )  # fmt: skip
    return target


def _user(directory: Path, runpath: str | bytes, helper: Path, soname: str = "$ORIGIN") -> bytes:
    """A library needing libhelper.so, RUNPATH `runpath`, built by gcc."""
    (directory / "m.c").write_text(USES)
    target = directory / "m.so"
    flag = b"-Wl,--enable-new-dtags,-rpath," + os.fsencode(runpath)
    subprocess.run(
        [b"gcc", b"-shared", b"-fPIC", b"-o", os.fsencode(target), os.fsencode(directory / "m.c"),
         os.fsencode(f"-Wl,-soname,{soname}"), flag, os.fsencode(f"-L{helper.parent}"), b"-lhelper"],
        check=True, capture_output=True,
    )  # fmt: skip
    return target.read_bytes()


def _loads_planted(library_bytes: bytes, where: Path) -> str:
    """`LD_DEBUG=libs`' account of loading the library with ctypes from a clean directory,
    asserting the planted helper ran."""
    path = where / "loaded.so"
    path.write_bytes(library_bytes)
    run = subprocess.run(
        [sys.executable, "-c", f"import ctypes; ctypes.CDLL({str(path)!r})"],
        cwd=where, capture_output=True, text=True, errors="replace", env={**os.environ, "LD_DEBUG": "libs"},
    )  # fmt: skip
    assert "PLANTED LIBRARY RAN" in run.stdout, run.stderr[-2000:]
    return run.stderr


def test_two_dt_strtab_are_read_as_the_loader_reads_them(tmp_path: Path) -> None:
    planted = tmp_path / "planted"  # under /tmp: world-writable
    helper = _helper(planted)
    decoy = _decoy_strtab(_user(tmp_path, str(planted), helper))
    trace = _loads_planted(decoy, tmp_path)  # glibc: the last DT_STRTAB, RUNPATH = planted
    assert f"trying file={planted}/libhelper.so" in trace and "RUNPATH from file" in trace
    wheel = demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": decoy})
    assert audit_code(wheel) == (1, {"A139"})
    base = demo_wheel(tmp_path / "b", "0.9", {"demo/_ext.so": library(tmp_path / "p", None)})
    for options in (ALLOW, EXPLAIN):
        exit_code, report = wheels_json(base, wheel, *options)
        assert exit_code == 1 and "W632" in codes(report), (options, report["findings"])


def test_a_decoy_string_section_is_not_read(tmp_path: Path) -> None:
    """The section table's `.dynstr` moved 8 bytes back (the loader reads no section):
    `wheels --explain` read RUNPATH `$ORIGIN` there, and passed."""
    planted = tmp_path / "planted"
    helper = _helper(planted)
    data = bytearray(_user(tmp_path, str(planted), helper))
    entries = list(_dynamic(data))
    shift = next(v for _, t, v in entries if t == 29) - next(v for _, t, v in entries if t == 14)
    shoff = struct.unpack_from("<Q", data, 40)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    table = next(value for _, tag, value in entries if tag == 5)
    for index in range(shnum):
        header = shoff + index * shentsize
        if struct.unpack_from("<I", data, header + 4)[0] == 3:  # SHT_STRTAB
            address, offset = struct.unpack_from("<QQ", data, header + 16)
            if address == table:
                struct.pack_into("<Q", data, header + 24, offset - shift)
    _loads_planted(bytes(data), tmp_path)
    wheel = demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": bytes(data)})
    base = demo_wheel(tmp_path / "b", "0.9", {"demo/_ext.so": library(tmp_path / "p", None)})
    exit_code, report = wheels_json(base, wheel, *EXPLAIN)
    assert exit_code == 1 and "W632" in codes(report), report["findings"]


def test_tables_the_loader_reads_but_k3diff_cannot_fail(tmp_path: Path) -> None:
    """A RUNPATH that is not UTF-8 (a directory `ev\\xff` under /tmp): the loader searches it
    and runs the planted library; k3diff cannot read the table (A116): that fails now."""
    planted = Path(os.fsdecode(os.fsencode(tmp_path) + b"/ev\xff"))
    helper = _helper(planted)
    data = _user(tmp_path, os.fsencode(planted), helper)
    _loads_planted(data, tmp_path)
    wheel = demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": data})
    assert audit_code(wheel) == (1, {"A116"})
    base = demo_wheel(tmp_path / "b", "0.9", {"demo/_ext.so": library(tmp_path / "p", None)})
    exit_code, report = wheels_json(base, wheel, *ALLOW)
    (finding,) = (f for f in report["findings"] if f["code"] == "W632")
    assert exit_code == 1 and "search paths unchecked" in finding["detail"]


def test_two_dynamic_segments_are_refused(tmp_path: Path) -> None:
    """A second PT_DYNAMIC (the loader reads the last; k3diff read both): unchecked, A116."""
    data = bytearray(library(tmp_path / "c", "$ORIGIN"))
    phoff = struct.unpack_from("<Q", data, 32)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    headers = [phoff + index * phentsize for index in range(phnum)]
    dynamic = next(h for h in headers if struct.unpack_from("<I", data, h)[0] == 2)
    stack = next(h for h in headers if struct.unpack_from("<I", data, h)[0] == 0x6474E551)
    data[stack : stack + phentsize] = data[dynamic : dynamic + phentsize]
    wheel = demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": bytes(data)})
    assert audit_code(wheel) == (1, {"A116"})
