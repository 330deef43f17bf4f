"""`GLIBC_` versions without a number: `GLIBC_ABI_DT_RELR` (an ELF linked with packed relative
relocations loads on glibc 2.36 and later only) and `GLIBC_PRIVATE` (glibc's own interface),
against the wheel's tag (audit, A115) and base -> patch (`wheels --explain`, W713). review74:
both passed `audit` under `manylinux_2_17`, exit 0, read as GLIBC_2.2.5."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.test_installed_view import BASE_FILES, audit_code
from wheel.test_platform import compile_library, needs_of, tagged
from wheel.tricks import build

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

# A pointer table gives the link editor relative relocations to pack.
RELOCATED = (
    "#include <string.h>\nstatic char buf[64];\nchar *table[] = {buf, buf + 1, buf + 2};\n"
    "int go(const char *s) { return (int)strlen(s) + (table[1] != 0); }\n"
)


def packed(tmp_path: Path) -> bytes:
    """A library linked with `-z pack-relative-relocs` (skips where ld cannot)."""
    try:
        library = compile_library(tmp_path, RELOCATED, "packed", "-Wl,-z,pack-relative-relocs")
    except subprocess.CalledProcessError:
        pytest.skip("the link editor cannot pack relative relocations")
    readelf = shutil.which("readelf")
    if readelf is not None:  # the real tool names the version the loader will ask for
        (tmp_path / "check.so").write_bytes(library)
        shown = subprocess.run(
            [readelf, "-V", str(tmp_path / "check.so")], capture_output=True, text=True
        ).stdout
        if "GLIBC_ABI_DT_RELR" not in shown:
            pytest.skip("this toolchain packs relocations without GLIBC_ABI_DT_RELR")
    return library


def test_packed_relative_relocations_need_glibc_2_36(tmp_path: Path) -> None:
    library = packed(tmp_path)
    needs = needs_of(library)
    assert needs.other_versions == ("GLIBC_ABI_DT_RELR",)
    assert needs.glibc is not None and tuple(map(int, needs.glibc.split("."))) <= (2, 17)
    exit_code, found = audit_code(tagged(tmp_path, library, "manylinux_2_17_x86_64"))
    assert (exit_code, found) == (1, {"A115"})
    report = json.loads(
        run_k3diff(
            "audit", tagged(tmp_path, library, "manylinux2014_x86_64"), "--format", "json"
        ).stdout
    )
    findings = report["artifacts"][0]["findings"]
    detail = next(f["detail"] for f in findings if f["code"] == "A115")
    assert "GLIBC_ABI_DT_RELR (glibc 2.36 and later)" in detail and "2.17" in detail
    assert audit_code(tagged(tmp_path, library, "manylinux_2_36_x86_64")) == (0, set())


def test_glibc_private_is_promised_by_no_tag(tmp_path: Path) -> None:
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "v.map").write_text("GLIBC_PRIVATE { global: __libc_secret; local: *; };\n")
    (stub / "s.c").write_text("int __libc_secret(void) { return 0; }\n")
    libc = stub / "libc.so.6"
    script = f"-Wl,--version-script={stub / 'v.map'}"
    command = ["gcc", "-shared", "-fPIC", "-Wl,-soname,libc.so.6", script, "-o", str(libc)]
    subprocess.run([*command, str(stub / "s.c")], check=True)
    source = "extern int __libc_secret(void);\nint go(void) { return __libc_secret(); }\n"
    library = compile_library(tmp_path, source, "private", str(libc))
    assert needs_of(library).other_versions == ("GLIBC_PRIVATE",)
    for platform in ("manylinux_2_17_x86_64", "manylinux_2_41_x86_64", "musllinux_1_2_x86_64"):
        assert audit_code(tagged(tmp_path, library, platform)) == (1, {"A115"}), platform
    # no A115 under a plain linux tag; A141: PyPI refuses the tag (hunt80)
    assert audit_code(tagged(tmp_path, library, "linux_x86_64")) == (1, {"A141"})


def test_wheels_explain_fails_a_patch_that_starts_packing_relocations(tmp_path: Path) -> None:
    old = compile_library(tmp_path, RELOCATED, "plain")
    new = packed(tmp_path)
    assert needs_of(old).other_versions == ()
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, "demo/_lib.so": old})
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo/_lib.so": new})
    result = run_k3diff(
        "wheels", base, patch, "--explain", "--allow-native-changes", "--format", "json"
    )
    report = json.loads(result.stdout)
    failing = {f["code"]: f["detail"] for f in report["findings"] if f["severity"] == "error"}
    assert (
        result.exit_code == 1 and "Other versions: (none) -> GLIBC_ABI_DT_RELR" in failing["W713"]
    )
    text = run_k3diff("wheels", base, patch, "--explain", "--allow-native-changes").stdout
    assert "Other versions: (none) -> GLIBC_ABI_DT_RELR" in text


def stub_linked(tmp_path: Path, soname: str, version: str, symbol: str) -> bytes:
    """A library calling `symbol` of a stub `soname` that defines it at `version`, as the
    system's zlib or libgcc_s does."""
    stub = tmp_path / f"stub-{version[:40]}"
    stub.mkdir()
    (stub / "v.map").write_text(f"{version} {{ global: {symbol}; local: *; }};\n")
    (stub / "s.c").write_text(f"int {symbol}(void) {{ return 0; }}\n")
    script = f"-Wl,--version-script={stub / 'v.map'}"
    command = ["gcc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", script, "-o", str(stub / soname)]
    subprocess.run([*command, str(stub / "s.c")], check=True)
    source = f"extern int {symbol}(void);\nint go(void) {{ return {symbol}(); }}\n"
    return compile_library(stub, source, "user", str(stub / soname))


