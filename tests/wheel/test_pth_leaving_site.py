"""A `.pth` path line that leaves site-packages puts the wheel's other directories on `sys.path`:
pip installs `.data/data/` under the prefix, `.data/scripts/` in `bin/` (`Scripts/`), and
`.data/headers/` in the include directory, so `../../../share/demo` in a venv's
`lib/pythonX.Y/site-packages/demo.pth` names `share/demo`, where the wheel's
`demo-2.0.data/data/share/demo/sitecustomize.py` lands, and `site` imports it at every start.
Before (pth70), W702 resolved lines inside site-packages alone: each such patch passed `wheels`
(exit 0; W706 for the path line, informational), and a venv's `python -c pass` ran the module.

The oracle is the install itself: pip 26 installs the wheel into a fresh venv and its Python
runs; for the layouts this machine cannot install into (Windows, `--user`), CPython's
`sysconfig` schemes, which pip 26 installs by (`pip._internal.locations._sysconfig`), with the
separators of the system's own path module."""

from __future__ import annotations

import importlib.util
import json
import ntpath
import os
import posixpath
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_json

from wheel.tricks import build

BASE = {"demo/__init__.py": b"X = 1\n"}
MARK = "customize ran"
RUNS = f"print({MARK!r})\n".encode()
PY = sysconfig.get_python_version()
LINUX = "py3-none-manylinux_2_17_x86_64"
WINDOWS = "py3-none-win_amd64"
DATA_MODULE = "demo-2.0.data/data/share/demo/sitecustomize.py"


def _wheels(
    tmp_path: Path,
    files: dict[str, bytes],
    base: dict[str, bytes] = BASE,
    tag: str = "py3-none-any",
) -> tuple[int, dict[str, Any], Path]:
    old = build(tmp_path / "b", "1.0", base, tag=tag)
    new = build(tmp_path / "p", "2.0", {**BASE, **files}, tag=tag)
    code, report = run_json("wheels", old, new, "--format", "json")
    assert code in (0, 1), report
    return code, report, new


def _w702(report: dict[str, Any]) -> dict[str, str]:
    return {f["path"]: f["detail"] for f in report["findings"] if f["code"] == "W702"}


