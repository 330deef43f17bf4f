"""review74a: `wheels --explain --allow-native-changes` judged only *changed* natives' platform
needs (W713); a rebuilt library under a new name (auditwheel's hash, a new major version, a new
file) that now needs a newer glibc showed as removed + added and passed, exit 0."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.test_installed_view import BASE_FILES
from wheel.test_platform import compile_library, needs_of
from wheel.test_platform_loader import STRLEN, stub
from wheel.tricks import build

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")


def needing(tmp_path: Path, name: str, glibc: str, soname: str | None = None) -> bytes:
    """A library whose highest glibc need is `glibc` (a stub libc defining it)."""
    libc = stub(tmp_path / f"libc-{name}", "libc.so.6", f"GLIBC_{glibc}", f"call_{name}")
    source = f"extern int call_{name}(void);\n{STRLEN}int use(void) {{ return call_{name}(); }}\n"
    flags = [str(libc)] + ([f"-Wl,-soname,{soname}"] if soname else [])
    return compile_library(tmp_path, source, name, *flags)


def explain(
    tmp_path: Path, base: dict[str, bytes], patch: dict[str, bytes], tag: str = "py3-none-any"
) -> tuple[int, dict[str, str]]:
    """Exit code and the failing findings' details by path (`tag`: the patch wheel's)."""
    for side in ("b", "p"):  # built again by each call
        shutil.rmtree(tmp_path / side, ignore_errors=True)
    old = build(tmp_path / "b", "1.0", {**BASE_FILES, **base})
    new = build(tmp_path / "p", "2.0", {**BASE_FILES, **patch}, tag=tag, purelib=False)
    # W630: a pure base's py3-none-any installs on more systems than a native patch
    ignore = () if tag == "py3-none-any" else ("--ignore", "W630")
    result = run_k3diff(
        "wheels", old, new, "--explain", "--allow-native-changes", "--format", "json", *ignore
    )
    report = json.loads(result.stdout)
    failing = {f["path"]: f["detail"] for f in report["findings"] if f["severity"] == "error"}
    return result.exit_code, failing


def test_a_renamed_library_needing_a_newer_glibc_fails(tmp_path: Path) -> None:
    """A new major version (`libfoo-<hash>.so.1` -> `.so.2`): judged against the one it
    replaces, though another base native already needed that glibc."""
    old, new = needing(tmp_path, "old", "2.17"), needing(tmp_path, "new", "2.30")
    assert needs_of(new).glibc == "2.30"
    other = {"demo/_high.so": needing(tmp_path, "high", "2.30")}
    code, failing = explain(
        tmp_path,
        {**other, "demo.libs/libfoo-1a2b3c4d.so.1": old},
        {**other, "demo.libs/libfoo-9f8e7d6c.so.2": new},
    )
    assert code == 1 and list(failing) == ["demo.libs/libfoo-9f8e7d6c.so.2"], failing
    detail = failing["demo.libs/libfoo-9f8e7d6c.so.2"]
    assert "against demo.libs/libfoo-1a2b3c4d.so.1" in detail and "2.17 -> 2.30" in detail
    # the same need as the library it replaces passes
    same = needing(tmp_path, "same", "2.17")
    code, failing = explain(
        tmp_path,
        {"demo.libs/libfoo-1a2b3c4d.so.1": old},
        {"demo.libs/libfoo-9f8e7d6c.so.2": same},
    )
    assert (code, failing) == (0, {})
    # a new hash only pairs as changed (`wheels.pairing`): W713 base -> patch, as before
    code, failing = explain(
        tmp_path,
        {"demo.libs/libfoo-1a2b3c4d.so.1.0": old},
        {"demo.libs/libfoo-9f8e7d6c.so.1.0": new},
    )
    assert code == 1 and list(failing) == ["demo.libs/libfoo-9f8e7d6c.so.1.0"], failing


def test_a_library_renamed_with_its_soname_is_judged_against_it(tmp_path: Path) -> None:
    """File names that share nothing, DT_SONAME `libbar-<hash>.so.3` on both sides."""
    old = needing(tmp_path, "old", "2.17", "libbar-1a2b3c4d.so.3")
    new = needing(tmp_path, "new", "2.30", "libbar-9f8e7d6c.so.3")
    other = {"demo/_high.so": needing(tmp_path, "high", "2.30")}
    code, failing = explain(
        tmp_path, {**other, "demo/_impl.so": old}, {**other, "demo/_core.so": new}
    )
    assert code == 1 and "against demo/_impl.so" in failing.get("demo/_core.so", ""), failing
    assert needs_of(new).soname == "libbar-9f8e7d6c.so.3"


def test_a_new_library_needing_more_than_any_base_native_fails(tmp_path: Path) -> None:
    """Nothing it replaces: judged against the highest need of the base's natives."""
    base = {"demo/_lib.so": needing(tmp_path, "base", "2.17")}
    code, failing = explain(
        tmp_path, base, {**base, "demo/_extra.so": needing(tmp_path, "extra", "2.30")}
    )
    assert code == 1 and "against any base native" in failing["demo/_extra.so"], failing
    code, failing = explain(
        tmp_path, base, {**base, "demo/_extra.so": needing(tmp_path, "low", "2.17")}
    )
    assert (code, failing) == (0, {})


MANYLINUX = "cp312-cp312-manylinux_2_28_x86_64"


def test_a_pure_wheel_turned_native_is_judged_against_its_tags_promise(tmp_path: Path) -> None:
    """holds75: no base native to compare with, so every need failed as raised (exit 1 for a
    library within its manylinux_2_28 tag); the added ELF is now judged as audit's A115 is."""
    within = {"demo/_core.so": needing(tmp_path, "within", "2.17")}
    assert explain(tmp_path, {}, within, MANYLINUX) == (0, {})
    assert explain(tmp_path, {}, within, "cp312-cp312-linux_x86_64") == (0, {})
    beyond = {"demo/_core.so": needing(tmp_path, "beyond", "2.34")}
    code, failing = explain(tmp_path, {}, beyond, MANYLINUX)
    assert code == 1 and "newer than the glibc 2.28 its tag promises" in failing["demo/_core.so"]
    code, failing = explain(tmp_path, {}, within, "cp312-cp312-musllinux_1_2_x86_64")
    assert code == 1 and "tagged musllinux" in failing["demo/_core.so"], failing
    code, failing = explain(tmp_path, {}, within)  # an ELF in a py3-none-any wheel
    assert code == 1 and "no Linux platform (any)" in failing["demo/_core.so"], failing
