"""review74a: the loader's own versions, glibc libraries under a musllinux tag, and natives whose
loader tables cannot be read, against `audit` (A115) and `wheels --explain` (W713)."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from cli_support import run_k3diff
from elftools.elf.elffile import ELFFile

from wheel.test_installed_view import BASE_FILES, audit_code
from wheel.test_platform import compile_library, needs_of, tagged
from wheel.tricks import build

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

STRLEN = "#include <string.h>\nint go(const char *s) { return (int)strlen(s); }\n"


def unreadable_version_needs(library: bytes, tmp_path: Path) -> bytes:
    """`library` with its first Elf_Verneed's vn_aux pointing past the end of the file: the
    sections and symbols read, the version needs do not."""
    (tmp_path / "probe.so").write_bytes(library)
    with open(tmp_path / "probe.so", "rb") as handle:
        section = ELFFile(handle).get_section_by_name(".gnu.version_r")
        assert section is not None
        offset = int(section["sh_offset"])
    data = bytearray(library)
    struct.pack_into("<I", data, offset + 8, 0x7FFF0000)  # vn_aux
    return bytes(data)


def test_unreadable_loader_tables_fail_wheels_explain_under_the_allowance(
    tmp_path: Path,
) -> None:
    """review74: no W713 when a changed native's tables could not be read, so
    `--allow-native-changes` passed it (exit 0) whatever glibc the patch needs."""
    old = compile_library(tmp_path, STRLEN, "old")
    new = unreadable_version_needs(compile_library(tmp_path, STRLEN + "int x;\n", "new"), tmp_path)
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, "demo/_lib.so": old})
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo/_lib.so": new})
    result = run_k3diff(
        "wheels", base, patch, "--explain", "--allow-native-changes", "--format", "json"
    )
    assert result.exit_code == 1, result.stdout
    failing = [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]
    assert [f["code"] for f in failing] == ["W713"]
    assert "loader tables unreadable" in failing[0]["detail"]
    readable = build(tmp_path / "r", "2.0", {**BASE_FILES, "demo/_lib.so": old + b"\0"})
    assert (
        run_k3diff("wheels", base, readable, "--explain", "--allow-native-changes").exit_code == 0
    )


def stub(directory: Path, soname: str, version: str | None, symbol: str) -> Path:
    """A library of `soname` defining `symbol`, under `version` when given."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{symbol}.c").write_text(f"int {symbol}(void) {{ return 0; }}\n")
    command = ["gcc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", str(directory / soname)]
    if version is not None:
        (directory / "v.map").write_text(f"{version} {{ global: {symbol}; local: *; }};\n")
        command.append(f"-Wl,--version-script={directory / 'v.map'}")
    subprocess.run([*command, str(directory / f"{symbol}.c")], check=True)
    return directory / soname


def calling(tmp_path: Path, name: str, library: Path, symbol: str) -> bytes:
    source = f"extern int {symbol}(void);\n{STRLEN}int call(void) {{ return {symbol}(); }}\n"
    return compile_library(tmp_path, source, name, str(library))


def readelf_needs(tmp_path: Path, library: bytes) -> str:
    """`readelf -V`'s version needs ('' where there is no readelf)."""
    if shutil.which("readelf") is None:
        return ""
    (tmp_path / "shown.so").write_bytes(library)
    shown = subprocess.run(["readelf", "-V", str(tmp_path / "shown.so")], capture_output=True)
    return shown.stdout.decode()


def test_glibc_private_of_the_loader_is_not_judged(tmp_path: Path) -> None:
    """review74a: `GLIBC_PRIVATE` needed of `ld-linux-x86-64.so.2` (old sanitizer runtimes'
    `_dl_get_tls_static_info`) failed A115 under every manylinux tag, where auditwheel skips
    the loader's entries; libc's `GLIBC_PRIVATE` still fails."""
    loader = stub(
        tmp_path / "ld", "ld-linux-x86-64.so.2", "GLIBC_PRIVATE", "_dl_get_tls_static_info"
    )
    library = calling(tmp_path, "sanitizer", loader, "_dl_get_tls_static_info")
    shown = readelf_needs(tmp_path, library)
    assert not shown or ("File: ld-linux-x86-64.so.2" in shown and "GLIBC_PRIVATE" in shown)
    assert needs_of(library).other_versions == ()
    assert audit_code(tagged(tmp_path, library, "manylinux_2_17_x86_64")) == (0, set())
    # the loader's numbered versions are judged as any: the loader refuses a newer one
    newer = stub(tmp_path / "ld235", "ld-linux-x86-64.so.2", "GLIBC_2.35", "__rseq_size")
    rseq = calling(tmp_path, "rseq", newer, "__rseq_size")
    assert audit_code(tagged(tmp_path, rseq, "manylinux_2_17_x86_64")) == (1, {"A115"})
    libc = stub(tmp_path / "libc", "libc.so.6", "GLIBC_PRIVATE", "__libc_secret")
    private = calling(tmp_path, "private", libc, "__libc_secret")
    assert audit_code(tagged(tmp_path, private, "manylinux_2_41_x86_64")) == (1, {"A115"})


