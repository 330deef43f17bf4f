"""Two tables a second pass fetches at one file offset (review78h).

DT_STRTAB and DT_VERNEED may name one place of the file (the version-need table at the string
table's start: glibc 2.36 loads such a library). The second pass kept both ranges in one
region, one after the other: the bytes past the shorter one were the file's from the offset
again, not what lies there. A dynamic table read from that region was a decoy planted where the
shifted copy put it: RUNPATH `/tmp/...` read as `$ORIGIN/../libs`, audit exit 0. The region is
now the longest range's bytes, each where it lies in the file."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from cli_support import run_k3diff

from audit.test_rpath_hijack import demo_wheel
from k3diff.audit import elfneeds
from k3diff.native import platform as native
from k3diff.native.sparse import collect

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

_DT_STRTAB, _DT_STRSZ, _DT_RUNPATH, _DT_VERNEED = 5, 10, 29, 0x6FFFFFFE
PLANTED = b"/tmp/review78h-planted\0"


@pytest.fixture(autouse=True)
def small_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables lie past the kept prefix (as a big library's lie past 1 MiB)."""
    monkeypatch.setattr(native, "KEPT_PREFIX", 4096)
    monkeypatch.setattr(elfneeds, "KEPT_PREFIX", 4096)


def _elf_hash(name: bytes) -> int:
    value = 0
    for byte in name:
        value = (value << 4) + byte
        high = value & 0xF0000000
        if high:
            value ^= high >> 24
        value &= ~high
    return value


def _forged(directory: Path) -> bytes:
    """A library whose DT_VERNEED is its DT_STRTAB (a valid version-need table at the string
    table's start), RUNPATH `/tmp/...`, and a copy of its dynamic table naming RUNPATH
    `$ORIGIN/../libs` where the shifted copy of the string table put the real one."""
    directory.mkdir(parents=True, exist_ok=True)
    source = '#include <stdio.h>\nvoid hello(void) { puts("x"); }\n' + "\n".join(
        f"int fn_{i:04d}_abcdefghijklmnopqrstuvwxyz(void) {{ return {i}; }}" for i in range(300)
    )
    (directory / "big.c").write_text(source + "\n")
    target = directory / "big.so"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-o", str(target), str(directory / "big.c"),
         "-Wl,-soname,libbig.so", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../libs"],
        check=True, capture_output=True,
    )  # fmt: skip
    data = bytearray(target.read_bytes())
    phoff, phnum = struct.unpack_from("<Q", data, 0x20)[0], struct.unpack_from("<H", data, 0x38)[0]
    dynamic = size = 0
    for index in range(phnum):
        kind, _flags, offset, _vaddr, _paddr, filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + 56 * index
        )
        if kind == 2:
            dynamic, size = offset, filesz
    tags = {struct.unpack_from("<q", data, at)[0]: at for at in range(dynamic, dynamic + size, 16)}
    table = struct.unpack_from("<Q", data, tags[_DT_STRTAB] + 8)[0]  # address == offset here
    length = struct.unpack_from("<Q", data, tags[_DT_STRSZ] + 8)[0]
    struct.pack_into("<Q", data, tags[_DT_VERNEED] + 8, table)
    libc = data.find(b"libc.so.6\0", table) - table
    glibc = data.find(b"GLIBC_2.2.5\0", table) - table
    assert libc > 32 and glibc > 32
    struct.pack_into("<HHIII", data, table, 1, 1, libc, 16, 0)
    struct.pack_into("<IHHII", data, table + 16, _elf_hash(b"GLIBC_2.2.5"), 0, 2, glibc, 0)
    decoy = bytes(data[dynamic : dynamic + size])
    name = data.find(b"fn_0299_abcdefghijklmnopqrstuvwxyz\0", table)
    data[name : name + len(PLANTED)] = PLANTED
    struct.pack_into("<Q", data, tags[_DT_RUNPATH] + 8, name - table)
    data[dynamic - length : dynamic - length + size] = decoy
    return bytes(data)


def test_a_runpath_behind_tables_at_one_offset_is_not_forged(tmp_path: Path) -> None:
    data = _forged(tmp_path / "c")
    wheel = demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": data})
    result = run_k3diff("audit", wheel, "--format", "json")
    findings = [f for a in json.loads(result.stdout)["artifacts"] for f in a["findings"]]
    assert result.exit_code == 1, findings  # was 0: RUNPATH read from the decoy
    assert {f["code"] for f in findings} == {"A139"}, findings
    assert "/tmp/review78h-planted" in findings[0]["detail"]


def test_collect_keeps_the_file_bytes_at_one_offset() -> None:
    data = bytes(range(256)) * 64
    chunks = [data[at : at + 1000] for at in range(0, len(data), 1000)]
    kept = collect(iter(chunks), [(100, 50), (100, 3000), (5000, 10)])
    assert kept == {100: data[100:3100], 5000: data[5000:5010]}
