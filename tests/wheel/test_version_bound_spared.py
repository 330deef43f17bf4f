"""W629 failed modules a Python the wheel installs on imports (w629c), held to pip 26 and
CPython's `FileFinder` (`wheel.importoracle.installed_origin`: extensions, then sources, then
bytecode, as the import system tries them).

* `_ext_d.pyd` and `_ext_d.cp313-win_amd64.pyd` were read as a Windows debug build's files of
  module `_ext` alone (left67), so a `cp313-cp313-win_amd64` wheel holding one failed on the
  release 3.13 pip installs it on; that build finds them as module `_ext_d` (its suffixes are
  `.cp313-win_amd64.pyd` and `.pyd`), the debug build as `_ext`. Where no file of `_ext` is
  beside it, such a name is either module's.
* On Windows `FileFinder` lowers a name's suffix and lists `.pyw` as a source, so `_ext.PY` and
  `_ext.pyw` are the module's source there, loaded where no extension is found; on Windows and
  macOS a package's `__init__` is found by its path, in any case (`_ext/__INIT__.py`). A
  package `demo` whose `__init__` is an extension of another version
  (`demo/__init__.cpython-312-….so`) loads its `demo/__init__.py` instead. None of these spared
  the module."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from wheel.importoracle import (
    LINUX,
    LINUX_313,
    MAC_313,
    WINDOWS_313,
    WINDOWS_313D,
    Target,
    installed_origin,
    installs_importable,
)
from wheel.test_installed_view import audit_code
from wheel.test_version_bound import _w629, _wheel

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the extensions")

WINDOWS = "cp313-cp313-win_amd64"
MAC = "cp313-cp313-macosx_11_0_arm64"
OLD_PYD = "demo/_ext.cp312-win_amd64.pyd"


@pytest.mark.parametrize("name", ["demo/_ext_d.pyd", "demo/_ext_d.cp313-win_amd64.pyd"])
def test_a_debug_name_alone_is_a_release_modules_too(tmp_path: Path, name: str) -> None:
    """Failed on the code before (exit 1, W629 for `import demo._ext`)."""
    wheel = _wheel(tmp_path, WINDOWS, name)
    assert installs_importable(wheel, WINDOWS_313, "demo", "_ext_d") is True
    assert installs_importable(wheel, WINDOWS_313D, "demo", "_ext") is True
    assert _w629(wheel) == []
    assert audit_code(wheel) == (0, set())


def test_a_debug_name_of_another_version_fails_either_way(tmp_path: Path) -> None:
    name = "demo/_ext_d.cp313-win_amd64.pyd"
    wheel = _wheel(tmp_path, "cp312-cp312-win_amd64", name)
    windows_312 = Target("3.12", ("cp312",), "win_amd64", "win32", (".cp312-win_amd64.pyd", ".pyd"))
    assert installs_importable(wheel, windows_312, "demo", "_ext_d") is False
    found = _w629(wheel)
    assert [path for path, _ in found] == [name], found
    assert "on CPython 3.12 'import demo._ext_d' finds no file of it" in found[0][1], found


@pytest.mark.parametrize(
    ("tag", "names", "target", "module", "origin"),
    [
        (WINDOWS, [OLD_PYD, "demo/_ext.PY"], WINDOWS_313, "_ext", "_ext.py"),
        (WINDOWS, [OLD_PYD, "demo/_ext.pyw"], WINDOWS_313, "_ext", "_ext.pyw"),
        (WINDOWS, [OLD_PYD, "demo/_ext/__INIT__.py"], WINDOWS_313, "_ext", "_ext/__init__.py"),
        (
            MAC,
            ["demo/_ext.cpython-312-darwin.so", "demo/_ext/__INIT__.py"],
            MAC_313,
            "_ext",
            "_ext/__init__.py",
        ),
        # `_wheel` writes `demo/__init__.py`: package `demo`'s source beside its extension.
        (
            f"cp313-cp313-{LINUX}",
            ["demo/__init__.cpython-312-x86_64-linux-gnu.so"],
            LINUX_313,
            "demo",
            "demo/__init__.py",
        ),
        (WINDOWS, ["demo/__init__.cp312-win_amd64.pyd"], WINDOWS_313, "demo", "demo/__init__.py"),
    ],
)
def test_a_source_the_import_system_finds_spares_the_module(
    tmp_path: Path, tag: str, names: list[str], target: Target, module: str, origin: str
) -> None:
    """Failed on the code before (exit 1, W629)."""
    wheel = _wheel(tmp_path, tag, *names)
    package = "" if module == "demo" else "demo"
    assert installed_origin(wheel, target, package, module) == origin
    assert _w629(wheel) == []


@pytest.mark.parametrize(
    ("tag", "names", "target"),
    [
        (MAC, ["demo/_ext.cpython-312-darwin.so", "demo/_ext.PY"], MAC_313),
        (
            f"cp313-cp313-{LINUX}",
            ["demo/_ext.cpython-312-x86_64-linux-gnu.so", "demo/_ext.PY"],
            LINUX_313,
        ),
        (
            f"cp313-cp313-{LINUX}",
            ["demo/_ext.cpython-312-x86_64-linux-gnu.so", "demo/_ext/__INIT__.py"],
            LINUX_313,
        ),
        (
            f"cp313-cp313-{LINUX}",
            ["demo/_ext.cpython-312-x86_64-linux-gnu.so", "demo/_ext.pyw"],
            LINUX_313,
        ),
    ],
)
def test_a_source_found_on_another_system_alone_spares_nothing(
    tmp_path: Path, tag: str, names: list[str], target: Target
) -> None:
    wheel = _wheel(tmp_path, tag, *names)
    assert installed_origin(wheel, target, "demo", "_ext") == "missing"  # no module, or a namespace
    found = _w629(wheel)
    assert [path for path, _ in found] == [names[0]], found
