"""A package the patch adds beside an unchanged module of the same name (`pkg/ext/__init__.py`
next to `pkg/ext.py`): Python's import system takes the package, so the module's file, shown
identical, no longer runs (W628, failing). Found on a hand-patched msgpack 1.2.3: the patch
added `msgpack/ext/__init__.py`, `import msgpack.ext` loaded it, and `k3diff wheels` said
exit 0 with only W203 (a Python file added)."""

from __future__ import annotations

import importlib.util
import marshal
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


TAG = "cp311-cp311-manylinux_2_17_x86_64"
"""True tags for the `cpython-311` extensions some tests add (else W629)."""


def _pair(tmp_path: Path, added: dict[str, bytes]) -> tuple[int, dict[str, Any]]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES, tag=TAG)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", {**FILES, **added}, tag=TAG)
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


def _sourceless() -> bytes:
    """A sourceless module's bytecode (unchecked-hash .pyc of FILES' ext.py)."""
    code = compile(FILES["engine/ext.py"], "ext.py", "exec")
    return (
        bytes(importlib.util.MAGIC_NUMBER)
        + b"\x03\x00\x00\x00"
        + b"\x00" * 8
        + (marshal.dumps(code))
    )


def test_a_source_added_beside_a_sourceless_module_shadows_it(tmp_path: Path) -> None:
    """The finder tries `ext.py` before `ext.pyc`: the base's sourceless module, listed
    identical, no longer runs and the new source does (was exit 0 with W203 only)."""
    files = {k: v for k, v in FILES.items() if k != "engine/ext.py"}
    files["engine/ext.pyc"] = _sourceless()
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files)
    new = {**files, "engine/ext.py": b"import os\nos.system('x')\n"}
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", new)
    code, report = run_json("wheels", base, patch)
    assert code == 1
    [finding] = _w628(report)
    assert finding["path"] == "engine/ext.py"
    assert finding["detail"] == (
        "the patch adds engine/ext.py beside engine/ext.pyc: 'import engine.ext' loads the new "
        "file, and engine/ext.pyc no longer runs"
    )


def test_an_extension_added_beside_a_source_module_shadows_it(tmp_path: Path) -> None:
    so = "engine/ext.cpython-311-x86_64-linux-gnu.so"
    code, report = _pair(tmp_path, {so: wheelkit.elf_bytes(b"\x90" * 64)})
    assert code == 1
    assert [(f["path"], "engine/ext.py no longer runs" in f["detail"]) for f in _w628(report)] == [
        (so, True)
    ]


def test_module_files_the_patch_adds_together_are_no_shadow(tmp_path: Path) -> None:
    """Both new (a source with its sourceless twin): the review sees both, neither is the
    base's code silenced."""
    _, report = _pair(tmp_path, {"engine/new.py": b"Y = 1\n", "engine/new.pyc": _sourceless()})
    assert _w628(report) == []


SHADOWED = {
    "engine/__init__.py": b"",
    "engine/ext/__init__.py": b"def run(x):\n    return x + 1\n",
    "engine/ext/helpers.py": b"Y = 2\n",
    "engine/ext.py": b"import os\nos.system('x')\n",
}


@pytest.mark.parametrize(
    ("dropped", "added", "found"),
    [
        (["engine/ext/__init__.py"], {}, True),
        (["engine/ext/__init__.py", "engine/ext.py"], {}, False),
        (["engine/ext/__init__.py", "engine/ext.py"], {"engine/ext.py": b"Z = 1\n"}, True),
    ],
    ids=["unmasked", "both-gone", "module-changed"],
)
def test_a_removed_package_init_unmasks_the_module_it_shadowed(
    tmp_path: Path, dropped: list[str], added: dict[str, bytes], found: bool
) -> None:
    """The base's `engine/ext/__init__.py` shadowed `engine/ext.py`, which never ran. The patch
    removes the `__init__` and keeps the module, listed identical: `import engine.ext` now runs
    it (was exit 0 with W202 only); changed, its diff is against code that never ran. Removing
    both leaves nothing to unmask."""
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", SHADOWED)
    kept = {k: v for k, v in SHADOWED.items() if k not in dropped}
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", {**kept, **added})
    code, report = run_json("wheels", base, patch)
    w628 = _w628(report)
    if not found:
        assert w628 == []
        return
    assert code == 1
    [finding] = w628
    assert finding["path"] == "engine/ext/__init__.py"
    assert finding["detail"] == (
        "the patch removes engine/ext/__init__.py and keeps engine/ext.py, which the package "
        "shadowed: 'import engine.ext' now loads engine/ext.py, code that never ran in the base"
    )


