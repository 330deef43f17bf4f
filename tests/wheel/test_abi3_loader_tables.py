"""abi3 truth, the tables the loader reads (hunt79): an extension's `Py*` imports are read as
glibc reads them, not as the file's hash tables or first dynamic tags say. Two hostile shapes
of a real extension calling `_PyObject_GetDictPtr` (outside the stable ABI) under `cp38-abi3`
passed `audit` and `wheels`, exit 0, though pip 26 installed them and CPython imported them and
bound the private symbol:

* `DT_HASH`'s `nchain` set to 1 (glibc never reads it; pyelftools counts the symbols by it);
* a decoy `DT_STRTAB` two bytes into the real one, placed before it (glibc keeps the last entry
  of a tag, pyelftools the first: every name read two bytes short, `_PyObject_…` as `yObject_…`).

Both with the section-header table stripped, as the loader never reads it. A third passed
after them (review79a): a `DT_PLTRELSZ` one byte into the last PLT relocation, the one naming
the private symbol (moved last, and to the highest index): glibc's `r < end` binds it, the
count read whole entries only."""

from __future__ import annotations

import json
import resource
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

TAG = "cp38-abi3-manylinux_2_17_x86_64"
DT_NULL, DT_PLTRELSZ, DT_HASH, DT_STRTAB, DT_SYMTAB, DT_RELA, DT_RELASZ = 0, 2, 4, 5, 6, 7, 8
DT_STRSZ, DT_JMPREL, DT_VERSYM = 10, 23, 0x6FFFFFF0
ENTRY = 24  # an Elf64_Sym, an Elf64_Rela

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


def _swap(data: bytearray, first: int, second: int, size: int) -> None:
    data[first : first + size], data[second : second + size] = (
        data[second : second + size],
        data[first : first + size],
    )


