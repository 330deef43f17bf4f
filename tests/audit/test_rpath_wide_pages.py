"""PT_LOAD pages as the largest page of the ELF's machine maps them (elf77).

aarch64 and ppc64le kernels may run with 64 KiB pages (RHEL's did). The loader maps each
PT_LOAD over whole pages, in order, so a later segment sharing a 64 KiB page with the first one
replaces it with its own file place's bytes there, though the two share no 4 KiB page. k3diff's
rule assumed 4 KiB pages: an aarch64 library whose extra PT_LOAD in the last 4 KiB of the first
64 KiB maps a copy of the first page with RUNPATH `/tmp/...` passed `audit` and `wheels
--allow-native-changes`, exit 0, while a 64 KiB loader reads that copy's RUNPATH (glibc's
`_dl_map_segments`: each segment from `ALIGN_DOWN(p_offset, pagesize)` at `ALIGN_DOWN(p_vaddr,
pagesize)`). No 64 KiB machine is at hand: the same file as x86-64, whose kernels map 4 KiB
pages only, passes, and its real loader reads the first page's RUNPATH."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from wheel.rawwheel import write_wheel
from wheel.test_installed_view import audit_code, codes, wheels_json

from audit.test_rpath_beside_runpath import _trace
from audit.test_rpath_hijack import library
from audit.test_rpath_loader_reads import ALLOW, EXPLAIN, _helper
from audit.test_rpath_overlapping_loads import _headers

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

WIDE = 0x10000
EM_AARCH64, EM_PPC64 = 183, 21
WIDE_LINK = ("-Wl,-z,max-page-size=0x10000", "-Wl,-z,noseparate-code")
"""As aarch64 linkers lay a library out: segments 64 KiB apart in address, compact in file."""
USES = "extern int helper(void);\nint use(void) { return helper(); }\n"


def _as_machine(data: bytes, machine: int) -> bytes:
    return data[:18] + struct.pack("<H", machine) + data[20:]


def _last_small_page(data: bytes, benign: str, hostile: str) -> bytes:
    """A PT_LOAD (in place of a PT_NOTE) at address 0xF000, the last 4 KiB page of the first
    64 KiB one, from a 64 KiB-aligned place past the file's end holding a copy of its first
    64 KiB whose RUNPATH reads `hostile`."""
    headers = _headers(data)
    loads = [h for h in headers if h[0] == 1]
    first, note = loads[0], next(h for h in headers if h[0] == 4)
    assert first[3] == 0 and first[6] <= 0xF000 and loads[1][3] >= WIDE, loads
    at = (len(data) + WIDE - 1) // WIDE * WIDE
    extra = (1, 4, at + 0xF000, 0xF000, 0xF000, 0x100, 0x100, WIDE)
    ordered = [first, extra, *(h for h in headers if h is not first and h is not note)]
    patched = bytearray(data) + bytes(at - len(data))
    phoff = struct.unpack_from("<Q", data, 32)[0]
    for index, header in enumerate(ordered):
        struct.pack_into("<IIQQQQQQ", patched, phoff + index * 56, *header)
    copy = bytearray(patched[:WIDE].ljust(WIDE, b"\0"))
    where = copy.index(benign.encode() + b"\0")
    copy[where : where + len(benign)] = hostile.encode().ljust(len(benign), b"\0")
    return bytes(patched + copy)


def _wheel(directory: Path, version: str, data: bytes, arch: str) -> Path:
    files = {"demo/__init__.py": b"", "demo/_ext.so": data}
    return write_wheel(directory, "demo", version, files, tag=f"py3-none-manylinux_2_17_{arch}")


def test_a_segment_sharing_a_64k_page_fails_on_aarch64_and_ppc64le(tmp_path: Path) -> None:
    planted = tmp_path / "planted"  # under /tmp: world-writable
    helper = _helper(planted)
    benign = "$ORIGIN/" + "a" * (len(str(planted)) - 8)
    (tmp_path / "u.c").write_text(USES)
    links = (*WIDE_LINK, f"-L{helper.parent}", "-lhelper")
    built = library(tmp_path / "u", benign, runpath=True, source=USES, links=links)
    data = _last_small_page(built, benign, str(planted))
    # x86-64 (4 KiB pages only): the loader reads the first page's RUNPATH, and k3diff passes
    trace = _trace(data, tmp_path / "x86")  # the planted library does not run
    assert f"trying file={planted}/libhelper.so" not in trace and "RUNPATH from file" in trace
    assert audit_code(_wheel(tmp_path / "x", "1.0", data, "x86_64")) == (0, set())
    plain = library(tmp_path / "p", None, links=WIDE_LINK)
    for machine, arch in ((EM_AARCH64, "aarch64"), (EM_PPC64, "ppc64le")):
        wheel = _wheel(tmp_path / f"w{arch}", "1.0", _as_machine(data, machine), arch)
        assert audit_code(wheel) == (1, {"A116"}), arch
        base = _wheel(tmp_path / f"b{arch}", "0.9", _as_machine(plain, machine), arch)
        assert audit_code(base) == (0, set()), arch  # a linker's 64 KiB layout passes
        for options in (ALLOW, EXPLAIN):
            exit_code, report = wheels_json(base, wheel, *options)
            found = codes(report) & {"W632", "W713"}  # --explain: its reading unchecked, W713
            assert exit_code == 1 and found, (arch, options, report["findings"])


def test_segment_shifts_and_pages_at_the_machines_largest_page() -> None:
    """A 4 KiB-apart layout (x86-64's) is refused at 64 KiB: its data segment's shift is no
    multiple of the page (glibc there refuses the file, musl maps other bytes); 64 KiB layouts
    pass; the page is the machine's (EM_AARCH64, EM_PPC64: 64 KiB; x86-64, s390x: 4 KiB)."""
    from k3diff.native.loadmap import loader_page, loads_disagree

    assert [loader_page(m) for m in (62, 22, 40, 243, 183, 21, 9999)] == [
        0x1000, 0x1000, 0x1000, 0x1000, WIDE, WIDE, WIDE
    ]  # fmt: skip
    assert loader_page("EM_AARCH64") == WIDE and loader_page("EM_X86_64") == 0x1000
    gcc = [(0, 0, 0x5A0, 0x5A0), (0x1000, 0x1000, 0x200, 0x200), (0x2E10, 0x3E10, 0x300, 0x300)]
    assert loads_disagree(gcc, 0x1000) is None
    assert "no multiple" in (loads_disagree(gcc, WIDE) or "")
    wide = [(0, 0, 0x7AC, 0x7AC), (0xDF8, 0x10DF8, 0x230, 0x230)]
    assert loads_disagree(wide, WIDE) is None
    shared = [(0, 0, 0x7AC, 0x7AC), (0x20000, 0xF000, 0x100, 0x100), (0xDF8, 0x10DF8, 0x230, 0x230)]
    assert loads_disagree(shared, 0x1000) is None
    assert "64 KiB page" in (loads_disagree(shared, WIDE) or "")