@pytest.mark.parametrize(
    ("tag", "found"),
    [
        ("cp311-cp311-win_amd64", True),
        ("cp311-cp311-macosx_11_0_arm64", True),
        ("py3-none-any", True),  # installs on Windows and macOS too
        ("cp311-cp311-manylinux_2_17_x86_64", False),
    ],
)
def test_an_init_in_another_case_shadows_where_paths_open_in_any_case(
    tmp_path: Path, tag: str, found: bool
) -> None:
    """`FileFinder` checks a package's `__init__` by its path: on Windows' and macOS' file
    systems `engine/ext/__INIT__.py` opens as `engine/ext/__init__.py`, so `import engine.ext`
    loads the package and `engine/ext.py` no longer runs (was exit 0 with W203 only). Linux
    opens no such path: there the directory is a namespace portion and the module wins."""
    init = "engine/ext/__INIT__.py"
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES, tag=tag)
    added = {**FILES, init: b"def run(x):\n    return x - 1\n"}
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", added, tag=tag)
    code, report = run_json("wheels", base, patch)
    if not found:
        assert (code, _w628(report)) == (0, [])
        return
    assert code == 1
    [finding] = _w628(report)
    assert finding["path"] == init
    assert finding["detail"] == (
        "the patch adds package engine/ext/ beside engine/ext.py: 'import engine.ext' loads "
        "the package, and engine/ext.py no longer runs"
    )


@pytest.mark.parametrize(
    ("tag", "kept", "found"),
    [
        ("py3-none-any", "engine/ext/__INIT__.pyc", True),  # installs on Linux too
        ("py3-none-manylinux_2_17_x86_64.macosx_11_0_arm64", "engine/ext/__INIT__.pyc", True),
        ("py3-none-macosx_11_0_arm64", "engine/ext/__INIT__.pyc", False),
        ("py3-none-win_amd64", "engine/ext/__INIT__.pyc", False),
        ("py3-none-any", "engine/ext/__init__.pyw", True),
        ("py3-none-win_amd64", "engine/ext/__init__.pyw", False),
        ("py3-none-manylinux_2_17_x86_64", "engine/ext/__init__.pyd", True),
        ("py3-none-win_amd64", "engine/ext/__init__.so", True),
        ("py3-none-win_amd64", "engine/ext/__init__.pyd", False),
        (TAG, "engine/ext/__init__.foo.so", True),  # no Python's suffix
        (TAG, "engine/ext/__init__.CPYTHON-311-x86_64-linux-gnu.so", True),
        (TAG, "engine/ext/__init__.abi3.so", False),
        (TAG, "engine/ext/__init__.cpython-311-x86_64-linux-gnu.so", False),
    ],
)
def test_an_init_kept_that_one_system_reads_unmasks_the_module_on_the_others(
    tmp_path: Path, tag: str, kept: str, found: bool
) -> None:
    """The patch removes `engine/ext/__init__.py` and keeps another `__init__` of the base's:
    `__INIT__.pyc` still makes `engine/ext` a package on macOS and Windows, `__init__.pyw` on
    Windows, `__init__.pyd` on Windows alone, `__init__.so` on Linux and macOS alone, and an
    extension only under a suffix some Python loads (not `__init__.foo.so`); where none does, `import engine.ext` now loads `engine/ext.py`, code that never ran in the base.
    Each system is judged apart (review69: one rule for every system the tags name read each
    as kept, exit 0)."""
    base_files = {
        **FILES,
        "engine/ext/__init__.py": b"def run(x):\n    return x\n",
        kept: _sourceless() if kept.endswith(".pyc") else b"def run(x):\n    return x\n",
    }
    rest = {k: v for k, v in base_files.items() if k != "engine/ext/__init__.py"}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", base_files, tag=tag)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", rest, tag=tag)
    code, report = run_json("wheels", base, patch)
    if not found:
        assert (code, _w628(report)) == (0, [])
        return
    assert code == 1
    [finding] = _w628(report)
    assert finding["path"] == "engine/ext/__init__.py"
    assert "'import engine.ext' now loads engine/ext.py" in finding["detail"]


@pytest.mark.parametrize(
    ("tag", "added", "found"),
    [
        ("py3-none-win_amd64", {"engine/ext/__init__.pyw": b"def run(x):\n    return 0\n"}, True),
        ("py3-none-any", {"engine/ext/__init__.pyw": b"def run(x):\n    return 0\n"}, True),
        ("py3-none-manylinux_2_17_x86_64", {"engine/ext/__init__.pyw": b"X = 0\n"}, False),
        ("py3-none-win_amd64", {"engine/ext.PY": b"def run(x):\n    return 0\n"}, True),
        ("py3-none-win_amd64", {"engine/ext.pyw": b"def run(x):\n    return 0\n"}, True),
        ("py3-none-macosx_11_0_arm64", {"engine/ext.PY": b"def run(x):\n    return 0\n"}, False),
    ],
)
def test_windows_reads_pyw_and_a_suffix_in_any_case_as_a_module(
    tmp_path: Path, tag: str, added: dict[str, bytes], found: bool
) -> None:
    """Python on Windows imports `.pyw` as source (after `.py`, before bytecode) and lowers a
    name's suffix before it matches it: `engine/ext/__init__.pyw` makes `engine/ext` a package
    there, shadowing `engine/ext.py`, and `engine/ext.PY` or `engine/ext.pyw` beside a
    sourceless `engine/ext.pyc` runs instead of it (review69: each passed, exit 0 with W203
    only). Linux and macOS import neither."""
    files = dict(FILES)
    if "engine/ext/__init__.pyw" not in added:  # beside a sourceless module
        del files["engine/ext.py"]
        files["engine/ext.pyc"] = _sourceless()
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files, tag=tag)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", {**files, **added}, tag=tag)
    code, report = run_json("wheels", base, patch)
    assert ([f["path"] for f in _w628(report)], code) == ((list(added), 1) if found else ([], 0))
