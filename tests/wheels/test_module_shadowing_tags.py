"""W628 by the patch's tags (w629c): an `__init__` in another case (`engine/ext/__INIT__.py`)
is data on Linux, where `import engine.ext` loads `engine/ext.py`, and a package's `__init__`
on Windows and macOS, whose file systems open `engine/ext/__init__.py` in any case. A base
tagged for Linux alone that holds one is harmless; a patch that keeps it unchanged and adds
Windows or macOS tags installs it where `engine/ext.py` no longer runs. On the code before,
W628 read the patch's entries the patch added alone, so the pair passed (exit 0). Held to pip 26
and CPython's `FileFinder` (`wheel.importoracle`)."""

from __future__ import annotations

import importlib.util
import marshal
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json
from wheel.importoracle import MAC_313, WINDOWS_313, Target, installed_origin

from wheels.test_module_shadowing import FILES

LINUX_TAG = "py3-none-manylinux_2_17_x86_64"
INIT = "engine/ext/__INIT__.py"
_PYC = importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(compile("", "x", "exec"))
LINUX_311 = Target("3.11", ("cp311",), "manylinux_2_17_x86_64", "linux", (".so",))


def _w628(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == "W628"]


def _pair(
    tmp_path: Path, base_tag: str, patch_tag: str, files: dict[str, bytes]
) -> tuple[Path, int, dict[str, Any]]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files, tag=base_tag)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.1", files, tag=patch_tag)
    code, report = run_json("wheels", base, patch)
    return patch, code, report


@pytest.mark.parametrize(
    ("platform", "target", "system"),
    [("win_amd64", WINDOWS_313, "win_amd64"), ("macosx_11_0_arm64", MAC_313, "darwin")],
)
def test_a_kept_init_in_another_case_is_the_patchs_where_its_tags_make_it_live(
    tmp_path: Path, platform: str, target: Target, system: str
) -> None:
    """The finding names the system the patch's tags add that it holds on, as W629 names it
    (tags70: "a system", unnamed)."""
    files = {**FILES, INIT: b"def run(x):\n    return x - 1\n"}
    patch, code, report = _pair(tmp_path, LINUX_TAG, f"{LINUX_TAG}.{platform}", files)
    # The oracle: on Linux the module runs, on the added system the package does.
    assert installed_origin(patch, LINUX_311, "engine", "ext") == "ext.py"
    assert installed_origin(patch, target, "engine", "ext") == "ext/__init__.py"
    assert code == 1, report["findings"]
    [finding] = _w628(report)
    assert finding["path"] == INIT
    assert finding["severity"] == "error"
    assert finding["detail"] == (
        f"the patch's tags add a system ({system}) where engine/ext/__INIT__.py, kept from "
        "a base whose tags installed it on none such, makes package engine/ext/ beside "
        "engine/ext.py: 'import engine.ext' loads the package, and engine/ext.py no longer runs"
    )


def test_a_changed_init_in_another_case_is_the_patchs_too(tmp_path: Path) -> None:
    base_files = {**FILES, INIT: b"X = 1\n"}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", base_files, tag=LINUX_TAG)
    patch_files = {**FILES, INIT: b"X = 2\n"}
    patch = wheelkit.make_wheel(
        tmp_path / "patch", "engine", "1.1", patch_files, tag=f"{LINUX_TAG}.win_amd64"
    )
    code, report = run_json("wheels", base, patch)
    assert code == 1
    assert [f["path"] for f in _w628(report)] == [INIT]


KEPT = {**FILES, INIT: b"X = 1\n"}


@pytest.mark.parametrize(
    ("base_tag", "patch_tag", "files"),
    [
        # The base installed on Windows too: the shadow was the base's.
        (f"{LINUX_TAG}.win_amd64", f"{LINUX_TAG}.win_amd64", KEPT),
        ("py3-none-any", "py3-none-any", KEPT),
        # Linux alone on both sides: the directory is a namespace portion, the module runs.
        (LINUX_TAG, LINUX_TAG, KEPT),
        # A package already on every system, by its `__init__` as written, which the finder
        # tries before the bytecode the added tags make an `__init__` too.
        (
            LINUX_TAG,
            f"{LINUX_TAG}.win_amd64",
            {**FILES, "engine/ext/__init__.py": b"", "engine/ext/__INIT__.pyc": _PYC},
        ),
    ],
)
def test_an_init_in_another_case_the_base_made_live_or_none_makes_live_passes(
    tmp_path: Path, base_tag: str, patch_tag: str, files: dict[str, bytes]
) -> None:
    _, code, report = _pair(tmp_path, base_tag, patch_tag, files)
    assert _w628(report) == [], report["findings"]
    assert code == 0, report["findings"]


