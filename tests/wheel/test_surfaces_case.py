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
import os
import py_compile
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.pipinstall import pip_install
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


@pytest.mark.parametrize("name", ["__init__.{tag}.pyc", "__init__.{tag}.PYC"])
def test_the_linux_verdict_is_what_an_install_runs(tmp_path: Path, name: str) -> None:
    """pip 26 installs the wheel (`--target`) and this Python, on Linux's case-sensitive file
    system, imports it in a child: the unchecked `.pyc` runs instead of the source, the `.PYC`
    never does. k3diff says the same of a Linux-only wheel (macOS and Windows, whose file
    systems find the `.PYC`, cannot be run here: CPython's `cache_from_source` and
    `SourceFileLoader.get_data` are the source of that verdict)."""
    source = tmp_path / "m.py"
    source.write_text("VALUE = 'attacker'\n")
    compiled = tmp_path / "m.pyc"
    py_compile.compile(
        str(source), str(compiled), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH
    )
    cached = f"demo/__pycache__/{name.format(tag=sys.implementation.cache_tag)}"
    wheel = build(tmp_path / "p", "2.0", {**BASE_FILES, cached: compiled.read_bytes()}, tag=LINUX)
    assert pip_install(wheel, tmp_path / "site").ok
    ran = subprocess.run(
        [sys.executable, "-B", "-c", "import demo; print(demo.VALUE)"],
        capture_output=True, text=True, check=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(tmp_path / "site")},
    ).stdout.strip()  # fmt: skip

    exit_code, found = audit_code(wheel)

    assert ran == ("attacker" if name.endswith(".pyc") else "1")
    assert (ran == "attacker") == ("W711" in found) == (exit_code == 1)


@pytest.mark.parametrize("name", ["entry_points.txt", "ENTRY_POINTS.TXT"])
def test_the_linux_verdict_on_entry_points_is_what_importlib_metadata_reads(
    tmp_path: Path, name: str
) -> None:
    """The same for another distribution's entry points: `importlib.metadata` in a child sees
    the `pytest11` point of `other.egg-info/entry_points.txt`, and none of `ENTRY_POINTS.TXT`."""
    base = build(tmp_path / "b", "1.0", BASE_FILES, tag=LINUX)
    other = {
        "other.egg-info/PKG-INFO": b"Metadata-Version: 2.1\nName: other\nVersion: 1.0\n",
        f"other.egg-info/{name}": POINTS,
    }
    wheel = build(tmp_path / "p", "2.0", {**BASE_FILES, **other}, tag=LINUX)
    assert pip_install(wheel, tmp_path / "site").ok
    read = (
        "import sys; from importlib.metadata import distributions; print(sum(p.group == "
        "'pytest11' for d in distributions(path=sys.argv[1:]) for p in d.entry_points))"
    )
    seen = subprocess.run(
        [sys.executable, "-c", read, str(tmp_path / "site")],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()  # fmt: skip

    exit_code, report = wheels_json(base, wheel)

    assert seen == ("1" if name == "entry_points.txt" else "0")
    assert ("W704" in codes(report)) == (seen == "1") == (exit_code == 1)


def test_msys2s_mingw_python_reads_names_as_windows_does(tmp_path: Path) -> None:
    """A `mingw_x86_64_ucrt` wheel installs on MSYS2's MinGW Python, a Windows build on NTFS."""
    patch = build(
        tmp_path / "p",
        "2.0",
        {**BASE_FILES, CACHE_UPPER: UNCHECKED},
        tag="py3-none-mingw_x86_64_ucrt",
    )
    assert audit_code(patch) == (1, {"A141", "W711"})  # A141: PyPI refuses the tag (hunt80)


def test_a_pyo_in_another_case_stays_a_data_file(tmp_path: Path) -> None:
    """No Python since 3.5 opens a `.pyo` (PEP 488), in any case: not a new failure."""
    cached = "demo/__pycache__/__init__.cpython-311.PYO"
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, cached: UNCHECKED}, tag=ANY)
    assert audit_code(patch) == (0, set())
    assert _bytecode(patch) == []


CYGWIN = "py3-none-cygwin_3_5_4_x86_64"


@pytest.mark.parametrize("cached", [CACHE_UPPER, DIRECTORY_UPPER])
def test_cygwins_python_opens_a_cache_in_another_case(tmp_path: Path, cached: str) -> None:
    """A `cygwin_…` wheel installs on Cygwin's Python (and MSYS2's, a Cygwin fork), whose
    `open` finds a path in any case on NTFS (Cygwin's default, the kernel's
    `obcaseinsensitive`): `cache_from_source`'s path opens `__PYCACHE__/…` and `….PYC` there.
    Before (review68c), the tag was read as a case-sensitive system's and the cache passed."""
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, cached: UNCHECKED}, tag=CYGWIN)
    assert audit_code(patch) == (1, {"A141", "W711"})  # A141: PyPI refuses the tag (hunt80)


def test_cygwins_importlib_metadata_reads_entry_points_in_another_case(tmp_path: Path) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES, tag=CYGWIN)
    points = {"demo-2.0.dist-info/ENTRY_POINTS.TXT": POINTS}
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, **points}, tag=CYGWIN)

    exit_code, report = wheels_json(base, patch)

    assert exit_code == 1 and "W704" in codes(report)


@pytest.mark.parametrize("scheme", ["purelib", "platlib"])
def test_entry_points_a_data_file_writes_into_the_own_dist_info_load(
    tmp_path: Path, scheme: str
) -> None:
    """pip generates scripts from the archive's own `demo-2.0.dist-info/entry_points.txt`
    alone; one `demo-2.0.data/purelib/` writes there is read by `importlib.metadata`, and
    pytest loads its `pytest11` plugin. Before (review68c), it was taken for pip's own file
    and passed `wheels`, exit 0."""
    base = build(tmp_path / "b", "1.0", BASE_FILES, tag=LINUX)
    delivered = {f"demo-2.0.data/{scheme}/demo-2.0.dist-info/entry_points.txt": POINTS}
    wheel = build(tmp_path / "p", "2.0", {**BASE_FILES, **delivered}, tag=LINUX)
    assert pip_install(wheel, tmp_path / "site").ok
    read = (
        "import sys; from importlib.metadata import distributions; print(sum(p.group == "
        "'pytest11' for d in distributions(path=sys.argv[1:]) for p in d.entry_points))"
    )
    seen = subprocess.run(
        [sys.executable, "-c", read, str(tmp_path / "site")],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()  # fmt: skip

    exit_code, report = wheels_json(base, wheel)

    assert seen == "1"
    assert exit_code == 1 and "W704" in codes(report)
    points = [s["key"] for s in report["execution_surfaces"]["patch"] if s["kind"] == "entry-point"]
    assert points == ["site-packages/demo:pytest11:evil"]
