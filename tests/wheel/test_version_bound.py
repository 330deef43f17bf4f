"""Extensions no Python the wheel installs on imports (W629, both commands): a module whose
files are all named for CPython versions (`_C.cpython-312-x86_64-linux-gnu.so`) is found by
those versions' import systems alone, while pip installs the wheel on every version its tags
admit. A `cp311-cp311` wheel built by a 3.12 interpreter, or a `cp311.cp312` one with the 3.11
file alone, passed both commands (exit 0) though `import demo._ext` fails where pip installs it
(review65b); so did a `py3-none-PLATFORM` one, which pip installs on every Python 3 while only
the named version imports it (tags66). A file of no version beside it (`.abi3.so`, `.so`) is
found on every version; an abi3 wheel's version-bound names are A123/W625's.

Names are read by their ABI, not only their version (abi67): a free-threaded build's
(`cpython-313t`), a debug build's (`cpython-313d`), PyPy's (`pypy310-pp73`) and the stable ABI's
(`.abi3.so`, which neither PyPy nor a free-threaded build loads) are found by those Pythons
alone; before, each counted as its version's or as found everywhere, and the wheel passed."""

from __future__ import annotations

import importlib.machinery
import json
import shutil
import sys
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.rawwheel import metadata, write_wheel
from wheel.test_abi3 import STABLE_OLD, extension
from wheel.test_installed_view import audit_code, codes, wheels_json

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the extensions")

PLATFORM = "manylinux_2_17_x86_64"


def _named(version: str) -> str:
    return f"demo/_ext.cpython-{version}-x86_64-linux-gnu.so"


def _wheel(tmp_path: Path, tag: str, *names: str, requires_python: str | None = None) -> Path:
    so = extension(tmp_path / "c", *STABLE_OLD)
    files = {"demo/__init__.py": b"", **{name: so for name in names}}
    extra = () if requires_python is None else (f"Requires-Python: {requires_python}",)
    meta = metadata("demo", "1.0", *extra)
    return write_wheel(tmp_path / tag, "demo", "1.0", files, tag=tag, meta=meta)


def _w629(wheel: Path) -> list[tuple[str, str]]:
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    return [
        (f["path"], f["detail"])
        for a in report["artifacts"]
        for f in a["findings"]
        if f["code"] == "W629"
    ]


