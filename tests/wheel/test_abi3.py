"""abi3 truth: an extension of a wheel tagged `cpXY-abi3` imports only stable-ABI symbols no
newer than 3.Y and is not named for one CPython version. Extensions are built with gcc on the
fly (undefined references to the symbols named, as a real extension has them); the verdicts
are held against abi3audit where it is installed."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.rawwheel import write_wheel
from wheel.test_installed_view import audit_code, codes, wheels_json

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the extensions")

STABLE_OLD = ("PyLong_FromLong", "PyArg_ParseTuple")
"""In the stable ABI since 3.2."""
STABLE_310 = "PyUnicode_AsUTF8AndSize"
"""In the stable ABI from 3.10."""
PRIVATE = "_PyObject_GetDictPtr"
"""Never in the stable ABI."""


def extension(directory: Path, *imports: str) -> bytes:
    """A shared object whose `PyInit__ext` calls each of `imports` (left undefined)."""
    directory.mkdir(parents=True, exist_ok=True)
    source = directory / "ext.c"
    calls = "".join(f"extern void *{name}(); (void){name}();" for name in imports)
    source.write_text(f"void *PyInit__ext(void) {{ {calls} return 0; }}\n")
    target = directory / "ext.so"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-O0", "-o", str(target), str(source)],
        check=True,
        capture_output=True,
    )
    return target.read_bytes()


def abi3_wheel(directory: Path, version: str, tag: str, name: str, so: bytes) -> Path:
    files = {"demo/__init__.py": b"", f"demo/{name}": so}
    return write_wheel(directory, "demo", version, files, tag=tag)


def abi3audit_fails(wheel: Path, tmp_path: Path) -> bool | None:
    """abi3audit's verdict (True: it fails the wheel), None where it is not installed."""
    tool = shutil.which("abi3audit") or str(Path(sys.executable).parent / "abi3audit")
    if not Path(tool).exists():
        return None
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run(
        [tool, "--strict", str(wheel)], capture_output=True, text=True, env=env, timeout=120
    )
    return done.returncode != 0


def test_an_extension_using_newer_and_private_symbols_fails_both_commands(
    tmp_path: Path,
) -> None:
    so = extension(tmp_path / "c", *STABLE_OLD, STABLE_310, PRIVATE)
    wheel = abi3_wheel(tmp_path / "p", "2.0", "cp36-abi3-linux_x86_64", "_ext.abi3.so", so)
    exit_code, found = audit_code(wheel)
    assert exit_code == 1 and "A123" in found
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    detail = next(
        f["detail"] for a in report["artifacts"] for f in a["findings"] if f["code"] == "A123"
    )
    assert PRIVATE in detail and f"{STABLE_310} (stable from 3.10)" in detail
    assert "PyLong_FromLong" not in detail
    clean = extension(tmp_path / "c0", *STABLE_OLD)
    base = abi3_wheel(tmp_path / "b", "1.0", "cp36-abi3-linux_x86_64", "_ext.abi3.so", clean)
    exit_code, wheels = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W625" in codes(wheels)
    assert abi3audit_fails(wheel, tmp_path) in (True, None)


def test_an_extension_within_its_tag_passes_and_explain_says_it_needs_a_newer_abi(
    tmp_path: Path,
) -> None:
    old = extension(tmp_path / "c0", *STABLE_OLD)
    new = extension(tmp_path / "c1", *STABLE_OLD, STABLE_310)
    tag = "cp310-abi3-linux_x86_64"
    base = abi3_wheel(tmp_path / "b", "1.0", tag, "_ext.abi3.so", old)
    patch = abi3_wheel(tmp_path / "p", "2.0", tag, "_ext.abi3.so", new)
    assert audit_code(patch) == (1, {"A141"})  # A141: PyPI refuses the tag (hunt80)
    assert abi3audit_fails(patch, tmp_path) in (False, None)
    exit_code, report = wheels_json(base, patch, "--allow-native-changes")
    assert exit_code == 0 and "W625" not in codes(report)
    assert "W626" not in codes(report)  # only --explain compares the stable ABI versions
    exit_code, report = wheels_json(base, patch, "--allow-native-changes", "--explain")
    assert exit_code == 0
    detail = next(f["detail"] for f in report["findings"] if f["code"] == "W626")
    assert "needs the 3.10 stable ABI (the base's extension: 3.2)" in detail


