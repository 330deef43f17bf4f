"""musl80: a `GLIBC_` version needed of a library that is not glibc's, under a musllinux tag.

Every aarch64 musllinux wheel seen with a C++ or Rust native (numpy 2.5.5, ujson 6.1.0,
cryptography 51.0.1, pydantic_core 2.50.5) failed `audit` with A115 "needs GLIBC_2.0 but the
wheel is tagged musllinux", numpy on its bundled libstdc++ and its extensions, where `auditwheel
show` says the wheel is consistent with its musllinux tag: the aarch64 musl toolchain's libgcc_s
defines the version GLIBC_2.0 (`__register_frame_info`, `__deregister_frame_info`), so `readelf
-V` shows `File: libgcc_s-2d945d6c.so.1 ... Name: GLIBC_2.0` among the needs, of the libgcc_s
the wheel carries in `numpy.libs/`, never of a glibc (x86_64's libgcc_s defines no GLIBC_).
These ELFs are built the same way: a stub
`libgcc_s` defining GLIBC_2.0, and a native calling it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.test_installed_view import BASE_FILES, audit_code
from wheel.test_platform import compile_library, needs_of
from wheel.tricks import build

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

LIBGCC = "libgcc_s-2d945d6c.so.1"
SYMBOL = "__register_frame_info"


def versioned_stub(directory: Path, soname: str, version: str) -> bytes:
    """A library of `soname` defining SYMBOL at `version` (no libc: as a musl system's)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "s.c").write_text(f"int {SYMBOL}(void) {{ return 0; }}\n")
    (directory / "v.map").write_text(f"{version} {{ global: {SYMBOL}; local: *; }};\n")
    command = ["gcc", "-shared", "-fPIC", "-nostdlib", f"-Wl,-soname,{soname}"]
    script = f"-Wl,--version-script={directory / 'v.map'}"
    subprocess.run(
        [*command, script, "-o", str(directory / soname), str(directory / "s.c")], check=True
    )
    return (directory / soname).read_bytes()


def caller(tmp_path: Path, soname: str, version: str) -> tuple[bytes, bytes]:
    """(the stub library, a native needing `version` of it)."""
    stub = versioned_stub(tmp_path / f"stub-{soname}-{version}", soname, version)
    source = f"extern int {SYMBOL}(void);\nint go(void) {{ return {SYMBOL}(); }}\n"
    library = str(tmp_path / f"stub-{soname}-{version}" / soname)
    return stub, compile_library(tmp_path, source, f"user-{version}", "-nostdlib", library)


def wheel(tmp_path: Path, platform: str, files: dict[str, bytes]) -> Path:
    return build(tmp_path / platform, "1.0", {**BASE_FILES, **files}, tag=f"cp311-cp311-{platform}")


def readelf_needs(tmp_path: Path, library: bytes) -> str:
    """`readelf -V`'s text ('' where there is no readelf)."""
    if shutil.which("readelf") is None:
        return ""
    (tmp_path / "shown.so").write_bytes(library)
    return subprocess.run(
        ["readelf", "-V", str(tmp_path / "shown.so")], capture_output=True
    ).stdout.decode()


def test_glibc_version_of_a_bundled_libgcc_passes_under_musllinux(tmp_path: Path) -> None:
    """Failed before musl80: (1, {"A115"}) "needs GLIBC_2.0 but the wheel is tagged musllinux"."""
    stub, native = caller(tmp_path, LIBGCC, "GLIBC_2.0")
    needs = needs_of(native)
    assert (needs.glibc, needs.glibc_of, needs.needed) == ("2.0", (LIBGCC,), (LIBGCC,))
    shown = readelf_needs(tmp_path, native)
    assert not shown or (f"File: {LIBGCC}" in shown and "Name: GLIBC_2.0" in shown)
    files = {"demo/_lib.so": native, f"demo.libs/{LIBGCC}": stub}
    for arch in ("musllinux_1_1_x86_64", "musllinux_1_2_x86_64"):
        assert audit_code(wheel(tmp_path, arch, files)) == (0, set()), arch


def test_glibc_version_of_glibc_still_fails_under_musllinux(tmp_path: Path) -> None:
    """The same need of `libc.so.6` is glibc's: A115 names the library (before musl80 the
    detail did not say of which library the version was needed)."""
    _stub, native = caller(tmp_path, "libc.so.6", "GLIBC_2.0")
    assert needs_of(native).glibc_of == ("libc.so.6",)
    result = run_k3diff(
        "audit",
        wheel(tmp_path, "musllinux_1_2_x86_64", {"demo/_lib.so": native}),
        "--format",
        "json",
    )
    assert result.exit_code == 1, result.stdout
    [finding] = json.loads(result.stdout)["artifacts"][0]["findings"]
    assert finding["code"] == "A115"
    assert (
        "needs GLIBC_2.0 of libc.so.6, glibc's, but the wheel is tagged musllinux"
        in finding["detail"]
    )


def test_manylinux_judges_every_glibc_version_as_auditwheel_does(tmp_path: Path) -> None:
    """Under manylinux a `GLIBC_` version is judged whatever library it is needed of (auditwheel
    groups versions by their prefix): GLIBC_2.18 of libgcc_s is past manylinux_2_17."""
    stub, native = caller(tmp_path, LIBGCC, "GLIBC_2.18")
    files = {"demo/_lib.so": native, f"demo.libs/{LIBGCC}": stub}
    assert audit_code(wheel(tmp_path, "manylinux_2_17_x86_64", files)) == (1, {"A115"})
    assert audit_code(wheel(tmp_path, "manylinux_2_18_x86_64", files)) == (0, set())