def test_the_running_pythons_suffix_is_the_one_the_rule_reads() -> None:
    """The rule's premise, held to this CPython: a version-bound suffix first, then the
    version-free ones (`.abi3.so`, `.so`)."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    version = f"{sys.version_info[0]}{sys.version_info[1]}"
    if sys.platform.startswith("linux"):
        assert suffixes[0].startswith(f".cpython-{version}") and suffixes[-1] == ".so"
        assert ".abi3.so" in suffixes


def test_the_running_pythons_own_suffixes_are_read_as_its_own() -> None:
    """Each suffix this interpreter's import system finds is read as one it finds (or as one of
    no ABI), with the interpreter and ABI packaging tags it by: the rule's reading and
    CPython's agree here."""
    from packaging.tags import sys_tags

    from k3diff.wheel.extsuffix import file_abi

    own = next(iter(sys_tags()))
    python = (own.interpreter, own.abi)
    read = [file_abi(f"_C{suffix}") for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    assert [abi is None or abi.finds(python) for abi in read] == [True] * len(read), read
    assert any(abi is not None for abi in read)


@pytest.mark.parametrize(
    ("tag", "names", "missing"),
    [
        (f"cp311-cp311-{PLATFORM}", [_named("312")], "on CPython 3.11 'import demo._ext'"),
        (
            f"cp311.cp312-cp311.cp312-{PLATFORM}",
            [_named("311")],
            "on CPython 3.12 'import demo._ext'",
        ),
        # Open-ended tags (tags66): pip installs these on every Python 3 (from 3.8), and
        # `pip install` on 3.13 puts a wheel there whose extension no import finds.
        (
            f"py3-none-{PLATFORM}",
            [_named("311")],
            "on CPython 3.0-3.10, 3.12+, free-threaded CPython 3.13+, GraalPy 3.10-3.12, "
            "PyPy 3.6-3.11 'import demo._ext'",
        ),
        (
            f"py38-none-{PLATFORM}",
            [_named("311"), _named("312")],
            "on CPython 3.8-3.10, 3.13+, free-threaded CPython 3.13+, GraalPy 3.10-3.12, "
            "PyPy 3.8-3.11 'import demo._ext'",
        ),
    ],
)
def test_a_module_no_admitted_python_finds_fails(
    tmp_path: Path, tag: str, names: list[str], missing: str
) -> None:
    wheel = _wheel(tmp_path, tag, *names)
    found = _w629(wheel)
    assert [path for path, _ in found] == names, found
    assert missing in found[0][1], found
    assert audit_code(wheel) == (1, {"W629"})
    base = _wheel(tmp_path / "b", tag, "demo/_ext.so")
    exit_code, report = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W629" in codes(report)


@pytest.mark.parametrize(
    ("tag", "names"),
    [
        (f"cp311-cp311-{PLATFORM}", [_named("311")]),
        (f"cp311.cp312-cp311.cp312-{PLATFORM}", [_named("311"), _named("312")]),
        (f"py3-none-{PLATFORM}", [_named("311"), "demo/_ext.so"]),  # not judged: a bare .so
        (f"cp313-cp313t-{PLATFORM}", [_named("313t")]),
        (f"cp39-abi3-{PLATFORM}", ["demo/_ext.abi3.so"]),
        (f"cp313-cp313.cp313t-{PLATFORM}", [_named("313"), _named("313t")]),
        (f"pp310-pypy310_pp73-{PLATFORM}", ["demo/_ext.pypy310-pp73-x86_64-linux-gnu.so"]),
    ],
)
def test_a_module_every_admitted_python_finds_passes(
    tmp_path: Path, tag: str, names: list[str]
) -> None:
    wheel = _wheel(tmp_path, tag, *names)
    assert _w629(wheel) == []
    assert audit_code(wheel) == (0, set())


@pytest.mark.parametrize(
    ("requires_python", "missing"),
    [
        (">=3.11,<3.13", "on GraalPy 3.11-3.12, PyPy 3.11"),
        (">=3.11", "on CPython 3.13+, free-threaded CPython 3.13+, GraalPy 3.11-3.12, PyPy 3.11"),
        (
            "~=3.9",
            "on CPython 3.9-3.10, 3.13+, free-threaded CPython 3.13+, GraalPy 3.10-3.12, "
            "PyPy 3.9-3.11",
        ),
        (
            "<3.25",
            "on CPython 3.0-3.10, 3.13-3.24, free-threaded CPython 3.13-3.24, GraalPy 3.10-3.12, "
            "PyPy 3.6-3.11",
        ),
    ],
)
def test_the_wheels_requires_python_bounds_the_pythons_judged(
    tmp_path: Path, requires_python: str, missing: str
) -> None:
    """pip refuses a wheel on a Python its Requires-Python excludes: a `py3` wheel with the
    3.11 and 3.12 files that requires `>=3.11,<3.13` is missing on PyPy 3.11 and GraalPy alone
    (review66b: before, W629 failed it for 3.0-3.10 and 3.13 on); requiring `>=3.11`, 3.13 on
    is missing too; a bound past the horizon (`<3.25`) is no open run."""
    so = extension(tmp_path / "c", *STABLE_OLD)
    files = {"demo/__init__.py": b"", _named("311"): so, _named("312"): so}
    meta = metadata("demo", "1.0", f"Requires-Python: {requires_python}")
    wheel = write_wheel(tmp_path / "w", "demo", "1.0", files, tag=f"py3-none-{PLATFORM}", meta=meta)
    found = _w629(wheel)
    assert [f"{missing} 'import demo._ext'" in detail for _, detail in found] == [True, True]
    assert audit_code(wheel) == (1, {"W629"})


def test_an_abi3_wheel_says_it_once_as_a123(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path, f"cp38-abi3-{PLATFORM}", _named("312"))
    assert audit_code(wheel) == (1, {"A123"})


@pytest.mark.parametrize(
    ("requires_python", "missing"),
    [
        # pip installs the wheel only where its Requires-Python admits the Python (left66:
        # these failed W629 for every other CPython, though pip installs them on 3.11 alone;
        # abi67: PyPy 3.11 and GraalPy 3.11 are such Pythons, and find no cpython-311 file).
        ("==3.11.*", "install it on CPython 3.11, GraalPy 3.11, PyPy 3.11: on GraalPy 3.11, "
         "PyPy 3.11 'import demo._ext'"),
        (">=3.11,<3.12", "on GraalPy 3.11, PyPy 3.11 'import"),
        ("~=3.11.2", "on GraalPy 3.11, PyPy 3.11 'import"),
        (">=3.11.2,<3.11.50", "on GraalPy 3.11, PyPy 3.11 'import"),  # a bound inside 3.11
        # Narrowed, but not to the versions named: said with the specifier.
        (">=3.10", "and Requires-Python '>=3.10' install it on CPython 3.10+, free-threaded "
         "CPython 3.13+, GraalPy 3.10-3.12, PyPy 3.10-3.11: on CPython 3.10, 3.12+, "
         "free-threaded CPython 3.13+, GraalPy 3.10-3.12, PyPy 3.10-3.11 'import demo._ext'"),
        ("!=3.12.*", "install it on CPython 3.0-3.11, 3.13+, free-threaded CPython 3.13+, "
         "GraalPy 3.10-3.11, PyPy 3.6-3.11: on CPython 3.0-3.10, 3.13+,"),
        ("<3.12", "install it on CPython 3.0-3.11, GraalPy 3.10-3.11, PyPy 3.6-3.11: on "
         "CPython 3.0-3.10, GraalPy 3.10-3.11, PyPy 3.6-3.11 'import demo._ext'"),
        # A specifier pip cannot read narrows nothing (pip warns and installs the wheel).
        ("3.11 please", "while its tags install it on CPython 3.0+, free-threaded CPython "
         "3.13+, GraalPy 3.10-3.12, PyPy 3.6-3.11: on CPython 3.0-3.10, 3.12+,"),
    ],
)  # fmt: skip
def test_requires_python_narrows_the_pythons_pip_installs_on(
    tmp_path: Path, requires_python: str, missing: str
) -> None:
    tag = f"py3-none-{PLATFORM}"
    wheel = _wheel(tmp_path, tag, _named("311"), requires_python=requires_python)
    found = _w629(wheel)
    base = _wheel(tmp_path / "b", tag, "demo/_ext.so", requires_python=requires_python)
    exit_code, report = wheels_json(base, wheel, "--allow-native-changes")
    assert [path for path, _ in found] == [_named("311")] and missing in found[0][1], found
    assert exit_code == 1 and "W629" in codes(report)


def _codes_of(wheel: Path) -> set[str]:
    return audit_code(wheel)[1]


WINDOWS = "win_amd64"
MAC = "macosx_11_0_arm64"


@pytest.mark.parametrize(
    ("tag", "names", "missing"),
    [
        # A free-threaded build's name (PEP 703's `t`): a normal 3.13 finds no such file, and
        # the reverse; before, both counted as 3.13's and passed.
        (f"cp313-cp313-{PLATFORM}", [_named("313t")], "on CPython 3.13 'import"),
        (f"cp313-cp313t-{PLATFORM}", [_named("313")], "on free-threaded CPython 3.13 'import"),
        (f"cp313-cp313-{MAC}", ["demo/_ext.cpython-313t-darwin.so"], "on CPython 3.13 'import"),
        # A debug build's name (`d`): only a debug CPython finds it.
        (f"cp313-cp313-{PLATFORM}", [_named("313d")], "on CPython 3.13 'import"),
        # Windows: `.cp313t-….pyd` is the free-threaded build's (dynload_win's tagged suffix).
        (f"cp313-cp313-{WINDOWS}", ["demo/_ext.cp313t-win_amd64.pyd"], "on CPython 3.13 'imp"),
        (
            f"cp313-cp313t-{WINDOWS}",
            ["demo/_ext.cp313-win_amd64.pyd"],
            "on free-threaded CPython 3.13 'import",
        ),
        # A Windows debug build's name: `_d` before the tagged suffix, beside a file of
        # `_ext`, is module `_ext`'s, for a debug 3.13 alone (left67: before, read as a module
        # `_ext_d` every 3.13 finds; alone it may be `_ext_d`'s: test_version_bound_debug_names).
        (
            f"cp313-cp313-{WINDOWS}",
            ["demo/_ext.cp312-win_amd64.pyd", "demo/_ext_d.cp313-win_amd64.pyd"],
            "named for CPython 3.12, debug CPython 3.13 alone, while its tags install it on "
            "CPython 3.13: on CPython 3.13 'import demo._ext' finds no file",
        ),
        # PyPy's names are PyPy's alone (before: read as found everywhere).
        (
            f"cp311-cp311-{PLATFORM}",
            ["demo/_ext.pypy310-pp73-x86_64-linux-gnu.so"],
            "named for PyPy 3.10 alone, while its tags install it on CPython 3.11: on CPython "
            "3.11 'import demo._ext' finds no file",
        ),
        (
            f"py3-none-{PLATFORM}",
            ["demo/_ext.pypy310-pp73-x86_64-linux-gnu.so"],
            "on CPython 3.0+, free-threaded CPython 3.13+, GraalPy 3.10-3.12, PyPy 3.6-3.9, "
            "3.11 'import",
        ),
        # The stable ABI: no free-threaded build or PyPy loads `.abi3.so` (3.13 and 3.14 list
        # it and crash, cpython#120901; 3.15 dropped it); 3.15's `.abi3t.so` both builds do.
        (
            f"cp313-cp313t-{PLATFORM}",
            ["demo/_ext.abi3.so"],
            "named for the stable ABI (abi3) alone, while its tags install it on free-threaded "
            "CPython 3.13: on free-threaded CPython 3.13 'import",
        ),
        (
            f"py3-none-{PLATFORM}",
            ["demo/_ext.abi3.so"],
            "on CPython 3.0-3.1, free-threaded CPython 3.13+, GraalPy 3.10-3.12, PyPy 3.6-3.11",
        ),
        (
            f"cp315-abi3.abi3t-{PLATFORM}",
            ["demo/_ext.abi3.so"],
            "on free-threaded CPython 3.15+ 'import",
        ),
    ],
)
def test_a_name_read_by_its_abi_fails_where_the_tags_install_another(
    tmp_path: Path, tag: str, names: list[str], missing: str
) -> None:
    """Before abi67 each of these passed both commands (exit 0), though pip installs the wheel
    on a Python whose import system finds none of its files."""
    wheel = _wheel(tmp_path, tag, *names)
    found = _w629(wheel)
    assert [path for path, _ in found] == names, found
    assert missing in found[0][1], found
    assert run_k3diff("audit", wheel).exit_code == 1
    base = _wheel(tmp_path / "b", tag, "demo/_ext.so")
    exit_code, report = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W629" in codes(report)


@pytest.mark.parametrize(
    ("tag", "names"),
    [
        (f"cp313-cp313-{WINDOWS}", ["demo/_ext.cp313-win_amd64.pyd"]),
        (f"cp313-cp313t-{WINDOWS}", ["demo/_ext.cp313t-win_amd64.pyd"]),
        (f"cp37-cp37m-{PLATFORM}", [_named("37m")]),
        (f"cp313-cp313d-{PLATFORM}", [_named("313d")]),  # a tag naming the debug ABI
        (f"cp313-cp313d-{WINDOWS}", ["demo/_ext_d.cp313-win_amd64.pyd"]),
        (
            f"cp313-cp313-{WINDOWS}",
            ["demo/_ext.cp313-win_amd64.pyd", "demo/_ext_d.cp313-win_amd64.pyd"],
        ),
        (f"cp315-abi3.abi3t-{PLATFORM}", ["demo/_ext.abi3t.so"]),
        (f"cp313-cp313t-{PLATFORM}", ["demo/_ext.abi3.so", _named("313t")]),
    ],
)
def test_a_name_every_python_the_tags_install_on_finds_passes(
    tmp_path: Path, tag: str, names: list[str]
) -> None:
    assert "W629" not in _codes_of(_wheel(tmp_path, tag, *names))


@pytest.mark.parametrize(
    ("tag", "name", "named_for"),
    [
        (f"cp311-cp311-{PLATFORM}", "demo/_ext.pypy310-pp73-x86_64-linux-gnu.so", "PyPy 3.10"),
        (f"cp313-cp313t-{PLATFORM}", "demo/_ext.abi3.so", "the stable ABI (abi3)"),
    ],
)
def test_the_finding_says_what_fails_whatever_the_file_is_named_for(
    tmp_path: Path, tag: str, name: str, named_for: str
) -> None:
    """newuser67: W629's message said "extension named for CPython versions other than some its
    tags install it on" above a detail saying the file was named for PyPy 3.10, or for the
    stable ABI: the finding is that some Python the wheel installs on cannot import it."""
    result = run_k3diff("audit", _wheel(tmp_path, tag, name))
    assert result.exit_code == 1, result.stderr
    # The finding's line; the next steps below it name W629 too (words73).
    (line,) = [x for x in result.stdout.splitlines() if "W629" in x and "named for" in x]
    assert "CPython versions" not in line, line
    said = "extension not importable on some Python its tags install it on: named for "
    assert f"{said}{named_for} alone" in line, line