def _runs_in_a_venv(tmp_path: Path, wheel: Path) -> bool:
    """pip 26 installs `wheel` into a fresh venv, whose `python -c pass` then starts."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
         "--disable-pip-version-check", "--quiet", wheel],
        check=True, capture_output=True, timeout=300,
        env={**os.environ, "PIP_NO_INPUT": "1", "PIP_CONFIG_FILE": os.devnull},
    )  # fmt: skip
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    done = subprocess.run(
        [python, "-c", "pass"], capture_output=True, text=True, env=clean, timeout=60, check=True
    )
    return MARK in done.stdout


@pytest.mark.skipif(
    importlib.util.find_spec("sitecustomize") is not None,
    reason="this Python has its own sitecustomize, which site imports first",
)
@pytest.mark.parametrize(
    ("line", "module"),
    [
        ("../../../share/demo", DATA_MODULE),
        ("../../../bin", "demo-2.0.data/scripts/sitecustomize.py"),
        (f"../../../include/site/python{PY}/demo", "demo-2.0.data/headers/sitecustomize.py"),
        (f"../../python{PY}/site-packages/demo_extra", "demo_extra/sitecustomize.py"),
        (
            "demo_extra",
            f"demo-2.0.data/data/lib/python{PY}/site-packages/demo_extra/sitecustomize.py",
        ),
        ("{venv}/share/demo", DATA_MODULE),
    ],
)
def test_a_customize_module_a_line_puts_on_sys_path_fails_as_the_install_runs_it(
    tmp_path: Path, line: str, module: str
) -> None:
    """Each ran in a venv and passed before, exit 0: data, a script, a header, site-packages
    named again through its version directory, and an absolute line naming the venv; and a
    module `.data/data/` writes into site-packages (which W702 saw before, and must still)."""
    text = line.format(venv=tmp_path / "venv")
    code, report, new = _wheels(tmp_path, {"demo.pth": f"{text}\n".encode(), module: RUNS})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1
    assert module in _w702(report)
    assert "W706" in {f["code"] for f in report["findings"]}  # the path line itself


def test_a_line_that_leaves_the_prefix_names_no_file_of_the_wheel(tmp_path: Path) -> None:
    code, report, new = _wheels(
        tmp_path, {"demo.pth": b"../../../../share/demo\n", DATA_MODULE: RUNS}
    )
    assert not _runs_in_a_venv(tmp_path, new)
    assert not _w702(report) and code == 0


def test_a_version_directory_is_site_packages_on_that_version_alone(tmp_path: Path) -> None:
    """`../../python3.11/site-packages/demo_extra` is site-packages' `demo_extra` on 3.11
    alone: a wheel tagged for 3.12 alone installs it where no line names."""
    files = {"demo.pth": b"../../python3.11/site-packages/demo_extra\n"}
    files["demo_extra/sitecustomize.py"] = RUNS
    code, report, _ = _wheels(tmp_path / "311", files, tag="cp311-cp311-manylinux_2_17_x86_64")
    assert code == 1 and "demo_extra/sitecustomize.py" in _w702(report)
    code, report, _ = _wheels(tmp_path / "312", files, tag="cp312-cp312-manylinux_2_17_x86_64")
    assert code == 0 and not _w702(report)


_SCHEMES = [
    ("posix_prefix", posixpath, LINUX, "/opt/p"),
    ("posix_user", posixpath, LINUX, "/home/u/.local"),
    ("osx_framework_user", posixpath, "py3-none-macosx_11_0_arm64", "/Users/u/Library/Python/3.12"),
    ("nt", ntpath, WINDOWS, "C:\\Python312"),
    ("nt_user", ntpath, WINDOWS, "C:\\Users\\u\\AppData\\Roaming\\Python"),
]


def _scheme_paths(scheme: str, base: str) -> dict[str, str]:
    if scheme not in sysconfig.get_scheme_names():
        pytest.skip(f"this Python's sysconfig has no {scheme}")
    names = ("base", "platbase", "installed_base", "installed_platbase", "userbase")
    variables = dict.fromkeys(names, base) | {"py_version_nodot_plat": "312"}
    variables |= {"py_version_short": "3.12", "py_version_nodot": "312", "platlibdir": "lib"}
    variables |= {"implementation": "Python", "implementation_lower": "python", "abi_thread": ""}
    return sysconfig.get_paths(scheme, vars=variables, expand=True)


@pytest.mark.parametrize(("scheme", "path", "tag", "base"), _SCHEMES)
@pytest.mark.parametrize(
    ("kind", "under", "module"),
    [
        ("data", ("share", "demo"), DATA_MODULE),
        ("scripts", (), "demo-2.0.data/scripts/sitecustomize.py"),
        ("include", ("demo",), "demo-2.0.data/headers/sitecustomize.py"),  # pip: include/NAME
    ],
)
def test_every_scheme_pip_installs_by_is_a_layout(
    tmp_path: Path,
    scheme: str,
    path: Any,
    tag: str,
    base: str,
    kind: str,
    under: tuple[str, ...],
    module: str,
) -> None:
    """The line is written from the scheme's own directories, as its system's path module
    relates them (`os.path.relpath`), and names where the scheme puts the wheel's data,
    scripts or headers: the module there runs wherever pip installs the wheel by that scheme
    (outside a venv: pip puts a venv's headers in `include/site/pythonX.Y/`, held above)."""
    paths = _scheme_paths(scheme, base)
    line = path.relpath(path.join(paths[kind], *under), paths["purelib"])
    code, report, _ = _wheels(tmp_path, {"demo.pth": f"{line}\n".encode(), module: RUNS}, tag=tag)
    assert code == 1, (line, report["findings"])
    assert module in _w702(report)


def test_a_windows_line_is_read_with_windows_separators_on_windows_alone(tmp_path: Path) -> None:
    """`..\\..\\share\\demo` leaves `Lib\\site-packages` on Windows; on Linux it is one name
    inside site-packages, which holds nothing."""
    files = {"demo.pth": b"..\\..\\share\\demo\n", DATA_MODULE: RUNS}
    code, report, _ = _wheels(tmp_path / "win", files, tag=WINDOWS)
    assert code == 1 and DATA_MODULE in _w702(report)
    code, report, _ = _wheels(tmp_path / "linux", files, tag=LINUX)
    assert code == 0 and not _w702(report)


def test_a_line_windows_reads_in_its_code_page_may_name_any_directory(tmp_path: Path) -> None:
    """Python up to 3.12 decodes a `.pth` in the locale's encoding (3.13 too where UTF-8
    fails), on Windows a code page: `demo_extr\\xe1` is `demo_extrá` in cp1252, whatever
    k3diff decodes (review70b: passed, exit 0). Linux's is UTF-8, which fails there instead."""
    files = {"demo.pth": b"demo_extr\xe1\n", "demo_extr\u00e1/sitecustomize.py": RUNS}
    code, report, _ = _wheels(tmp_path / "win", files, tag=WINDOWS)
    assert code == 1, report["findings"]
    assert "demo.pth that is not UTF-8" in _w702(report)["demo_extr\u00e1/sitecustomize.py"]
    code, report, _ = _wheels(tmp_path / "linux", files, tag=LINUX)
    assert code == 0 and not _w702(report)


def test_mingw_reads_a_line_as_windows_does_in_the_posix_layout(tmp_path: Path) -> None:
    """MSYS2's MinGW Python is a Windows build (`os.path` is `ntpath`: both separators) whose
    `sys.path` uses the POSIX layout (`/mingw64/lib/python3.12/site-packages`; MSYS2's
    docs/python.md), and pip installs `.data/data/` under its prefix: `..\\..\\..\\share\\demo`
    names `share/demo` there (review70b: read with `/` alone, and it passed, exit 0)."""
    files = {"demo.pth": b"..\\..\\..\\share\\demo\n", DATA_MODULE: RUNS}
    code, report, _ = _wheels(tmp_path, files, tag="cp312-cp312-mingw_x86_64_ucrt_gnu")
    assert code == 1 and DATA_MODULE in _w702(report), report["findings"]


@pytest.mark.parametrize(
    ("line", "module"),
    [
        ("demo_extra.", "demo_extra/sitecustomize.py"),
        ("demo_extra. . .", "demo_extra/sitecustomize.py"),
        ("demo_extra./inner", "demo_extra/inner/sitecustomize.py"),
        ("C:\\opt\\app.\\share\\demo..", DATA_MODULE),
    ],
)
def test_a_windows_line_names_a_directory_less_its_trailing_dots(
    tmp_path: Path, line: str, module: str
) -> None:
    """`site.makepath` is `abspath`, `GetFullPathNameW` on Windows, which drops a segment's one
    trailing period and the path's trailing periods and spaces ("File path formats on Windows
    systems": trimming characters), so `demo_extra.` puts `demo_extra` on `sys.path` there
    (review70b: named no directory of the wheel, and it passed, exit 0). On Linux it is a name
    of its own, which the wheel does not install."""
    files = {"demo.pth": f"{line}\n".encode(), module: RUNS}
    code, report, _ = _wheels(tmp_path / "win", files, tag=WINDOWS)
    assert code == 1 and module in _w702(report), report["findings"]
    code, report, _ = _wheels(tmp_path / "linux", files, tag=LINUX)
    assert code == 0 and not _w702(report)


@pytest.mark.parametrize(
    ("line", "tag", "prefix"),
    [
        ("/usr/local/share/demo", LINUX, "/usr/local"),
        ("/srv/venv/lib/python3.12/site-packages/../../../share/demo", LINUX, "/srv/venv"),
        ("C:\\Users\\u\\venv\\share\\demo", WINDOWS, "C:/Users/u/venv"),
    ],
)
def test_an_absolute_line_names_where_the_wheel_lands_under_some_prefix(
    tmp_path: Path, line: str, tag: str, prefix: str
) -> None:
    """The wheel cannot know its prefix: a module it installs under a directory an absolute
    line ends with runs where the prefix is the rest (as the venv above shows), and the finding
    says which prefix."""
    code, report, _ = _wheels(
        tmp_path, {"demo.pth": f"{line}\n".encode(), DATA_MODULE: RUNS}, tag=tag
    )
    assert code == 1
    assert f"where the wheel installs under {prefix}" in _w702(report)[DATA_MODULE]


def test_a_long_absolute_line_is_said_cut(tmp_path: Path) -> None:
    """A `.pth` line may be 16 KiB: the finding says it (and the prefix it implies) cut, once,
    not twice whole (pth70's first version put 2 x 12,000 characters in one detail)."""
    line = "/" + "x" * 12_000 + "/share/demo"
    code, report, _ = _wheels(
        tmp_path, {"demo.pth": f"{line}\n".encode(), DATA_MODULE: RUNS}, tag=LINUX
    )
    detail = _w702(report)[DATA_MODULE]
    assert code == 1
    assert "where the wheel installs under /xxx" in detail and len(detail) < 1_000


def test_an_absolute_line_naming_no_directory_of_the_wheel_passes(tmp_path: Path) -> None:
    code, report, _ = _wheels(
        tmp_path, {"demo.pth": b"/usr/local/share/other\n", DATA_MODULE: RUNS}, tag=LINUX
    )
    assert code == 0 and not _w702(report)
    assert "W706" in {f["code"] for f in report["findings"]}


@pytest.mark.parametrize(
    ("line", "kept", "added"),
    [
        ("../../../share/demo", "demo-{v}.data/data/share/demo/readme.txt", DATA_MODULE),
        ("/opt/demo/share/demo", "demo-{v}.data/data/share/demo/readme.txt", DATA_MODULE),
        ("demo_extra", "demo_extra/x.py", "demo_extra/sitecustomize.py"),
    ],
)
def test_a_customize_module_added_under_a_kept_line_fails(
    tmp_path: Path, line: str, kept: str, added: str
) -> None:
    """The base's `.pth`, unchanged, names a directory the patch adds a customize module to:
    no line changed (no W706), the module is new (W702)."""
    pth = {"demo.pth": f"{line}\n".encode()}
    base = {**BASE, **pth, kept.format(v="1.0"): b"notes\n"}
    code, report, _ = _wheels(
        tmp_path, {**pth, kept.format(v="2.0"): b"notes\n", added: RUNS}, base
    )
    assert code == 1 and added in _w702(report), report["findings"]
    assert "W706" not in {f["code"] for f in report["findings"]}


@pytest.mark.skipif(
    importlib.util.find_spec("sitecustomize") is not None,
    reason="this Python has its own sitecustomize, which site imports first",
)
@pytest.mark.parametrize(
    ("line", "kept", "added"),
    [
        ("demo_extra", "demo_extra/x.py", "demo_extra/sitecustomize.py"),
        ("../../../share/demo", "demo-{v}.data/data/share/demo/readme.txt", DATA_MODULE),
    ],
)
def test_a_line_past_the_bytes_k3diff_reads_of_a_kept_pth_still_counts(
    tmp_path: Path, line: str, kept: str, added: str
) -> None:
    """k3diff reads 16 KiB of a `.pth`, `site` all of it: the base's 17 KiB `demo.pth`, kept,
    whose last line names a directory the patch adds a customize module to (review70b: passed,
    exit 0, and the venv ran it)."""
    pth = {"demo.pth": b"# notes\n" * 2200 + f"{line}\n".encode()}
    base = {**BASE, **pth, kept.format(v="1.0"): b"notes\n"}
    code, report, new = _wheels(
        tmp_path, {**pth, kept.format(v="2.0"): b"notes\n", added: RUNS}, base
    )
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1, report["findings"]
    assert "where a line of site-packages/demo.pth past the 16 KiB" in _w702(report)[added]


def test_audit_lists_the_customize_module_where_it_lands(tmp_path: Path) -> None:
    files = {**BASE, "demo.pth": b"../../../share/demo\n", DATA_MODULE: RUNS}
    _, report = run_json("audit", build(tmp_path, "2.0", files), "--format", "json")
    surfaces = report["artifacts"][0]["execution_surfaces"]
    found = [s for s in surfaces if s["kind"] == "customize"]
    assert [s["key"] for s in found] == ["share/demo/sitecustomize.py"], json.dumps(surfaces)
    assert "share/demo under the install prefix" in found[0]["summary"]


def test_a_line_in_another_case_names_the_directory_where_paths_open_in_any_case(
    tmp_path: Path,
) -> None:
    """`../../../BIN` is `bin/`, where `.data/scripts/` lands, on macOS's file system (APFS,
    as formatted by default) and Windows'; on Linux it names nothing."""
    files = {"demo.pth": b"../../../BIN\n", "demo-2.0.data/scripts/sitecustomize.py": RUNS}
    code, report, _ = _wheels(tmp_path / "mac", files, tag="py3-none-macosx_11_0_arm64")
    assert code == 1 and "demo-2.0.data/scripts/sitecustomize.py" in _w702(report)
    code, report, _ = _wheels(tmp_path / "linux", files, tag=LINUX)
    assert not _w702(report)
