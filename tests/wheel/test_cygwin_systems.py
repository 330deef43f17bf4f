"""Cygwin's and MSYS2's own Python (`cygwin_…`, `msys_…` tags), each a system of its own
(tags70): a POSIX build whose `dynload_shlib.c` lists `.dll` extensions alone (under
`__CYGWIN__`: no `.so`, no `.pyd`) and whose file system, NTFS, opens a path in any case,
while its finder matches a directory's listing as written. Before, they were one system with
FreeBSD and any other platform k3diff reads no suffixes of, whose files were all read as found
and whose case rule was Cygwin's alone where a Cygwin tag was among them: a module whose only
file is a `.so` passed W629 under a Cygwin tag (exit 0), though no Python there imports it; a
package `_C/__INIT__.py` did not spare its module there (W629, exit 1), though the finder opens
it; and a FreeBSD tag beside a Cygwin one was read by Cygwin's rule alone, so a package kept
only by an `__INIT__.pyc` passed W628 (exit 0) where FreeBSD runs the module beside it. Held to
pip 26 and CPython's `FileFinder` (`wheel.importoracle`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff

from wheel.importoracle import CYGWIN_312, FREEBSD_312, MSYS_312, Target, installed_origin

CYGWIN = "cp312-cp312-cygwin_3_5_x86_64"
MSYS = "cp312-cp312-msys_3_5_x86_64"
FREEBSD = "cp312-cp312-freebsd_14_0_release_amd64"
NTFS_POSIX = [(CYGWIN, CYGWIN_312), (MSYS, MSYS_312)]


def _audit(tmp_path: Path, tag: str, files: dict[str, bytes]) -> tuple[Path, int, list[str]]:
    wheel = wheelkit.make_wheel(tmp_path / tag, "demo", "1.0", files, tag=tag)
    result = run_k3diff("audit", wheel, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    found = [f for a in report["artifacts"] for f in a["findings"] if f["code"] == "W629"]
    return wheel, result.exit_code, [f"{f['path']}: {f['detail']}" for f in found]


@pytest.mark.parametrize(("tag", "target"), NTFS_POSIX)
@pytest.mark.parametrize(
    "name", ["demo/_C.cpython-312-x86_64-cygwin.so", "demo/_C.cp312-win_amd64.pyd"]
)
def test_a_module_of_a_so_or_pyd_alone_fails_where_python_loads_dll_files(
    tmp_path: Path, tag: str, target: Target, name: str
) -> None:
    files = {"demo/__init__.py": b"", name: b"\0"}
    wheel, code, found = _audit(tmp_path, tag, files)
    assert installed_origin(wheel, target, "demo", "_C") == "missing"
    assert code == 1
    [finding] = found
    assert finding.startswith(f"{name}: named for CPython 3.12 alone (as .so or .pyd, which ")
    assert "'import demo._C' finds no file of it" in finding


@pytest.mark.parametrize(("tag", "target"), NTFS_POSIX)
@pytest.mark.parametrize(
    "spare", ["demo/_C.dll", "demo/_C.py", "demo/_C/__init__.py", "demo/_C/__INIT__.py"]
)
def test_a_dll_or_a_source_the_finder_opens_spares_the_module(
    tmp_path: Path, tag: str, target: Target, spare: str
) -> None:
    """A `.dll` of the module, or a source: `_C/__INIT__.py` too, which the finder opens by its
    path (`_C/__init__.py`) on NTFS (W629 on the code before, exit 1)."""
    name = "demo/_C.cpython-311-x86_64-cygwin.so"
    files = {"demo/__init__.py": b"", name: b"\0", spare: b""}
    wheel, code, found = _audit(tmp_path, tag, files)
    assert installed_origin(wheel, target, "demo", "_C") == spare.removeprefix("demo/").replace(
        "__INIT__", "__init__"
    )
    assert (code, found) == (1, [])  # no W629; A141: PyPI refuses the tag (hunt80)


def test_an_init_in_another_case_spares_nothing_on_freebsd(tmp_path: Path) -> None:
    """FreeBSD's file systems match case: `_C/__INIT__.py` is no package there."""
    name = "demo/_C.cpython-311.so"
    files = {"demo/__init__.py": b"", name: b"\0", "demo/_C/__INIT__.py": b""}
    wheel, code, found = _audit(tmp_path, FREEBSD, files)
    assert installed_origin(wheel, FREEBSD_312, "demo", "_C") == "missing"
    assert code == 1
    assert [f.partition(":")[0] for f in found] == [name]


def _w628(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == "W628"]


@pytest.mark.parametrize("target", [CYGWIN_312, MSYS_312])
def test_freebsd_beside_cygwin_or_msys_is_judged_by_its_own_case_rule(
    tmp_path: Path, target: Target
) -> None:
    """A patch removing `engine/ext/__init__.py` and keeping `engine/ext/__INIT__.pyc`: on
    Cygwin and MSYS2 the finder opens the bytecode as the package's `__init__`, on FreeBSD the
    directory is a namespace portion and `engine/ext.py`, which the package shadowed, now runs
    (W628; passed on the code before, exit 0)."""
    from wheels.test_module_shadowing_tags import _PYC

    tag = f"py3-none-freebsd_14_0_release_amd64.{target.platform}"
    files = {
        "engine/__init__.py": b"",
        "engine/ext.py": b"def run(x):\n    return x\n",
        "engine/ext/__init__.py": b"",
        "engine/ext/__INIT__.pyc": _PYC,
    }
    kept = {k: v for k, v in files.items() if k != "engine/ext/__init__.py"}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files, tag=tag)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.1", kept, tag=tag)
    assert installed_origin(patch, FREEBSD_312, "engine", "ext") == "ext.py"
    assert installed_origin(patch, target, "engine", "ext") == "ext/__init__.pyc"
    code, report = run_json("wheels", base, patch)
    assert code == 1, report["findings"]
    [finding] = _w628(report)
    assert finding["path"] == "engine/ext/__init__.py"
    assert "'import engine.ext' now loads engine/ext.py" in finding["detail"]


