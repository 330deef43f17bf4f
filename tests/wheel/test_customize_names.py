"""Which files `site` imports as `sitecustomize` at every start (W702), held to pip 26 and
CPython's `FileFinder` (`wheel.importoracle.installed_origin`, site-packages itself): a module
file whose suffix a loader of some system the wheel installs on lists (`.py`, `.pyc`, an
extension's; `.pyw` and any case of them on Windows), or any file of package
`sitecustomize/`. On the code before, any top-level name `sitecustomize.*` in lower case was
W702 (`sitecustomize.txt`, `sitecustomize.py.orig`, a Linux wheel's `sitecustomize.pyw`), and
so was any file under a directory `sitecustomize.*/`: data, which `site` never runs (w629c)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel.importoracle import LINUX_313, WINDOWS_313, WINDOWS_313D, Target, installed_origin
from wheel.test_installed_view import BASE_FILES, codes, wheels_json
from wheel.tricks import build

LINUX_TAG = "py3-none-manylinux_2_17_x86_64"
CODE = b"import os; os.system('id')\n"


def _pair(tmp_path: Path, tag: str, name: str) -> tuple[Path, int, dict[str, object]]:
    base = build(tmp_path / "b", "1.0", BASE_FILES, tag=tag)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, name: CODE}, tag=tag)
    exit_code, report = wheels_json(base, patch)
    return patch, exit_code, report


@pytest.mark.parametrize(
    ("tag", "name", "target"),
    [
        ("py3-none-any", "sitecustomize.txt", WINDOWS_313),
        ("py3-none-any", "sitecustomize.py.orig", WINDOWS_313),
        ("py3-none-any", "usercustomize.json", LINUX_313),
        ("py3-none-any", "sitecustomize.py/helper.py", WINDOWS_313),
        (LINUX_TAG, "sitecustomize.pyw", LINUX_313),
    ],
)
def test_a_name_no_loader_lists_is_data(
    tmp_path: Path, tag: str, name: str, target: Target
) -> None:
    """W702 and exit 1 on the code before."""
    patch, exit_code, report = _pair(tmp_path, tag, name)
    module = name.partition(".")[0]
    assert installed_origin(patch, target, "", module) == "missing"
    assert "W702" not in codes(report), report["findings"]
    assert exit_code == 0, report["findings"]


@pytest.mark.parametrize(
    ("tag", "name", "target"),
    [
        (LINUX_TAG, "sitecustomize.pyd", LINUX_313),
        ("py3-none-win_amd64", "sitecustomize.so", WINDOWS_313),
    ],
)
def test_an_extension_no_system_of_the_wheel_loads_is_data(
    tmp_path: Path, tag: str, name: str, target: Target
) -> None:
    """Linux loads no `.pyd`, Windows no `.so`: each system judged apart (merge of review69 and
    w629c; W702 and exit 1 on the code before). A native entry added still fails, as any does;
    `--allow-native-changes` lets it pass."""
    base = build(tmp_path / "b", "1.0", BASE_FILES, tag=tag)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, name: CODE}, tag=tag)
    assert installed_origin(patch, target, "", "sitecustomize") == "missing"
    exit_code, report = wheels_json(base, patch, "--allow-native-changes")
    assert "W702" not in codes(report), report["findings"]
    assert exit_code == 0, report["findings"]


@pytest.mark.parametrize(
    ("tag", "name", "target", "origin"),
    [
        ("py3-none-any", "sitecustomize.py", LINUX_313, "sitecustomize.py"),
        ("py3-none-win_amd64", "sitecustomize.pyw", WINDOWS_313, "sitecustomize.pyw"),
        ("py3-none-win_amd64", "sitecustomize.PYW", WINDOWS_313, "sitecustomize.pyw"),
        (
            LINUX_TAG,
            "sitecustomize.cpython-313-x86_64-linux-gnu.so",
            LINUX_313,
            "sitecustomize.cpython-313-x86_64-linux-gnu.so",
        ),
        ("py3-none-any", "usercustomize/__init__.py", LINUX_313, "usercustomize/__init__.py"),
        # A Windows debug build's (`dynload_win.c`): no W702 on the code before.
        ("cp313-cp313d-win_amd64", "sitecustomize_d.pyd", WINDOWS_313D, "sitecustomize_d.pyd"),
    ],
)
def test_a_module_site_imports_is_w702(
    tmp_path: Path, tag: str, name: str, target: Target, origin: str
) -> None:
    patch, exit_code, report = _pair(tmp_path, tag, name)
    module = name.partition(".")[0].partition("/")[0].removesuffix("_d")
    assert installed_origin(patch, target, "", module) == origin
    assert "W702" in codes(report) and exit_code == 1, report["findings"]


def test_any_file_of_the_package_stays_w702_whatever_the_tags(tmp_path: Path) -> None:
    """`sitecustomize/__INIT__.py` on Linux alone is no package's `__init__` (the directory is a
    namespace portion), but a module of package `sitecustomize`, whose `__init__` (another
    distribution's too) may import it: kept failing, as documented."""
    patch, exit_code, report = _pair(tmp_path, LINUX_TAG, "sitecustomize/__INIT__.py")
    assert installed_origin(patch, LINUX_313, "", "sitecustomize") == "missing"  # a namespace
    assert "W702" in codes(report) and exit_code == 1
