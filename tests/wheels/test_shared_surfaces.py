"""A patch whose installed files are its base's objects (`wheel.installedbeside`) has its
execution surfaces found among its other files only, the base's answers standing for the files
both share (`wheel.surfacepaths`). Whatever surface the patch adds, drops, renames, moves or
twins, it gets the verdict it gets with nothing taken from the base: the same exit status, JSON
report and text, through the CLI."""

from __future__ import annotations

import importlib.util
import struct
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_json, run_k3diff
from wheel.rawwheel import write_wheel

import k3diff.wheel.surfacepaths as surfacepaths

_SIZE = 40
"""Files in the base: more than `installedbeside._FEW_OTHERS`, so its view is shared."""
_PYC = importlib.util.MAGIC_NUMBER + struct.pack("<I", 1) + b"\0" * 8 + b"code"
"""An unchecked-hash pyc: it runs instead of its source whatever the source says."""
_Files = dict[str, bytes]


def _files() -> _Files:
    return {f"engine/m{i:03}.py": f"X = {i}\n".encode() for i in range(_SIZE)}


def _with(files: _Files, at: int, added: _Files) -> _Files:
    """`files` with `added` put before its file at `at`."""
    items = list(files.items())
    return dict([*items[:at], *added.items(), *items[at:]])


def _renamed(files: _Files, old: str, new: str) -> _Files:
    return {new if name == old else name: data for name, data in files.items()}


_HOOK = {"hook.pth": b"import os; os.system('id')\n"}
_LATE = {"zeta/b.py": b"B = 1\n"}
_Pair = Callable[[_Files], tuple[_Files, _Files]]


def _same_base(patch: Callable[[_Files], _Files]) -> _Pair:
    return lambda files: (files, patch(files))


CASES: dict[str, _Pair] = {
    "a .pth added at the end": _same_base(lambda f: {**f, **_HOOK}),
    "a .pth added among the shared files": _same_base(lambda f: _with(f, 20, _HOOK)),
    "a sitecustomize added": _same_base(lambda f: {**f, "sitecustomize.py": b"import evil\n"}),
    "a customize package added": _same_base(lambda f: {**f, "usercustomize/__init__.py": b""}),
    "a pyc added that runs instead of its source": _same_base(
        lambda f: {**f, "engine/__pycache__/m005.cpython-311.pyc": _PYC}
    ),
    "a new top-level module": _same_base(lambda f: {**f, "evil.py": b"E = 1\n"}),
    "another distribution's entry points added": _same_base(
        lambda f: {**f, "other.egg-info/entry_points.txt": b"[pytest11]\nevil = engine.m001\n"}
    ),
    "console scripts added": _same_base(
        lambda f: {**f, "engine-1.0.dist-info/entry_points.txt": b"[console_scripts]\npip = a:b\n"}
    ),
    "a .data script added": _same_base(
        lambda f: {**f, "engine-1.0.data/scripts/run": b"#!python\nimport evil\n"}
    ),
    "a tool's file added": _same_base(
        lambda f: {**f, "engine-1.0.data/data/etc/ipython/ipython_config.py": b"import evil\n"}
    ),
    "a .pth removed from the end": lambda f: ({**f, **_HOOK}, f),
    "a pyc removed from the end": lambda f: (
        {**f, "engine/__pycache__/m005.cpython-311.pyc": _PYC},
        f,
    ),
    "entry points of another distribution removed": lambda f: (
        {**f, "other.egg-info/entry_points.txt": b"[pytest11]\nevil = engine.m001\n"},
        f,
    ),
    "a .pth renamed by case at the end": lambda f: (
        {**f, **_HOOK},
        {**f, "HOOK.pth": _HOOK["hook.pth"]},
    ),
    "a .pth renamed to a module at the end": lambda f: ({**f, **_HOOK}, {**f, "hook.py": b""}),
    "a case twin of a shared .pth": lambda f: (
        {**_HOOK, **f},
        {**_HOOK, **f, "Hook.pth": b"import evil\n"},
    ),
    "a shared .pth's lines changed": lambda f: (
        _with(f, 5, _HOOK),
        _with(f, 5, {"hook.pth": b"import evil\n"}),
    ),
    "a shared .pth moved to the end": lambda f: (_with(f, 5, _HOOK), {**f, **_HOOK}),
    "a top-level package's first file moved up": lambda f: (
        {**f, **_LATE},
        {**f, "zeta/a.py": b"A = 1\n", **_LATE},
    ),
    "a top-level package gone past the shared files": lambda f: (
        {**f, **_LATE},
        {**f, "zeta.py": b"Z = 1\n"},
    ),
    "a top-level name twinned by case": _same_base(lambda f: {**f, "Engine/m000.py": b"X = 0\n"}),
    "a shared module renamed in place": _same_base(
        lambda f: _renamed(f, "engine/m039.py", "engine/sitecustomize.py")
    ),
}

SHARED = {
    "a .pth added at the end",
    "a .pth added among the shared files",
    "a sitecustomize added",
    "a customize package added",
    "a pyc added that runs instead of its source",
    "a new top-level module",
    "another distribution's entry points added",
    "console scripts added",
    "a .pth removed from the end",
    "a pyc removed from the end",
    "entry points of another distribution removed",
    "a .pth renamed by case at the end",
    "a .pth renamed to a module at the end",
    "a shared .pth's lines changed",
    "a top-level package's first file moved up",
    "a top-level package gone past the shared files",
    "a shared module renamed in place",
}
"""Cases whose patch takes the base's answers for some of its files: the test is not vacuous."""


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many scans took the base's answers for some files."""
    taken: Counter[str] = Counter()
    real = surfacepaths._shared

    def counted(*args: Any) -> int:
        found: int = real(*args)
        taken["scans"] += found > 0
        return found

    monkeypatch.setattr(surfacepaths, "_shared", counted)
    return taken


def _verdict(base: Path, patch: Path) -> tuple[int, dict[str, Any], int, str, str]:
    code, report = run_json("wheels", base, patch)
    text = run_k3diff("wheels", base, patch)
    return code, report, text.exit_code, text.stdout, text.stderr


def test_a_data_file_that_reaches_site_packages_only_under_the_patch_s_tags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same names at the same places, but the patch's tags take a `.data` file into
    site-packages, where it is a new top-level module: nothing of the base's stands for it."""
    files = {**_files(), "engine-1.0.data/data/lib/python3.11/site-packages/evil.py": b"E\n"}
    base = write_wheel(tmp_path / "base", "engine", "1.0", files, tag="cp312-cp312-linux_x86_64")
    patch = write_wheel(tmp_path / "patch", "engine", "1.0", files, tag="cp311-cp311-linux_x86_64")
    with_shared = _verdict(base, patch)
    w709 = [f["detail"] for f in with_shared[1]["findings"] if f["code"] == "W709"]
    assert w709 == ["added: top-level name 'evil' (import evil)"]
    monkeypatch.setattr(surfacepaths, "_shared", lambda *args: 0)
    assert _verdict(base, patch) == with_shared


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_patch_s_surfaces_are_the_ones_it_gets_with_nothing_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared: Counter[str], case: str
) -> None:
    base_files, patch_files = CASES[case](_files())
    base = write_wheel(tmp_path / "base", "engine", "1.0", base_files)
    patch = write_wheel(tmp_path / "patch", "engine", "1.0", patch_files)
    with_shared = _verdict(base, patch)
    assert with_shared[0] == with_shared[2]
    assert shared["scans"] >= (case in SHARED)
    monkeypatch.setattr(surfacepaths, "_shared", lambda *args: 0)
    assert _verdict(base, patch) == with_shared