def partial_last_relocation(so: bytes) -> bytes:
    """The private symbol moved to the highest index (its symbol, version and relocations
    swapped with the highest's), its PLT relocation moved last, `DT_PLTRELSZ` one byte into
    that entry, `DT_HASH`'s `nchain` 1, the section table stripped."""
    patched = bytearray(_without_section_headers(so))
    dynamic, entries, offset_of = _dynamic(patched)
    tags = dict(entries)
    symtab, strtab = offset_of(tags[DT_SYMTAB]), offset_of(tags[DT_STRTAB])
    dyn = [offset_of(tags[DT_RELA]) + i * ENTRY for i in range(tags[DT_RELASZ] // ENTRY)]
    plt = [offset_of(tags[DT_JMPREL]) + i * ENTRY for i in range(tags[DT_PLTRELSZ] // ENTRY)]

    def symbol(at: int) -> int:
        return int(struct.unpack_from("<Q", patched, at + 8)[0] >> 32)

    def name(index: int) -> bytes:
        start = strtab + struct.unpack_from("<I", patched, symtab + index * ENTRY)[0]
        return bytes(patched[start : patched.index(0, start)])

    highest = max(symbol(at) for at in dyn + plt)
    private = next(symbol(at) for at in plt if name(symbol(at)) == PRIVATE.encode())
    _swap(patched, symtab + private * ENTRY, symtab + highest * ENTRY, ENTRY)
    if DT_VERSYM in tags:
        versym = offset_of(tags[DT_VERSYM])
        _swap(patched, versym + 2 * private, versym + 2 * highest, 2)
    renamed = {private: highest, highest: private}
    for at in dyn + plt:
        info = struct.unpack_from("<Q", patched, at + 8)[0]
        moved = renamed.get(info >> 32, info >> 32) << 32 | info & 0xFFFFFFFF
        struct.pack_into("<Q", patched, at + 8, moved)
    _swap(patched, next(at for at in plt if symbol(at) == highest), plt[-1], ENTRY)
    struct.pack_into("<I", patched, offset_of(tags[DT_HASH]) + 4, 1)
    at = next(i for i, (tag, _) in enumerate(entries) if tag == DT_PLTRELSZ)
    struct.pack_into("<qQ", patched, dynamic + 16 * at, DT_PLTRELSZ, len(plt) * ENTRY - ENTRY + 1)
    return bytes(patched)


def _build(directory: Path, source: str, *flags: str) -> bytes:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "ext.c").write_text(source)
    target = directory / "_ext.abi3.so"
    include = sysconfig.get_paths()["include"]
    command = ["gcc", "-shared", "-fPIC", "-O1", f"-I{include}", *flags, "-o", str(target)]
    subprocess.run([*command, str(directory / "ext.c")], check=True, capture_output=True)
    return target.read_bytes()


SYSV = ("-Wl,--hash-style=sysv",)
SHAPES = [(short_nchain, SYSV), (decoy_strtab, ()), (partial_last_relocation, SYSV)]
IDS = ["nchain", "strtab", "partial"]


@pytest.mark.parametrize(("forge", "flags"), SHAPES, ids=IDS)
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


@pytest.mark.parametrize(("forge", "flags"), SHAPES, ids=IDS)
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


def test_relocations_past_their_segment_leave_the_extension_unchecked(tmp_path: Path) -> None:
    """A `DT_RELASZ` running past the file bytes of the PT_LOAD the table starts in, though not
    past the file, is unreadable too (review79a: it passed, exit 0): the loader reads there
    another segment's bytes or zeros, not the file's next bytes, as A116 holds for the dynamic
    table and its strings."""
    patched = bytearray(extension(tmp_path / "c", *STABLE_OLD))
    dynamic, entries, offset_of = _dynamic(patched)
    tags = dict(entries)
    start = offset_of(tags[DT_RELA])
    phoff = struct.unpack_from("<Q", patched, 0x20)[0]
    size, count = struct.unpack_from("<HH", patched, 0x36)
    end = next(
        offset + filesz
        for kind, _, offset, _, _, filesz in (
            struct.unpack_from("<IIQQQQ", patched, phoff + index * size) for index in range(count)
        )
        if kind == 1 and offset <= start < offset + filesz
    )
    past = (end - start) // ENTRY * ENTRY + ENTRY
    assert start + past < len(patched)  # past the segment's file bytes, not past the file
    at = next(i for i, (tag, _) in enumerate(entries) if tag == DT_RELASZ)
    struct.pack_into("<qQ", patched, dynamic + 16 * at, DT_RELASZ, past)
    wheel = abi3_wheel(tmp_path / "p", "2.0", TAG, "_ext.abi3.so", bytes(patched))
    assert audit_code(wheel) == (1, {"A123"})


def undefined_python_names(so: bytes, count: int, distinct: int, width: int) -> bytes:
    """`count` undefined global symbols appended (`appended_table`), each a name at one of
    `distinct` offsets into a string table `Py…Py…` of `width` bytes each (`Py`: one name of
    4 KiB a start, `Py` and digits: a distinct one each)."""
    digits = [b"%0*d" % (width - 2, i) if width > 2 else b"" for i in range(distinct)]
    strings = b"\0" + b"".join(b"Py" + tail for tail in digits) + b"\0"
    symbol = struct.Struct("<IBBHQQ")
    symbols = b"".join(
        symbol.pack(1 + width * (i % distinct), 0x10, 0, 0, 0, 0) for i in range(count)
    )
    return appended_table(so, strings, symbols)


def appended_table(so: bytes, strings: bytes, symbols: bytes, unmapped: int = 0) -> bytes:
    """`strings` then `symbols` appended, with `DT_STRTAB`, `DT_STRSZ`, `DT_SYMTAB` and
    `DT_HASH`'s `nchain` naming them, the last PT_LOAD extended over all but the last
    `unmapped` bytes, the section table stripped."""
    patched = bytearray(_without_section_headers(so))
    dynamic, entries, offset_of = _dynamic(patched)
    patched += bytes(-len(patched) % 0x1000)
    start = len(patched)
    patched += strings + bytes(-len(strings) % 8) + symbols
    phoff = struct.unpack_from("<Q", patched, 0x20)[0]
    size, headers = struct.unpack_from("<HH", patched, 0x36)
    loads = [
        phoff + i * size
        for i in range(headers)
        if struct.unpack_from("<I", patched, phoff + i * size)[0] == 1
    ]
    last = max(loads, key=lambda at: struct.unpack_from("<Q", patched, at + 8)[0])
    offset, address = struct.unpack_from("<QQ", patched, last + 8)
    mapped = len(patched) - unmapped - offset
    struct.pack_into("<QQ", patched, last + 32, mapped, mapped)
    moved = {DT_STRTAB: start, DT_SYMTAB: len(patched) - len(symbols)}
    for index, (tag, value) in enumerate(entries):
        if tag in moved or tag == DT_STRSZ:
            new = moved[tag] + address - offset if tag in moved else len(strings)
            struct.pack_into("<qQ", patched, dynamic + 16 * index, tag, new)
        if tag == DT_HASH:
            struct.pack_into("<I", patched, offset_of(value) + 4, len(symbols) // ENTRY)
    return bytes(patched)


@pytest.mark.parametrize(("distinct", "width"), [(32_768, 2), (400_000, 8)], ids=["same", "all"])
def test_python_names_by_the_hundred_thousand_are_read_in_bounded_memory(
    tmp_path: Path, distinct: int, width: int
) -> None:
    """600,000 undefined `Py*` symbols (a 14 MB extension, a wheel of 1 to 3 MB) naming 4 KiB
    names, a few thousand distinct or 400,000: `audit` in a child of 1 GiB of address space
    reaches its verdict (review79a: each name kept once per symbol, 2.4 GB, it ran out of
    memory, exit 2; a million took 4 GB, 20 s). Over 65,536 distinct names is unchecked."""
    source = "extern void *PyLong_FromLong(); void *PyInit__ext(void) { return PyLong_FromLong(); }"
    built = _build(tmp_path / "c", source, *SYSV)
    so = undefined_python_names(built, 600_000, distinct, width)
    wheel = abi3_wheel(tmp_path / "p", "2.0", TAG, "_ext.abi3.so", so)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    done = subprocess.run(
        [sys.executable, "-m", "k3diff", "audit", str(wheel), "--format", "json"],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    (artifact,) = json.loads(done.stdout)["artifacts"]
    assert {finding["code"] for finding in artifact["findings"]} == {"A123"}


def test_a_relocation_naming_a_symbol_past_its_segment_leaves_it_unchecked(
    tmp_path: Path,
) -> None:
    """A relocation naming a `DT_SYMTAB` entry past the file bytes of the PT_LOAD the table
    starts in: the loader reads that entry where its address maps (another segment's bytes,
    zeros), not the file's next bytes, which k3diff read (review79a: benign bytes there passed,
    exit 0, whatever the loader bound)."""
    source = "extern void *PyLong_FromLong(); void *PyInit__ext(void) { return PyLong_FromLong(); }"
    patched = bytearray(
        appended_table(_build(tmp_path / "c", source, *SYSV), b"\0", bytes(16 * ENTRY), 8 * ENTRY)
    )
    _, entries, offset_of = _dynamic(patched)
    tags = dict(entries)
    struct.pack_into("<Q", patched, offset_of(tags[DT_RELA]) + 8, 12 << 32 | 6)  # GLOB_DAT of 12
    wheel = abi3_wheel(tmp_path / "p", "2.0", TAG, "_ext.abi3.so", bytes(patched))
    assert audit_code(wheel) == (1, {"A123"})