def test_an_extension_named_for_one_cpython_fails_in_an_abi3_wheel(tmp_path: Path) -> None:
    so = extension(tmp_path / "c", *STABLE_OLD)
    name = "_C.cpython-312-x86_64-linux-gnu.so"
    wheel = abi3_wheel(tmp_path / "p", "2.0", "cp38-abi3-manylinux_2_17_x86_64", name, so)
    exit_code, found = audit_code(wheel)
    assert exit_code == 1 and found == {"A123"}
    # The same file in a wheel tagged for CPython 3.12 alone is what its name says.
    plain = abi3_wheel(tmp_path / "q", "2.0", "cp312-cp312-manylinux_2_17_x86_64", name, so)
    assert audit_code(plain) == (0, set())


def _without_section_headers(so: bytes) -> bytes:
    """The shared object with its section-header table gone (e_shoff, e_shnum, e_shstrndx 0):
    the dynamic loader reads program headers only, so it still loads."""
    stripped = bytearray(so)
    struct.pack_into("<Q", stripped, 0x28, 0)
    struct.pack_into("<HHH", stripped, 0x3A, 0, 0, 0)
    return bytes(stripped)


def test_stripped_section_headers_do_not_hide_private_symbols(tmp_path: Path) -> None:
    """The symbols are read where the loader reads them (PT_DYNAMIC), not only from .dynsym:
    with the section table stripped the private import is still found (it passed before)."""
    so = _without_section_headers(extension(tmp_path / "c", *STABLE_OLD, PRIVATE))
    wheel = abi3_wheel(tmp_path / "p", "2.0", "cp36-abi3-linux_x86_64", "_ext.abi3.so", so)
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    details = [
        f["detail"] for a in report["artifacts"] for f in a["findings"] if f["code"] == "A123"
    ]
    assert len(details) == 1 and PRIVATE in details[0]
    clean = extension(tmp_path / "c0", *STABLE_OLD)
    base = abi3_wheel(tmp_path / "b", "1.0", "cp36-abi3-linux_x86_64", "_ext.abi3.so", clean)
    exit_code, wheels = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W625" in codes(wheels)


def test_an_extension_whose_symbols_cannot_be_read_is_unchecked_not_passed(
    tmp_path: Path,
) -> None:
    """No dynamic table to read at all (section table stripped, PT_DYNAMIC turned into a null
    segment): the stable-ABI promise is unchecked, which fails like a broken promise."""
    so = bytearray(_without_section_headers(extension(tmp_path / "c", *STABLE_OLD)))
    phoff, phentsize, phnum = (
        struct.unpack_from("<Q", so, 0x20)[0],
        *struct.unpack_from("<HH", so, 0x36),
    )
    for index in range(phnum):
        at = phoff + index * phentsize
        if struct.unpack_from("<I", so, at)[0] == 2:  # PT_DYNAMIC
            struct.pack_into("<I", so, at, 0)  # PT_NULL
    wheel = abi3_wheel(tmp_path / "p", "2.0", "cp36-abi3-linux_x86_64", "_ext.abi3.so", bytes(so))
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    details = [
        f["detail"] for a in report["artifacts"] for f in a["findings"] if f["code"] == "A123"
    ]
    assert len(details) == 1 and "could not be read" in details[0] and "unchecked" in details[0]
    assert audit_code(wheel) == (1, {"A123", "A141"})  # A141: PyPI refuses the tag (hunt80)


@pytest.mark.parametrize("library", ["demo/libhelper.so.1", "demo.libs/libcore.abi3.so.6.11"])
def test_a_versioned_library_beside_the_extensions_is_held_to_the_tag(
    tmp_path: Path, library: str
) -> None:
    """A shared library named as auditwheel and CMake version them (`libshiboken6.abi3.so.6.11`,
    `libfoo-1a2b.so.1`) whose `Py*` imports the loader binds to the interpreter when the
    extension needing it is imported: a private one breaks the tag as the extension's own would
    (it passed before, unread)."""
    clean = extension(tmp_path / "c0", *STABLE_OLD)
    helper = extension(tmp_path / "c1", *STABLE_OLD, PRIVATE)
    files = {"demo/__init__.py": b"", "demo/_ext.abi3.so": clean, library: helper}
    tag = "cp39-abi3-manylinux_2_17_x86_64"
    wheel = write_wheel(tmp_path / "p", "demo", "2.0", files, tag=tag)
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    found = [
        (f["code"], f["path"], f["detail"]) for a in report["artifacts"] for f in a["findings"]
    ]
    assert [(code, path) for code, path, _ in found] == [("A123", library)], found
    assert PRIVATE in found[0][2]
    assert audit_code(wheel) == (1, {"A123"})
    base = abi3_wheel(tmp_path / "b", "1.0", tag, "_ext.abi3.so", clean)
    exit_code, wheels = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W625" in codes(wheels)
    # The same library importing only stable names passes.
    files[library] = clean
    fine = write_wheel(tmp_path / "q", "demo", "2.0", files, tag=tag)
    assert audit_code(fine) == (0, set())
