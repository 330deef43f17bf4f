"""Which files count for an extension module (W629, review67b).

A file whose suffix names no ABI k3diff reads spared its whole module: a `cp313` wheel holding
`demo/_ext.cpython-311-x86_64-linux-gnu.so` failed W629, but passed (exit 0) once a
`demo/_ext.mpich.so` or a `demo/_ext.CPYTHON-313-x86_64-linux-gnu.so` lay beside it, though no
import system finds either as `demo._ext` (a Linux one reads names as they are), so `import
demo._ext` still fails on 3.13. Only a bare `_ext.so` (`.pyd`), which CPython finds everywhere,
spares it now. The reverse: a module with a source (`_ext.py`, a package `_ext/`) imports on
every Python, which finds the source where it finds no extension; W629 said it found no file of
it. And 3.2-3.4's suffix (`.cpython-34m.so`, no platform) is read as those versions'."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from wheel.test_installed_view import audit_code
from wheel.test_version_bound import PLATFORM, _named, _w629, _wheel

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the extensions")


@pytest.mark.parametrize(
    "beside", ["demo/_ext.mpich.so", "demo/_ext.CPYTHON-313-x86_64-linux-gnu.so"]
)
def test_a_file_no_import_system_finds_spares_no_module(tmp_path: Path, beside: str) -> None:
    wheel = _wheel(tmp_path, f"cp313-cp313-{PLATFORM}", _named("311"), beside)
    found = _w629(wheel)
    judged = [_named("311")] + ([beside] if "CPYTHON" in beside else [])  # left67c: no Linux
    assert sorted(path for path, _ in found) == sorted(judged), found  # import finds it
    assert "on CPython 3.13 'import demo._ext' finds no file of it" in found[0][1], found
    assert audit_code(wheel) == (1, {"W629"})


@pytest.mark.parametrize("source", ["demo/_ext.py", "demo/_ext/__init__.py"])
def test_a_module_with_a_source_imports_everywhere(tmp_path: Path, source: str) -> None:
    wheel = _wheel(tmp_path, f"py3-none-{PLATFORM}", _named("311"), source)
    assert _w629(wheel) == []
    assert audit_code(wheel) == (0, set())


def test_the_suffix_of_cpython_before_3_5_is_read_as_its_own(tmp_path: Path) -> None:
    names = [_named("311"), "demo/_ext.cpython-34m.so"]
    found = _w629(_wheel(tmp_path, f"py3-none-{PLATFORM}", *names))
    assert sorted(path for path, _ in found) == sorted(names), found
    assert "named for CPython 3.4, 3.11 alone" in found[0][1], found
    assert "on CPython 3.0-3.3, 3.5-3.10, 3.12+" in found[0][1], found


@pytest.mark.parametrize(
    ("tag", "name", "said"),
    [
        (
            "cp313-cp313-win_amd64",
            _named("313"),
            "named for CPython 3.13 alone (as .so, which no Python on Windows loads), while its "
            "tags install it on CPython 3.13: on CPython 3.13 'import demo._ext' finds no file",
        ),
        ("cp39-abi3-win_amd64", "demo/_ext.abi3.so", "on CPython 3.9+ 'import demo._ext'"),
        (
            f"cp313-cp313-{PLATFORM}",
            "demo/_ext.cp313-win_amd64.pyd",
            "(as .pyd, which Python loads on Windows alone)",
        ),
    ],
)
def test_a_name_of_the_other_systems_extension_is_found_by_none(
    tmp_path: Path, tag: str, name: str, said: str
) -> None:
    """Python on Windows loads `.pyd` files alone, elsewhere `.so` files alone: a Windows
    wheel holding a Linux build's file passed, as its name's version was the tag's."""
    wheel = _wheel(tmp_path, tag, name)
    found = _w629(wheel)
    assert [path for path, _ in found] == [name], found
    assert said in found[0][1], found
    assert audit_code(wheel) == (1, {"W629"})


def test_a_windows_wheel_with_its_own_file_beside_a_linux_one_passes(tmp_path: Path) -> None:
    wheel = _wheel(
        tmp_path, "cp313-cp313-win_amd64", "demo/_ext.cp313-win_amd64.pyd", _named("313")
    )
    assert _w629(wheel) == []


@pytest.mark.parametrize(
    ("tag", "name", "said"),
    [
        (
            f"cp313-cp313-{PLATFORM}",
            "demo/_ext.cpython-313-aarch64-linux-gnu.so",
            "(for aarch64-linux-gnu, while its tags install it on x86_64-linux-gnu alone)",
        ),
        (
            f"cp313-cp313-{PLATFORM}",
            "demo/_ext.cpython-313-darwin.so",
            "(for darwin, while its tags install it on x86_64-linux-gnu alone)",
        ),
        (
            "cp313-cp313-macosx_11_0_arm64",
            _named("313"),
            "(for x86_64-linux-gnu, while its tags install it on darwin alone)",
        ),
        (
            "cp313-cp313-win32",
            "demo/_ext.cp313-win_amd64.pyd",
            "(for win_amd64, while its tags install it on win32 alone)",
        ),
    ],
)
def test_a_name_of_another_platform_is_found_by_none(
    tmp_path: Path, tag: str, name: str, said: str
) -> None:
    """CPython's suffix names its platform (`.cpython-313-x86_64-linux-gnu.so`), and only
    that platform's CPython finds the file: a wheel tagged for x86_64 Linux holding an aarch64
    build's name (a cross-build packaged under the host's tag) passed."""
    wheel = _wheel(tmp_path, tag, name)
    found = _w629(wheel)
    assert [path for path, _ in found] == [name], found
    assert said in found[0][1], found
    assert "on CPython 3.13 'import demo._ext' finds no file of it" in found[0][1], found


@pytest.mark.parametrize(
    ("tag", "name"),
    [
        ("cp313-cp313-manylinux_2_17_aarch64", "demo/_ext.cpython-313-aarch64-linux-gnu.so"),
        ("cp313-cp313-manylinux2014_i686", "demo/_ext.cpython-313-i386-linux-gnu.so"),
        ("cp313-cp313-linux_armv7l", "demo/_ext.cpython-313-arm-linux-gnueabihf.so"),
        ("cp313-cp313-musllinux_1_2_x86_64", "demo/_ext.cpython-313-x86_64-linux-musl.so"),
        ("cp313-cp313-macosx_11_0_universal2", "demo/_ext.cpython-313-darwin.so"),
        ("pp310-pypy310_pp73-win_amd64", "demo/_ext.pypy310-pp73-win_amd64.pyd"),
    ],
)
def test_a_name_of_the_tags_platform_passes(tmp_path: Path, tag: str, name: str) -> None:
    assert _w629(_wheel(tmp_path, tag, name)) == []