@pytest.mark.parametrize(("tag", "found"), [(CYGWIN, True), (MSYS, True), (FREEBSD, False)])
def test_a_dll_added_beside_a_module_shadows_it_where_python_loads_dll_files(
    tmp_path: Path, tag: str, found: bool
) -> None:
    """The finder tries extensions before source: on Cygwin and MSYS2 `engine/ext.dll` is one
    and runs instead of `engine/ext.py` (W628, a native change; on the code before no `.dll`
    was a module anywhere). FreeBSD loads no `.dll`."""
    files = {"engine/__init__.py": b"", "engine/ext.py": b"X = 1\n"}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files, tag=tag)
    added = {**files, "engine/ext.dll": b"MZ"}
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.1", added, tag=tag)
    target = {CYGWIN: CYGWIN_312, MSYS: MSYS_312, FREEBSD: FREEBSD_312}[tag]
    assert installed_origin(patch, target, "engine", "ext") == ("ext.dll" if found else "ext.py")
    _, report = run_json("wheels", base, patch)
    shadows = [(f["path"], f.get("native")) for f in _w628(report)]
    assert shadows == ([("engine/ext.dll", True)] if found else [])


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("demo/_C.cpython-312-x86_64-linux-gnu.so", False),
        ("demo/_C.cpython-312-darwin.so", False),
        ("demo/_C.cp312-win_amd64.pyd", False),
        ("demo/_C.cpython-312.so", True),
        ("demo/_C.abi3.so", True),
    ],
)
def test_freebsd_loads_a_so_of_no_platform_alone(tmp_path: Path, name: str, found: bool) -> None:
    """FreeBSD's CPython lists `.cpython-312.so`, `.abi3.so` and `.so` (its SOABI names no
    platform): a module whose one file is a Linux build's, a macOS build's or a `.pyd` is found
    by none there (review70b: FreeBSD was a system whose every file was read as found, and such
    a wheel passed `audit`, exit 0)."""
    wheel, code, findings = _audit(tmp_path, FREEBSD, {"demo/__init__.py": b"", name: b"\0"})
    assert installed_origin(wheel, FREEBSD_312, "demo", "_C", sources=False) == (
        "found" if found else "missing"
    )
    # exit 1 either way: A141, PyPI refuses a freebsd tag (hunt80); W629 tells them apart
    assert (code, [f.partition(":")[0] for f in findings]) == (1, [] if found else [name])


def test_a_kept_linux_module_under_an_added_freebsd_tag_fails(tmp_path: Path) -> None:
    """The patch keeps the base's Linux build unchanged (no native change) and adds a FreeBSD
    tag, where pip now installs it and `import demo._C` finds nothing (review70b: exit 0)."""
    files = {"demo/__init__.py": b"", "demo/_C.cpython-312-x86_64-linux-gnu.so": b"\0"}
    linux = "cp312-cp312-manylinux_2_17_x86_64"
    base = wheelkit.make_wheel(tmp_path / "base", "demo", "1.0", files, tag=linux)
    tag = f"{linux}.freebsd_14_0_release_amd64"
    patch = wheelkit.make_wheel(tmp_path / "patch", "demo", "1.1", files, tag=tag)
    assert installed_origin(patch, FREEBSD_312, "demo", "_C", sources=False) == "missing"
    code, report = run_json("wheels", base, patch)
    [finding] = [f for f in report["findings"] if f["code"] == "W629"]
    assert code == 1
    assert "its tags for freebsd install it on CPython 3.12" in finding["detail"]


@pytest.mark.parametrize(("extra", "fails"), [({}, True), ({"demo/_C.dll": b"MZ"}, False)])
def test_an_any_wheel_is_judged_where_python_loads_dll_files_too(
    tmp_path: Path, extra: dict[str, bytes], fails: bool
) -> None:
    """pip installs a `-none-any` wheel on Cygwin and MSYS2 too, whose Python loads neither a
    `.so` nor a `.pyd`: a module of `_C.abi3.so` and `_C.pyd` is found on Linux, macOS and
    Windows, by none there (review70b: `any` was judged on Windows and on Linux and macOS
    alone, and such a wheel passed `audit`, exit 0); a `.dll` of the module spares it."""
    files = {"demo/__init__.py": b"", "demo/_C.abi3.so": b"\0", "demo/_C.pyd": b"\0", **extra}
    wheel, code, found = _audit(tmp_path, "cp312-none-any", files)
    origin = installed_origin(wheel, CYGWIN_312, "demo", "_C", sources=False)
    assert origin == ("missing" if fails else "found")
    assert code == (1 if fails else 0)
    assert [f.partition(":")[0] for f in found] == (["demo/_C.abi3.so"] if fails else [])
    if fails:
        assert "its tags for Cygwin and MSYS2 (any) install it on CPython 3.12" in found[0]