def test_a_kept_source_in_another_case_runs_instead_of_bytecode_where_its_tags_read_it(
    tmp_path: Path,
) -> None:
    """`engine/ext/__INIT__.py` beside a sourceless `engine/ext/__init__.pyc`: the finder tries
    source before bytecode, and on Windows and macOS opens `__init__.py` in any case, so the
    kept source runs there instead of the bytecode that ran on the base's Linux (passed on the
    code before, exit 0)."""
    files = {**FILES, INIT: b"X = 1\n", "engine/ext/__init__.pyc": _PYC}
    patch, code, report = _pair(tmp_path, LINUX_TAG, f"{LINUX_TAG}.win_amd64", files)
    assert installed_origin(patch, LINUX_311, "engine", "ext") == "ext/__init__.pyc"
    assert installed_origin(patch, WINDOWS_313, "engine", "ext") == "ext/__init__.py"
    assert code == 1
    [finding] = _w628(report)
    assert finding["path"] == INIT
    assert finding["detail"] == (
        "the patch's tags add a system (win_amd64) where engine/ext/__INIT__.py, kept from "
        "a base whose tags installed it on none such, is a module file beside "
        "engine/ext/__init__.pyc: 'import engine.ext' loads it, and engine/ext/__init__.pyc no "
        "longer runs"
    )


def test_a_kept_source_whose_suffix_windows_lowers_is_the_patchs(tmp_path: Path) -> None:
    """Windows' finder lowers a file's suffix: `engine/ext.PY`, data on Linux, is module
    `engine.ext`'s source there, tried before the base's sourceless `engine/ext.pyc`."""
    files = {**FILES, "engine/ext.pyc": _PYC, "engine/ext.PY": b"X = 2\n"}
    del files["engine/ext.py"]
    patch, code, report = _pair(tmp_path, LINUX_TAG, f"{LINUX_TAG}.win_amd64", files)
    assert installed_origin(patch, LINUX_311, "engine", "ext") == "ext.pyc"
    assert installed_origin(patch, WINDOWS_313, "engine", "ext") == "ext.py"
    assert code == 1
    assert [f["path"] for f in _w628(report)] == ["engine/ext.PY"]


@pytest.mark.parametrize(
    ("added", "said"),
    [
        ("engine/ext/__init__.pyw", "the patch adds package engine/ext/ beside engine/ext.py"),
        ("engine/ext/__INIT__.PYW", "the patch adds package engine/ext/ beside engine/ext.py"),
    ],
)
def test_an_added_windows_source_shadows_on_windows(tmp_path: Path, added: str, said: str) -> None:
    """Windows lists `.pyw` as a source and lowers a suffix: a package `__init__` named so
    shadows `engine/ext.py` there (passed on the code before, exit 0)."""
    tag = "py3-none-win_amd64"
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES, tag=tag)
    files = {**FILES, added: b"X = 1\n"}
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.1", files, tag=tag)
    assert installed_origin(patch, WINDOWS_313, "engine", "ext") == "ext/__init__.pyw"
    code, report = run_json("wheels", base, patch)
    assert code == 1
    [finding] = _w628(report)
    assert finding["path"] == added and finding["detail"].startswith(said), finding


@pytest.mark.parametrize(
    ("base_tag", "patch_tag", "extension", "target"),
    [
        # Linux loads no `.pyd`: a Linux base's is data there, Windows' extension.
        (LINUX_TAG, f"{LINUX_TAG}.win_amd64", "engine/ext.pyd", WINDOWS_313),
        # Windows loads no `.so`: a Windows base's is data there, Linux's extension.
        ("py3-none-win_amd64", f"{LINUX_TAG}.win_amd64", "engine/ext.so", LINUX_311),
    ],
)
def test_a_kept_extension_only_an_added_system_loads_shadows_the_module_there(
    tmp_path: Path, base_tag: str, patch_tag: str, extension: str, target: Target
) -> None:
    """An extension the base kept beside `engine/ext.py` that none of the base's systems loads,
    in a patch whose tags add one that does: there the finder tries it before the source, so
    `engine/ext.py` no longer runs (merge of review69 and w629c: each system judged apart; on
    the code before, and on either branch, the pair passed, exit 0). No native change, which
    `--allow-native-changes` would let pass: the extension is the base's, unchanged."""
    files = {**FILES, extension: b"\x7fELF"}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files, tag=base_tag)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.1", files, tag=patch_tag)
    assert installed_origin(patch, target, "engine", "ext") == extension.removeprefix("engine/")
    code, report = run_json("wheels", base, patch, "--allow-native-changes")
    assert code == 1, report["findings"]
    [finding] = _w628(report)
    assert finding["path"] == extension
    assert finding["severity"] == "error" and not finding.get("native")
    assert f"where {extension}, kept from a base" in finding["detail"]
    assert "'import engine.ext' loads it, and engine/ext.py no longer runs" in finding["detail"]


