"""A package the patch adds beside an unchanged module of the same name (`pkg/ext/__init__.py`
next to `pkg/ext.py`): Python's import system takes the package, so the module's file, shown
identical, no longer runs (W628, failing). Found on a hand-patched msgpack 1.2.3: the patch
added `msgpack/ext/__init__.py`, `import msgpack.ext` loaded it, and `k3diff wheels` said
exit 0 with only W203 (a Python file added)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json

FILES = {
    "engine/__init__.py": b"from .ext import run\n",
    "engine/ext.py": b"def run(x):\n    return x + 1\n",
    "engine/util.py": b"X = 1\n",
}


def _pair(tmp_path: Path, added: dict[str, bytes]) -> tuple[int, dict[str, Any]]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", {**FILES, **added})
    return run_json("wheels", base, patch)


def _w628(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == "W628"]


@pytest.mark.parametrize(
    "init",
    [
        "engine/ext/__init__.py",
        "engine/ext/__init__.pyc",
        "engine/ext/__init__.cpython-311-x86_64-linux-gnu.so",
    ],
)
def test_added_package_shadowing_an_unchanged_module_fails(tmp_path: Path, init: str) -> None:
    code, report = _pair(tmp_path, {init: b"def run(x):\n    return x - 1\n"})
    assert code == 1
    [finding] = _w628(report)
    assert finding["path"] == init
    assert finding["severity"] == "error"
    assert "engine/ext.py" in finding["detail"]
    assert "no longer runs" in finding["detail"]


def test_a_package_beside_a_module_of_another_name_is_no_shadow(tmp_path: Path) -> None:
    code, report = _pair(tmp_path, {"engine/extra/__init__.py": b"Y = 2\n"})
    assert code == 0
    assert _w628(report) == []


def test_a_namespace_directory_does_not_shadow_the_module(tmp_path: Path) -> None:
    """Without `__init__`, `engine/ext/` is a namespace portion: the module still wins."""
    code, report = _pair(tmp_path, {"engine/ext/helpers.py": b"Z = 3\n"})
    assert code == 0
    assert _w628(report) == []


def test_a_shadow_the_base_already_had_is_not_new(tmp_path: Path) -> None:
    both = {**FILES, "engine/ext/__init__.py": b"def run(x):\n    return x\n"}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", both)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", both)
    code, report = run_json("wheels", base, patch)
    assert code == 0
    assert _w628(report) == []


def test_a_module_changed_beside_its_new_package_is_shadowed_too(tmp_path: Path) -> None:
    """The module's diff is shown, but the code that runs is the package's."""
    code, report = _pair(
        tmp_path,
        {"engine/ext.py": b"def run(x):\n    return x + 2\n", "engine/ext/__init__.py": b"\n"},
    )
    assert code == 1
    assert [f["path"] for f in _w628(report)] == ["engine/ext/__init__.py"]


def test_a_module_moved_into_its_package_is_a_refactor(tmp_path: Path) -> None:
    """`ext.py` gone and `ext/__init__.py` added: nothing is left to shadow."""
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES)
    moved = {k: v for k, v in FILES.items() if k != "engine/ext.py"}
    moved["engine/ext/__init__.py"] = FILES["engine/ext.py"]
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", moved)
    code, report = run_json("wheels", base, patch)
    assert _w628(report) == []
    assert code == 0
