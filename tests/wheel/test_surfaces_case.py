"""Bytecode in another case, where a system the wheel installs on reads it (surf68).

`SourceFileLoader` opens the path `cache_from_source` computes, `__pycache__/m.cpython-311.pyc`,
and NTFS (Windows) and APFS (macOS) open it in any case; Windows' `FileFinder` lowers a name's
suffix, so a sourceless `m.PYC` is module `m` there. Before, `.PYC` and `__PYCACHE__/` were
never bytecode: an unchecked-hash cache that runs instead of the reviewed source passed `audit`
and `wheels` (exit 0). Linux reads none of them, so a Linux-only wheel's stay data files.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.test_installed_view import BASE_FILES, audit_code, codes, wheels_json
from wheel.tricks import build

UNCHECKED = importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + bytes(8) + b"\xe3code"
ANY, WINDOWS, MACOS = "py3-none-any", "py3-none-win_amd64", "py3-none-macosx_11_0_arm64"
LINUX = "py3-none-manylinux_2_17_x86_64"
CACHE_UPPER = "demo/__pycache__/__init__.cpython-311.PYC"
DIRECTORY_UPPER = "demo/__PYCACHE__/__init__.cpython-311.pyc"


def _bytecode(wheel: Path) -> list[dict[str, object]]:
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    surfaces = report["artifacts"][0]["execution_surfaces"]
    return [s for s in surfaces if s["kind"] == "bytecode"]


@pytest.mark.parametrize("tag", [ANY, WINDOWS, MACOS])
@pytest.mark.parametrize("cached", [CACHE_UPPER, DIRECTORY_UPPER])
def test_a_cache_in_another_case_runs_instead_of_its_source_where_paths_open_in_any_case(
    tmp_path: Path, tag: str, cached: str
) -> None:
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, cached: UNCHECKED}, tag=tag)

    exit_code, found = audit_code(patch)

    assert exit_code == 1 and "W711" in found
    [pyc] = _bytecode(patch)
    assert pyc["key"] == f"site-packages/{cached}"
    assert pyc["bytecode"]["source"] == "demo/__init__.py"  # type: ignore[index]
    assert pyc["bytecode"]["shadows_source"] is True  # type: ignore[index]


@pytest.mark.parametrize("cached", [CACHE_UPPER, DIRECTORY_UPPER])
def test_linux_opens_no_cache_in_another_case(tmp_path: Path, cached: str) -> None:
    """The same wheels tagged for Linux alone: no Python there opens these names."""
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, cached: UNCHECKED}, tag=LINUX)
    any_patch = build(tmp_path / "a", "2.0", {**BASE_FILES, cached: UNCHECKED}, tag=ANY)

    assert audit_code(patch) == (0, set())
    assert all(not pyc["bytecode"]["shadows_source"] for pyc in _bytecode(patch))  # type: ignore[index]
    assert audit_code(any_patch)[0] == 1  # the same file where the wheel installs on Windows


def test_the_source_is_found_in_the_case_the_file_system_finds_it(tmp_path: Path) -> None:
    """`import demo.util` on macOS opens `demo/__pycache__/util.cpython-311.pyc`, which APFS
    finds as `UTIL.cpython-311.pyc`: the cache of `demo/util.py`, added beside it unchanged."""
    base = build(tmp_path / "b", "1.0", BASE_FILES, tag=MACOS)
    cached = "demo/__pycache__/UTIL.cpython-311.pyc"
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, cached: UNCHECKED}, tag=MACOS)

    exit_code, report = wheels_json(base, patch)

    assert exit_code == 1
    assert {"W705", "W711"} <= codes(report)
    [pyc] = [s for s in report["execution_surfaces"]["patch"] if s["kind"] == "bytecode"]
    assert pyc["bytecode"]["source"] == "demo/util.py"
    assert "caches demo/util.py, runs instead of the source" in pyc["summary"]


@pytest.mark.parametrize(("tag", "fails"), [(WINDOWS, True), (ANY, True), (MACOS, False)])
def test_a_sourceless_module_in_another_case_is_bytecode_where_the_suffix_is_lowered(
    tmp_path: Path, tag: str, fails: bool
) -> None:
    """Windows' `FileFinder` lowers `extra.PYC` to `extra.pyc`: `import demo.extra` runs it.
    macOS's matches names as written, and runs nothing of it."""
    base = build(tmp_path / "b", "1.0", BASE_FILES, tag=tag)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo/extra.PYC": UNCHECKED}, tag=tag)

    exit_code, report = wheels_json(base, patch)

    assert exit_code == int(fails)
    assert ("W705" in codes(report)) is fails
    keys = [s["key"] for s in report["execution_surfaces"]["patch"] if s["kind"] == "bytecode"]
    assert keys == (["site-packages/demo/extra.PYC"] if fails else [])


POINTS = b"[pytest11]\nevil = demo.util:f\n"


@pytest.mark.parametrize(
    ("path", "tag", "key"),
    [
        ("demo-2.0.dist-info/ENTRY_POINTS.TXT", ANY, "site-packages/demo:pytest11:evil"),
        ("demo-2.0.dist-info/Entry_Points.txt", MACOS, "site-packages/demo:pytest11:evil"),
        ("other.egg-info/ENTRY_POINTS.TXT", WINDOWS, "site-packages/other:pytest11:evil"),
        ("demo-2.0.dist-info/ENTRY_POINTS.TXT", LINUX, None),
        ("other.egg-info/ENTRY_POINTS.TXT", LINUX, None),
    ],
)
def test_entry_points_in_another_case_load_where_paths_open_in_any_case(
    tmp_path: Path, path: str, tag: str, key: str | None
) -> None:
    """`importlib.metadata` opens `DIRECTORY/entry_points.txt` by its path: Windows and macOS
    find `ENTRY_POINTS.TXT` there, and pytest loads its `pytest11` plugin (pip, reading the
    archive, generates no script from it). Before, it passed `wheels` as a plain file."""
    base = build(tmp_path / "b", "1.0", BASE_FILES, tag=tag)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, path: POINTS}, tag=tag)

    exit_code, report = wheels_json(base, patch)

    points = [s["key"] for s in report["execution_surfaces"]["patch"] if s["kind"] == "entry-point"]
    assert points == ([] if key is None else [key])
    assert exit_code == (key is not None)
    assert ("W704" in codes(report)) is (key is not None)
