"""Names Windows reads as another file: Win32 drops the trailing dots and spaces of every path
component (`demo/util.py.`, `demo /util.py`), `NAME::$DATA` is NAME's own contents and
`demo::$INDEX_ALLOCATION/` the directory `demo/` (review64), so pip
installing a pure wheel on Windows writes such an entry over the module it aliases; so does an
8.3 short name (`LONGMO~1.PY`) for a long name beside it, on a volume that makes them (a
system drive's, by default). Like case
twins (one file on Windows and macOS), they are W615 wherever they land, in both commands
(review63: each exited 0, the patch's module on Windows replaced unseen, `demo/util.py`
compared identical). On Linux pip writes them apart, and k3diff's identical claims still hold
there."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel.pipinstall import pip_install
from wheel.test_installed_view import BASE_FILES, EVIL, audit_code, codes, wheels_json
from wheel.tricks import build


@pytest.mark.parametrize(
    ("alias", "aliased"),
    [
        ("demo/util.py.", "demo/util.py"),
        ("demo/util.py ", "demo/util.py"),
        ("demo/util.py. . ", "demo/util.py"),
        ("demo /util.py", "demo/util.py"),
        ("demo./__init__.py", "demo/__init__.py"),
        ("demo/util.py::$DATA", "demo/util.py"),
        ("demo/UTIL.PY::$data", "demo/util.py"),
        # review64: a directory's index stream names the directory (exit 0 before)
        ("demo::$INDEX_ALLOCATION/util.py", "demo/util.py"),
        ("Demo:$I30:$Index_Allocation/util.py", "demo/util.py"),
        ("demo. ::$INDEX_ALLOCATION/__init__.py", "demo/__init__.py"),
        ("demo/util.py::$DATA. ", "demo/util.py"),
    ],
)
def test_a_name_windows_reads_as_a_module_is_w615(tmp_path: Path, alias: str, aliased: str) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, alias: EVIL})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    assert "W615" in codes(report)
    detail = next(f["detail"] for f in report["findings"] if f["code"] == "W615")
    assert repr(alias) in detail and repr(aliased) in detail
    assert "on Windows" in detail
    audit_exit, found = audit_code(patch)
    assert audit_exit == 1 and "W615" in found


def test_a_colon_stream_or_an_inner_dot_is_no_alias(tmp_path: Path) -> None:
    """`util.py:x` is a stream beside util.py's contents, `util.py.bak` another file."""
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    extra = {"demo/util.py.bak": b"", "demo/util.py:x": b""}
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, **extra})
    _, report = wheels_json(base, patch)
    assert "W615" not in codes(report)
    assert pip_install(patch, tmp_path / "ip").ok


LONG = {"demo/longmodule.py": b"X = 1\n", "demo/subpackage/__init__.py": b""}


@pytest.mark.parametrize(
    ("alias", "aliased"),
    [
        ("demo/LONGMO~1.PY", "demo/longmodule.py"),
        ("demo/longmo~2.py", "demo/longmodule.py"),
        ("demo/SUBPAC~1/__init__.py", "demo/subpackage/__init__.py"),
    ],
)
def test_an_8_3_short_name_of_a_long_name_beside_it_is_w615(
    tmp_path: Path, alias: str, aliased: str
) -> None:
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, **LONG})
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, **LONG, alias: EVIL})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    detail = next(f["detail"] for f in report["findings"] if f["code"] == "W615")
    assert repr(alias) in detail and repr(aliased) in detail and "8.3" in detail


def test_a_tilde_name_no_long_name_abbreviates_is_no_alias(tmp_path: Path) -> None:
    """`util.py` is its own short name, and nothing beside `other~1.py` starts with `other`."""
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, **LONG})
    extra = {
        "demo/util~1.py": b"",
        "demo/other~1.py": b"",
        "demo/longmo~1.txt": b"",
        "demo/longmo~1.pyxz": b"",
    }
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, **LONG, **extra})
    _, report = wheels_json(base, patch)
    assert "W615" not in codes(report)