@pytest.mark.parametrize(
    ("soname", "version", "symbol", "old", "new"),
    [
        # CentOS 7 (manylinux2014) ships zlib 1.2.7 and GCC 4.8's libgcc_s.
        (
            "libz.so.1",
            "ZLIB_1.2.9",
            "inflateValidate",
            "manylinux2014_x86_64",
            "manylinux_2_28_x86_64",
        ),
        (
            "libgcc_s.so.1",
            "GCC_7.0.0",
            "__divmodti4",
            "manylinux_2_17_x86_64",
            "manylinux_2_28_x86_64",
        ),
        (
            "libgcc_s.so.1",
            "GCC_12.0.0",
            "__truncdfbf2",
            "manylinux_2_34_x86_64",
            "manylinux_2_35_x86_64",
        ),
    ],
)
def test_zlib_and_libgcc_versions_are_held_to_the_tag(
    tmp_path: Path, soname: str, version: str, symbol: str, old: str, new: str
) -> None:
    """auditwheel's policy judges the whitelisted libgcc_s and zlib by their symbol versions too
    (review74: `ZLIB_1.2.9` under `manylinux2014` passed, exit 0)."""
    library = stub_linked(tmp_path, soname, version, symbol)
    assert version in needs_of(library).other_versions
    wheel = tagged(tmp_path, library, old)
    assert audit_code(wheel) == (1, {"A115"})
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    detail = report["artifacts"][0]["findings"][0]["detail"]
    assert f"needs {version}, newer than the" in detail
    assert audit_code(tagged(tmp_path, library, new)) == (0, set())


def test_wheels_explain_fails_a_patch_that_needs_a_newer_zlib(tmp_path: Path) -> None:
    old = compile_library(tmp_path, "int go(void) { return 1; }\n", "plain")
    new = stub_linked(tmp_path, "libz.so.1", "ZLIB_1.2.9", "inflateValidate")
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, "demo/_lib.so": old})
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo/_lib.so": new})
    result = run_k3diff(
        "wheels", base, patch, "--explain", "--allow-native-changes", "--format", "json"
    )
    failing = {f["code"]: f["detail"] for f in json.loads(result.stdout)["findings"]}
    assert result.exit_code == 1 and "Other versions: (none) -> ZLIB_1.2.9" in failing["W713"]


def test_a_musl_build_under_a_manylinux_tag_fails_audit(tmp_path: Path) -> None:
    """An ELF linked against musl (DT_NEEDED `libc.musl-x86_64.so.1`, no `GLIBC_` version at
    all) tagged manylinux: no glibc system has that library (review74: it passed, exit 0)."""
    stub = tmp_path / "musl"
    stub.mkdir()
    (stub / "s.c").write_text("int puts(const char *s) { return 0; }\n")
    soname = "libc.musl-x86_64.so.1"
    command = ["gcc", "-shared", "-fPIC", "-nostdlib", f"-Wl,-soname,{soname}"]
    subprocess.run([*command, "-o", str(stub / soname), str(stub / "s.c")], check=True)
    source = 'extern int puts(const char *);\nint go(void) { return puts("x"); }\n'
    library = compile_library(stub, source, "user", "-nostdlib", str(stub / soname))
    needs = needs_of(library)
    assert needs.needed == (soname,) and needs.glibc is None
    assert audit_code(tagged(tmp_path, library, "manylinux_2_17_x86_64")) == (1, {"A115"})
    assert audit_code(tagged(tmp_path, library, "musllinux_1_2_x86_64")) == (0, set())


@pytest.mark.parametrize(
    ("soname", "version"),
    [("libc.so.6", "GLIBC_2." + "9" * 5000), ("libz.so.1", "ZLIB_1." + "9" * 5000)],
)
def test_a_version_of_thousands_of_digits_fails_and_never_crashes(
    tmp_path: Path, soname: str, version: str
) -> None:
    """An input's version name past `int`'s 4,300 digits (review74: `audit` stopped on an
    internal error, exit 2, and `wheels --explain --allow-native-changes` passed, exit 0)."""
    library = stub_linked(tmp_path, soname, version, "inflateValidate")
    assert audit_code(tagged(tmp_path, library, "manylinux_2_17_x86_64")) == (1, {"A115"})
    old = compile_library(tmp_path, "int go(void) { return 1; }\n", "plain")
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, "demo/_lib.so": old})
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo/_lib.so": library})
    result = run_k3diff(
        "wheels", base, patch, "--explain", "--allow-native-changes", "--format", "json"
    )
    failing = {f["code"] for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"}
    assert result.exit_code == 1 and "W713" in failing
