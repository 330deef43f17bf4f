"""Every general-purpose flag CPython's `zipfile` refuses to read an entry for fails both
commands: bit 5 (compressed patched data) is W616, bit 6 (strong encryption, refused whether bit
0 is set or not) is W603, on a Python file, a native library and RECORD alike. pip itself is the
oracle: each wheel is installed with the test venv's pip, which must refuse it too, and the same
wheel without the flag installs and passes."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from wheel.pipinstall import pip_install
from wheel.rawwheel import write_wheel
from wheel.test_installed_view import audit_code, codes, wheels_json

NATIVE = "demo/_k.so"  # version-free: the py3-none-any wheel imports it on every Python (W629)
FILES = {"demo/__init__.py": b"VALUE = 1\n", NATIVE: b"\x7fELF" + bytes(200)}
ENTRIES = ("demo/__init__.py", NATIVE, "demo-1.0.dist-info/RECORD")
FLAGS = {0x20: "W616", 0x40: "W603"}
_CENTRAL = b"PK\x01\x02"


def set_central_flag(wheel: Path, member: str, bit: int) -> None:
    """Set `bit` in the general-purpose flags of `member`'s central-directory record only (the
    one `zipfile` tests); every other byte stays as the zip writer left it."""
    data = bytearray(wheel.read_bytes())
    at = data.find(_CENTRAL)
    while at >= 0:
        name_len = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46 : at + 46 + name_len] == member.encode():
            flags = struct.unpack_from("<H", data, at + 8)[0]
            struct.pack_into("<H", data, at + 8, flags | bit)
            wheel.write_bytes(bytes(data))
            return
        at = data.find(_CENTRAL, at + 46)
    raise AssertionError(f"{member} not in {wheel}")


@pytest.mark.parametrize("bit", sorted(FLAGS))
@pytest.mark.parametrize("member", ENTRIES)
def test_a_flag_zipfile_refuses_fails_both_commands(tmp_path: Path, member: str, bit: int) -> None:
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES)
    patch = write_wheel(tmp_path / "p", "demo", "1.0", FILES)
    set_central_flag(patch, member, bit)
    installed = pip_install(patch, tmp_path / "target")
    assert not installed.ok, f"pip installed a wheel with flag {bit:#x} on {member}"
    assert "NotImplementedError" in installed.output, installed.output
    code = FLAGS[bit]
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1, report["findings"]
    assert [f["path"] for f in report["findings"] if f["code"] == code] == [member]
    audit_exit, audit_codes = audit_code(patch)
    assert audit_exit == 1 and code in audit_codes, audit_codes


def test_the_same_wheels_without_the_flag_install_and_pass(tmp_path: Path) -> None:
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES)
    patch = write_wheel(tmp_path / "p", "demo", "1.0", FILES)
    set_central_flag(patch, "demo/__init__.py", 0x10)  # bit 4 (enhanced deflate): zipfile reads
    assert pip_install(patch, tmp_path / "target").ok
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0 and not codes(report) & {"W603", "W616"}, report["findings"]
    audit_exit, audit_codes = audit_code(patch)
    # the stand-in ELF (magic and zeros) has no loader tables k3diff reads: A116, which fails
    # since elf76; nothing about the flag
    assert (audit_exit, audit_codes) == (1, {"A116"}), audit_codes
