"""What one wheel makes run at every interpreter start, as `audit` judges it alone: a
`sitecustomize` or `usercustomize` module it installs fails (W702: start-up code for every
program of the environment, which no library needs), and a `.pth` file's executable lines are
a warning naming the modules they import (A127: setuptools, pywin32 and editable installs ship
them). Before (pth71), `audit` of a wheel carrying a `sitecustomize.py` passed, exit 0, while
`wheels` failed the patch that added it; a `.pth` import line was listed as a surface alone.

The oracle is the install itself: pip 26 installs the wheel into a fresh venv, whose
`python -c pass` prints the module's mark (`test_pth_leaving_site._runs_in_a_venv`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from cli_support import run_k3diff
from wheel.test_pth_imports import PRECEDENCE
from wheel.test_pth_leaving_site import BASE, RUNS, _runs_in_a_venv
from wheel.tricks import build

from audit.helpers import all_findings, audit_json, codes

CUSTOMIZE = {
    "a sitecustomize module": ({"sitecustomize.py": RUNS}, "sitecustomize.py", True),
    "a sitecustomize package": (
        {"sitecustomize/__init__.py": RUNS},
        "sitecustomize/__init__.py",
        True,
    ),
    "one in a data directory a path line names": (
        {
            "demo.pth": b"../../../share/demo\n",
            "demo-1.0.data/data/share/demo/sitecustomize.py": RUNS,
        },
        "demo-1.0.data/data/share/demo/sitecustomize.py",
        True,
    ),
    # a venv disables the user site, whose start imports `usercustomize`: no oracle here
    "a usercustomize module": ({"usercustomize.py": RUNS}, "usercustomize.py", False),
}


@pytest.mark.skipif(
    importlib.util.find_spec("sitecustomize") is not None,
    reason="this Python has its own sitecustomize, which site imports first",
)
@pytest.mark.parametrize(("files", "module", "oracle"), CUSTOMIZE.values(), ids=list(CUSTOMIZE))
def test_a_wheel_that_installs_a_customize_module_fails_audit(
    tmp_path: Path, files: dict[str, bytes], module: str, oracle: bool
) -> None:
    wheel = build(tmp_path / "w", "1.0", {**BASE, **files})
    assert _runs_in_a_venv(tmp_path, wheel) is oracle
    code, report = audit_json(wheel)
    assert code == 1
    [finding] = [f for f in all_findings(report) if f["code"] == "W702"]
    assert finding["path"] == module and finding["severity"] == "error"
    assert "customize: imported by site at every start" in finding["detail"]
    text = run_k3diff("audit", wheel)
    assert text.exit_code == 1 and f"W702 {module}" in text.stdout


HOOKS = {
    "an import line and what its module imports": (
        b"import demo_hook\n",
        {"demo_hook.py": b"import demo_inner\n", "demo_inner.py": RUNS},
        "line 1 imports demo_hook; modules of this wheel they run: site-packages/demo_hook.py, "
        "site-packages/demo_inner.py",
    ),
    "setuptools' distutils-precedence shape": (
        PRECEDENCE,
        {"_distutils_hack/__init__.py": RUNS + b"def add_shim():\n    pass\n"},
        "line 1 imports os, _distutils_hack; modules of this wheel they run: "
        "site-packages/_distutils_hack/__init__.py",
    ),
    "a line that computes what it imports (hooks72: said nothing of it)": (
        b"import os; name = 'demo_' + 'inner'; __import__(name)\n",
        {"demo_inner.py": RUNS},
        "line 1 imports os (`__import__` of a computed name at line 1: it may import any "
        "module); modules of this wheel they run: site-packages/demo/__init__.py, "
        "site-packages/demo_inner.py",
    ),
}


@pytest.mark.parametrize(("line", "files", "said"), HOOKS.values(), ids=list(HOOKS))
def test_a_pth_import_line_is_a_warning_naming_what_it_runs(
    tmp_path: Path, line: bytes, files: dict[str, bytes], said: str
) -> None:
    wheel = build(tmp_path / "w", "1.0", {**BASE, "demo.pth": line, **files})
    assert _runs_in_a_venv(tmp_path, wheel)
    code, report = audit_json(wheel)
    assert code == 0, all_findings(report)
    assert codes(report) == {"A127": 1}
    [finding] = all_findings(report)
    assert finding["path"] == "demo.pth" and finding["severity"] == "info"
    # What it runs, then why it is only a warning and what to check; not the code's own "at
    # every start" again, nor a count of path lines (newuser71: on setuptools' wheel it said
    # "1 executable line run at every start, 0 path lines: ... the wheel's modules so run: ...").
    assert finding["detail"] == (
        f"{said}; listed, not failed (setuptools, pywin32, namespace packages and editable "
        "installs ship such lines): check they are the ones the project means to ship"
    )
    assert report["verdict"]["warnings"] == 1
    text = run_k3diff("audit", wheel)
    assert text.exit_code == 0
    assert (
        f"A127 (warning) demo.pth: .pth file with lines executed at every interpreter start: {said}; "
        in text.stdout
    )


def test_a_pth_of_path_lines_alone_is_no_finding(tmp_path: Path) -> None:
    wheel = build(tmp_path / "w", "1.0", {**BASE, "demo.pth": b"demo_extra\n"})
    code, report = audit_json(wheel)
    assert code == 0 and not all_findings(report)
