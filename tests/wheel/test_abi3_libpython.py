"""abi3 truth, the link: an extension of an abi3 wheel that names one CPython version's shared
library in DT_NEEDED (`libpython3.11.so.1.0`) loads only where that library is installed, so no
other version imports it, whatever its symbols (review74: a `cp38-abi3` wheel so linked passed
`audit` and `wheels`, exit 0)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cli_support import run_k3diff

from wheel.test_abi3 import STABLE_OLD, abi3_wheel, extension, pytestmark  # noqa: F401
from wheel.test_installed_view import audit_code, codes, wheels_json

TAG = "cp38-abi3-manylinux_2_17_x86_64"


def linked(directory: Path, soname: str) -> bytes:
    """An extension importing only stable-ABI names, linked against a stub library of `soname`
    (defining them, as a shared CPython's library does)."""
    directory.mkdir(parents=True)
    stub = directory / soname
    (directory / "stub.c").write_text(
        "".join(f"void *{n}(void) {{ return 0; }}\n" for n in STABLE_OLD)
    )
    subprocess.run(
        [
            "gcc",
            "-shared",
            "-fPIC",
            f"-Wl,-soname,{soname}",
            "-o",
            str(stub),
            str(directory / "stub.c"),
        ],
        check=True,
    )
    calls = "".join(f"extern void *{name}(); (void){name}();" for name in STABLE_OLD)
    (directory / "ext.c").write_text(f"void *PyInit__ext(void) {{ {calls} return 0; }}\n")
    target = directory / "_ext.abi3.so"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-o", str(target), str(directory / "ext.c"), str(stub)],
        check=True,
    )
    return target.read_bytes()


def test_an_abi3_extension_linked_against_one_cpythons_libpython_fails(tmp_path: Path) -> None:
    other = f"libpython3.{sys.version_info.minor + 1}.so.1.0"
    so = linked(tmp_path / "c", other)
    # The real loader, on this CPython: the other version's library is nowhere to be found.
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "_ext.abi3.so").write_bytes(so)
    tried = subprocess.run(
        [sys.executable, "-c", "import _ext"], cwd=tmp_path / "run", capture_output=True, text=True
    )
    assert tried.returncode != 0 and f"{other}: cannot open shared object file" in tried.stderr
    wheel = abi3_wheel(tmp_path / "p", "2.0", TAG, "_ext.abi3.so", so)
    assert audit_code(wheel) == (1, {"A115", "A123"})  # A115: manylinux forbids the link too
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    detail = next(
        f["detail"] for a in report["artifacts"] for f in a["findings"] if f["code"] == "A123"
    )
    assert f"linked against {other}" in detail
    base = abi3_wheel(
        tmp_path / "b", "1.0", TAG, "_ext.abi3.so", extension(tmp_path / "c0", *STABLE_OLD)
    )
    exit_code, wheels = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W625" in codes(wheels)


def test_the_stable_abis_own_libpython3_names_no_version(tmp_path: Path) -> None:
    """No A123: `libpython3.so` is every 3.x's. Under a manylinux tag it is A115 all the same
    (review74a: on no policy's list, and absent where CPython has no shared library)."""
    so = linked(tmp_path / "c", "libpython3.so")
    assert audit_code(abi3_wheel(tmp_path / "p", "2.0", TAG, "_ext.abi3.so", so)) == (1, {"A115"})
    plain = "cp38-abi3-linux_x86_64"  # no A115; A141: PyPI refuses the tag (hunt80)
    assert audit_code(abi3_wheel(tmp_path / "l", "2.0", plain, "_ext.abi3.so", so)) == (1, {"A141"})


def test_a_manylinux_extension_linked_against_libpython_fails_audit(tmp_path: Path) -> None:
    """auditwheel: "Linking with libpython is forbidden for manylinux/musllinux wheels" (its
    repair removes the entry); a CPython without the shared library cannot load the extension
    (review74: a `cp311-cp311-manylinux_2_17` wheel so linked passed `audit`, exit 0)."""
    so = linked(tmp_path / "c", "libpython3.11.so.1.0")
    for tag in ("cp311-cp311-manylinux_2_17_x86_64", "cp311-cp311-musllinux_1_2_x86_64"):
        wheel = abi3_wheel(tmp_path / tag, "2.0", tag, "_ext.cpython-311-x86_64-linux-gnu.so", so)
        assert audit_code(wheel) == (1, {"A115"}), tag
        report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
        detail = report["artifacts"][0]["findings"][0]["detail"]
        assert "needs libpython3.11.so.1.0, which manylinux and musllinux forbid" in detail
    plain = "cp311-cp311-linux_x86_64"
    wheel = abi3_wheel(tmp_path / plain, "2.0", plain, "_ext.cpython-311-x86_64-linux-gnu.so", so)
    assert audit_code(wheel) == (1, {"A141"})  # A141: PyPI refuses the tag (hunt80)


def test_a_decoy_string_table_does_not_hide_the_libpython_the_loader_loads(
    tmp_path: Path,
) -> None:
    """A `DT_STRTAB` two bytes into the real one, placed before it (pyelftools names DT_NEEDED
    from the first, glibc from the last): the loader still looks for the other version's
    library (review79a: `bpython3.X.so.1.0` was read, and `audit` passed, exit 0)."""
    from wheel.test_abi3_loader_tables import decoy_strtab

    other = f"libpython3.{sys.version_info.minor + 1}.so.1.0"
    so = decoy_strtab(linked(tmp_path / "c", other))
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "_ext.abi3.so").write_bytes(so)
    tried = subprocess.run(
        [sys.executable, "-c", "import _ext"], cwd=tmp_path / "run", capture_output=True, text=True
    )
    assert tried.returncode != 0 and f"{other}: cannot open shared object file" in tried.stderr
    # A plain linux tag: a manylinux one fails as well for the library its policy lacks (A115).
    wheel = abi3_wheel(tmp_path / "p", "2.0", "cp38-abi3-linux_x86_64", "_ext.abi3.so", so)
    assert audit_code(wheel) == (1, {"A123", "A141"})  # A141: PyPI refuses the tag (hunt80)
    detail = run_k3diff("audit", wheel).stdout
    assert f"linked against {other}" in detail