def test_glibc_libraries_fail_under_a_musllinux_tag(tmp_path: Path) -> None:
    """review74a: an ELF naming glibc's libraries in DT_NEEDED but no `GLIBC_` version (the
    loader's `GLIBC_PRIVATE`, or none at all) passed `audit` under `musllinux_1_2`, exit 0: no
    musl system has `libc.so.6` or `ld-linux-x86-64.so.2`."""
    loader = stub(
        tmp_path / "ld", "ld-linux-x86-64.so.2", "GLIBC_PRIVATE", "_dl_get_tls_static_info"
    )
    libc = stub(tmp_path / "libc", "libc.so.6", None, "plain_call")
    for name, library, symbol in (
        ("libc", libc, "plain_call"),
        ("ld", loader, "_dl_get_tls_static_info"),
    ):
        source = f"extern int {symbol}(void);\nint call(void) {{ return {symbol}(); }}\n"
        built = compile_library(tmp_path, source, f"musl_{name}", str(library), "-nostdlib")
        assert not [n for n in needs_of(built).other_versions if n.startswith("GLIBC")]
        assert needs_of(built).glibc is None, name
        assert audit_code(tagged(tmp_path, built, "musllinux_1_2_x86_64")) == (1, {"A115"}), name
        assert audit_code(tagged(tmp_path, built, "manylinux_2_17_x86_64")) == (0, set()), name


def test_a_native_linked_against_libpython2_fails_under_manylinux(tmp_path: Path) -> None:
    """review74a: `libpython2.7.so.1.0` in DT_NEEDED passed `audit` under `manylinux1`, exit 0
    (auditwheel's pattern, `libpython\\d+\\.\\d+`, takes it)."""
    python = stub(tmp_path / "py", "libpython2.7.so.1.0", None, "Py_Initialize")
    library = calling(tmp_path, "py27", python, "Py_Initialize")
    assert "libpython2.7.so.1.0" in needs_of(library).needed
    assert audit_code(tagged(tmp_path, library, "manylinux1_x86_64")) == (1, {"A115"})
    # no A115 under a plain linux tag; A141: PyPI refuses the tag (hunt80)
    assert audit_code(tagged(tmp_path, library, "linux_x86_64")) == (1, {"A141"})


def test_thousands_of_version_needs_are_named_a_few_and_counted(tmp_path: Path) -> None:
    """review74a: every version need past the tag was one reason of the A115 detail, and every
    other version one name of W713's: an input's 65,536 made a line of megabytes."""
    names = [f"ZLIB_9.{i}" for i in range(40)]
    directory = tmp_path / "z"
    directory.mkdir()
    (directory / "v.map").write_text(
        "".join(f"{n} {{ global: f{i}; }};\n" for i, n in enumerate(names))
    )
    (directory / "z.c").write_text(
        "".join(f"int f{i}(void) {{ return {i}; }}\n" for i in range(40))
    )
    script = f"-Wl,--version-script={directory / 'v.map'}"
    command = [
        "gcc",
        "-shared",
        "-fPIC",
        "-Wl,-soname,libz.so.1",
        script,
        "-o",
        str(directory / "libz.so.1"),
    ]
    subprocess.run([*command, str(directory / "z.c")], check=True)
    calls = "".join(f"extern int f{i}(void);" for i in range(40))
    total = " + ".join(f"f{i}()" for i in range(40))
    source = f"{calls}\nint go(void) {{ return {total}; }}\n"
    library = compile_library(tmp_path, source, "zlibs", str(directory / "libz.so.1"))
    assert needs_of(library).other_versions == tuple(sorted(names))
    report = json.loads(
        run_k3diff(
            "audit", tagged(tmp_path, library, "manylinux2014_x86_64"), "--format", "json"
        ).stdout
    )
    detail = next(f["detail"] for f in report["artifacts"][0]["findings"] if f["code"] == "A115")
    assert detail.count("needs ZLIB_") == 8 and detail.endswith("; and 32 more"), detail
    base = build(
        tmp_path / "b",
        "1.0",
        {**BASE_FILES, "demo/_lib.so": compile_library(tmp_path, STRLEN, "old")},
    )
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo/_lib.so": library})
    result = run_k3diff(
        "wheels", base, patch, "--explain", "--allow-native-changes", "--format", "json"
    )
    w713 = next(f["detail"] for f in json.loads(result.stdout)["findings"] if f["code"] == "W713")
    assert result.exit_code == 1 and w713.count("ZLIB_") == 8 and w713.endswith(", and 32 more")