def test_a_module_named_init_in_another_case_is_one_on_linux(tmp_path: Path) -> None:
    """On Linux `engine/__INIT__.pyc` is module `engine.__INIT__`'s, not the package's
    `__init__`: `engine/__INIT__.py` added beside it, sourceless, runs instead of it (W628 on
    the code before; review69's index by module name looked it up under `__init__` and passed
    it, exit 0)."""
    files = {**FILES, "engine/__INIT__.pyc": _PYC}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files, tag=LINUX_TAG)
    added = {**files, "engine/__INIT__.py": b"X = 2\n"}
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.1", added, tag=LINUX_TAG)
    assert installed_origin(patch, LINUX_311, "engine", "__INIT__") == "__INIT__.py"
    code, report = run_json("wheels", base, patch)
    assert code == 1
    assert [f["path"] for f in _w628(report)] == ["engine/__INIT__.py"]


@pytest.mark.parametrize(
    ("base_tag", "init", "found"),
    [
        ("py3-none-win_amd64", "engine/ext/__init__.pyw", True),  # Linux lists no `.pyw`
        ("py3-none-macosx_11_0_arm64", "engine/ext/__INIT__.py", True),  # opened by path
        ("py3-none-win_amd64", "engine/ext/__init__.py", False),  # Linux's `__init__` too
    ],
)
def test_a_kept_init_an_added_system_reads_as_none_unmasks_the_module_there(
    tmp_path: Path, base_tag: str, init: str, found: bool
) -> None:
    """The mirror of a kept file read anew: a base tagged for Windows or macOS alone, whose
    `engine/ext/__init__.pyw` or `__INIT__.py` makes `engine/ext` a package there, shadowing
    `engine/ext.py`, and a patch keeping both that adds a Linux tag: on Linux the directory is
    a namespace portion and `import engine.ext` loads `engine/ext.py`, code that never ran in
    the base (merge of review69 and w629c; on the code before, and on either branch, exit 0)."""
    files = {**FILES, init: b"def run(x):\n    return x - 1\n"}
    platform = base_tag.rpartition("-")[2]
    patch, code, report = _pair(tmp_path, base_tag, f"{LINUX_TAG}.{platform}", files)
    linux = installed_origin(patch, LINUX_311, "engine", "ext")
    assert linux == ("ext.py" if found else "ext/__init__.py")
    if not found:
        assert (code, _w628(report)) == (0, []), report["findings"]
        return
    assert code == 1, report["findings"]
    [finding] = _w628(report)
    assert finding["path"] == init
    assert finding["detail"] == (
        f"the patch's tags add a system (x86_64-linux-gnu) where {init}, kept from a base whose "
        "every system read "
        "it as its package's __init__, is none, and keeps engine/ext.py, which the package "
        "shadowed: 'import engine.ext' now loads engine/ext.py, code that never ran in the base"
    )


def test_a_kept_init_names_every_added_system_it_holds_on(tmp_path: Path) -> None:
    """A patch adding Windows and macOS tags to a Linux base: the kept `__INIT__.py` makes the
    package on both, and the one finding names both (tags70: "a system")."""
    files = {**FILES, INIT: b"X = 1\n"}
    patch_tag = f"{LINUX_TAG}.win_amd64.macosx_11_0_arm64"
    patch, code, report = _pair(tmp_path, LINUX_TAG, patch_tag, files)
    assert installed_origin(patch, MAC_313, "engine", "ext") == "ext/__init__.py"
    assert installed_origin(patch, WINDOWS_313, "engine", "ext") == "ext/__init__.py"
    assert code == 1
    [finding] = _w628(report)
    assert finding["detail"].startswith(
        "the patch's tags add systems (darwin, win_amd64) where engine/ext/__INIT__.py, kept "
    )
