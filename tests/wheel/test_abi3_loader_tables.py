"""abi3 truth, the tables the loader reads (hunt79): an extension's `Py*` imports are read as
glibc reads them, not as the file's hash tables or first dynamic tags say. Two hostile shapes
of a real extension calling `_PyObject_GetDictPtr` (outside the stable ABI) under `cp38-abi3`
passed `audit` and `wheels`, exit 0, though pip 26 installed them and CPython imported them and
bound the private symbol:

* `DT_HASH`'s `nchain` set to 1 (glibc never reads it; pyelftools counts the symbols by it);
* a decoy `DT_STRTAB` two bytes into the real one, placed before it (glibc keeps the last entry
  of a tag, pyelftools the first: every name read two bytes short, `_PyObject_…` as `yObject_…`).

Both with the section-header table stripped, as the loader never reads it."""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest

from wheel.test_abi3 import PRIVATE, STABLE_OLD, _without_section_headers, abi3_wheel, extension
from wheel.test_installed_view import audit_code, codes, wheels_json

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the extensions")

TAG = "cp38-abi3-linux_x86_64"
DT_NULL, DT_HASH, DT_STRTAB = 0, 4, 5

MODULE = f"""#define Py_LIMITED_API 0x03080000
#include <Python.h>
PyAPI_FUNC(PyObject **) {PRIVATE}(PyObject *);
static PyObject *probe(PyObject *self, PyObject *arg) {{
    return PyLong_FromLong({PRIVATE}(arg) != NULL);
}}
static PyMethodDef methods[] = {{{{"probe", probe, METH_O, NULL}}, {{NULL, NULL, 0, NULL}}}};
static struct PyModuleDef module = {{PyModuleDef_HEAD_INIT, "_ext", NULL, -1, methods}};
PyMODINIT_FUNC PyInit__ext(void) {{ return PyModule_Create(&module); }}
"""


def _dynamic(so: bytearray) -> tuple[int, list[tuple[int, int]], Callable[[int], int]]:
    """The PT_DYNAMIC offset, its entries up to DT_NULL, and an address-to-offset mapping."""
    phoff = struct.unpack_from("<Q", so, 0x20)[0]
    size, count = struct.unpack_from("<HH", so, 0x36)
    loads: list[tuple[int, int, int]] = []
    dynamic = 0
    for index in range(count):
        kind, _, offset, address, _, filesz = struct.unpack_from(
            "<IIQQQQ", so, phoff + index * size
        )
        dynamic = offset if kind == 2 else dynamic
        if kind == 1:
            loads.append((address, offset, filesz))
    entries: list[tuple[int, int]] = []
    while (entry := struct.unpack_from("<qQ", so, dynamic + 16 * len(entries)))[0] != DT_NULL:
        entries.append(entry)

    def offset_of(address: int) -> int:
        return next(o + address - a for a, o, n in loads if a <= address < a + n)

    return dynamic, entries, offset_of


def short_nchain(so: bytes) -> bytes:
    """`DT_HASH`'s `nchain` set to 1, the section table stripped."""
    patched = bytearray(_without_section_headers(so))
    _, entries, offset_of = _dynamic(patched)
    struct.pack_into("<I", patched, offset_of(dict(entries)[DT_HASH]) + 4, 1)
    return bytes(patched)


def decoy_strtab(so: bytes) -> bytes:
    """A `DT_STRTAB` two bytes into the real string table, before the real tag (the linker
    leaves spare DT_NULL entries in `.dynamic`), the section table stripped."""
    patched = bytearray(_without_section_headers(so))
    dynamic, entries, _ = _dynamic(patched)
    entries.insert(0, (DT_STRTAB, dict(entries)[DT_STRTAB] + 2))
    for index, (tag, value) in enumerate([*entries, (DT_NULL, 0)]):
        struct.pack_into("<qQ", patched, dynamic + 16 * index, tag, value)
    return bytes(patched)


def _build(directory: Path, source: str, *flags: str) -> bytes:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "ext.c").write_text(source)
    target = directory / "_ext.abi3.so"
    include = sysconfig.get_paths()["include"]
    command = ["gcc", "-shared", "-fPIC", "-O1", f"-I{include}", *flags, "-o", str(target)]
    subprocess.run([*command, str(directory / "ext.c")], check=True, capture_output=True)
    return target.read_bytes()


SHAPES = [(short_nchain, ("-Wl,--hash-style=sysv",)), (decoy_strtab, ())]


@pytest.mark.parametrize(("forge", "flags"), SHAPES, ids=["nchain", "strtab"])
def test_the_real_loader_binds_the_private_import_the_forged_tables_hide(
    tmp_path: Path, forge: Callable[[bytes], bytes], flags: tuple[str, ...]
) -> None:
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        pytest.skip("Python.h builds the real module")
    so = forge(_build(tmp_path / "c", MODULE, *flags))
    wheel = abi3_wheel(tmp_path / "p", "2.0", TAG, "_ext.abi3.so", so)
    target = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index"]
    subprocess.run([*pip, "--target", str(target), str(wheel)], check=True, capture_output=True)
    probe = "from demo import _ext; print(_ext.probe(type('A', (), {})()))"
    ran = subprocess.run(
        [sys.executable, "-c", probe], cwd=target, capture_output=True, text=True, check=True
    )
    assert ran.stdout.strip() == "1"  # imported, and the private function bound and called
    assert audit_code(wheel) == (1, {"A123"})


@pytest.mark.parametrize(("forge", "flags"), SHAPES, ids=["nchain", "strtab"])
def test_forged_tables_do_not_hide_a_private_import_from_either_command(
    tmp_path: Path, forge: Callable[[bytes], bytes], flags: tuple[str, ...]
) -> None:
    calls = "".join(f"extern void *{name}(); (void){name}();" for name in (*STABLE_OLD, PRIVATE))
    source = f"void *PyInit__ext(void) {{ {calls} return 0; }}\n"
    so = forge(_build(tmp_path / "c", source, *flags))
    wheel = abi3_wheel(tmp_path / "p", "2.0", TAG, "_ext.abi3.so", so)
    assert audit_code(wheel) == (1, {"A123"})
    base = abi3_wheel(tmp_path / "b", "1.0", TAG, "_ext.abi3.so", extension(tmp_path / "c0"))
    exit_code, report = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W625" in codes(report)
    detail = next(f["detail"] for f in report["findings"] if f["code"] == "W625")
    assert PRIVATE in detail


def test_relocations_past_the_file_leave_the_extension_unchecked(tmp_path: Path) -> None:
    """A `DT_RELASZ` running past the file is unreadable, never a shorter count: unchecked,
    which fails like a broken promise."""
    patched = bytearray(extension(tmp_path / "c", *STABLE_OLD))
    dynamic, entries, _ = _dynamic(patched)
    at = next(i for i, (tag, _) in enumerate(entries) if tag == 8)  # DT_RELASZ
    struct.pack_into("<qQ", patched, dynamic + 16 * at, 8, 1 << 40)
    wheel = abi3_wheel(tmp_path / "p", "2.0", TAG, "_ext.abi3.so", bytes(patched))
    assert audit_code(wheel) == (1, {"A123"})