def test_libstdcxx_long_double_versions_count_as_their_number(tmp_path: Path) -> None:
    """review74a: `GLIBCXX_IEEE128_3.4.29` (ppc64le's IEEE long double, GCC 11's libstdc++)
    passed `audit` under `manylinux_2_28_ppc64le`, whose policy allows `GLIBCXX_3.4.24` and no
    IEEE128 name, read as no libstdc++ need at all; glibc has no such names (an input's
    `GLIBC_LDBL_2.4` stays a name no tag promises)."""
    cxx = stub(tmp_path / "cxx", "libstdc++.so.6", "GLIBCXX_IEEE128_3.4.29", "ieee_put")
    library = calling(tmp_path, "ieee", cxx, "ieee_put")
    assert needs_of(library).glibcxx == "3.4.29"
    report = json.loads(
        run_k3diff(
            "audit", tagged(tmp_path, library, "manylinux_2_28_ppc64le"), "--format", "json"
        ).stdout
    )
    a115 = [f for f in report["artifacts"][0]["findings"] if f["code"] == "A115"]
    assert a115 and "GLIBCXX_3.4.29" in a115[0]["detail"]
    libc = stub(tmp_path / "libc", "libc.so.6", "GLIBC_LDBL_2.4", "odd_call")
    assert needs_of(calling(tmp_path, "odd", libc, "odd_call")).other_versions == (
        "GLIBC_LDBL_2.4",
    )


def test_the_stable_abis_libpython_fails_under_manylinux(tmp_path: Path) -> None:
    """review74a: `libpython3.so` in DT_NEEDED passed `audit` under `manylinux_2_17`, exit 0: a
    CPython built without a shared library (the manylinux images') has no `libpython3.so`
    either, and no policy lists it."""
    python = stub(tmp_path / "py3", "libpython3.so", None, "PyLong_FromLong")
    library = calling(tmp_path, "py3", python, "PyLong_FromLong")
    assert "libpython3.so" in needs_of(library).needed
    assert audit_code(tagged(tmp_path, library, "manylinux_2_17_x86_64")) == (1, {"A115"})
    assert audit_code(tagged(tmp_path, library, "musllinux_1_2_x86_64"))[1] == {"A115"}
    # no A115 under a plain linux tag; A141: PyPI refuses the tag (hunt80)
    assert audit_code(tagged(tmp_path, library, "linux_x86_64")) == (1, {"A141"})


def test_a_version_need_table_past_64_kib_is_read(tmp_path: Path) -> None:
    """review74a: a second pass kept 64 KiB of the version-need table, so a linker-made ELF
    with 5,000 needs (the table past the first MiB, behind long symbol names) was A116,
    unchecked, and passed `audit` under `manylinux_2_17`, exit 0."""
    count, pad = 5000, "x" * 200
    directory = tmp_path / "many"
    directory.mkdir()
    (directory / "v.map").write_text(
        "".join(f"GLIBC_X{i} {{ global: f{i}{pad}; }};\n" for i in range(count))
    )
    (directory / "s.c").write_text(
        "".join(f"int f{i}{pad}(void) {{ return {i}; }}\n" for i in range(count))
    )
    libc = directory / "libc.so.6"
    script = f"-Wl,--version-script={directory / 'v.map'}"
    command = ["gcc", "-shared", "-fPIC", "-Wl,-soname,libc.so.6", script, "-o", str(libc)]
    subprocess.run([*command, str(directory / "s.c")], check=True)
    calls = "".join(f"extern int f{i}{pad}(void);\n" for i in range(count))
    total = " + ".join(f"f{i}{pad}()" for i in range(count))
    library = compile_library(
        tmp_path, f"{calls}int go(void) {{ return {total}; }}\n", "many", str(libc)
    )
    (tmp_path / "probe.so").write_bytes(library)
    with open(tmp_path / "probe.so", "rb") as handle:
        table = ELFFile(handle).get_section_by_name(".gnu.version_r")
        assert table is not None and table["sh_offset"] > 1 << 20 and table["sh_size"] > 64 << 10
    assert len(needs_of(library).other_versions) == count
    report = json.loads(
        run_k3diff(
            "audit", tagged(tmp_path, library, "manylinux_2_17_x86_64"), "--format", "json"
        ).stdout
    )
    found = {f["code"]: f["detail"] for f in report["artifacts"][0]["findings"]}
    assert report["verdict"]["exit_code"] == 1 and "A116" not in found
    assert found["A115"].endswith("; and 4,992 more")
