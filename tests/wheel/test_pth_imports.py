"""A `.pth` import line runs the module it names at every interpreter start, for every program
of the environment, as `site` runs a `sitecustomize`: a patch that changes or adds that module
changes what runs at every start (W702), whether the line is new or kept. Before (review70b), a
kept `import demo_hook` and a changed `demo_hook.py` passed `wheels` (exit 0, W201), and a
venv's `python -c pass` ran the patch's module.

The oracle is the install itself: pip 26 installs the patch into a fresh venv, whose
`python -c pass` prints the module's mark (`test_pth_leaving_site._runs_in_a_venv`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_support import run_json

from wheel.test_pth_leaving_site import BASE, RUNS, _runs_in_a_venv, _w702
from wheel.tricks import build

QUIET = b"X = 1\n"
PRECEDENCE = (
    b"import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') "
    b"== 'local'; enabled and __import__('_distutils_hack').add_shim(); \n"
)
HACK = RUNS + b"def add_shim():\n    pass\n"


def _pair(
    tmp_path: Path, base: dict[str, bytes], patch: dict[str, bytes]
) -> tuple[int, dict[str, Any], Path]:
    old = build(tmp_path / "b", "1.0", {**BASE, **base})
    new = build(tmp_path / "p", "2.0", {**BASE, **patch})
    code, report = run_json("wheels", old, new)
    return code, report, new


CASES = {
    "kept line, changed module": (
        b"import demo_hook\n",
        {"demo_hook.py": QUIET},
        {"demo_hook.py": RUNS},
        "demo_hook.py",
    ),
    "kept line, module added": (b"import demo_hook\n", {}, {"demo_hook.py": RUNS}, "demo_hook.py"),
    "kept line, package added": (
        b"import demo_hook\n",
        {},
        {"demo_hook/__init__.py": RUNS},
        "demo_hook/__init__.py",
    ),
    "kept line after a path line, second line": (
        b"demo\nimport os, demo_hook.sub\n",
        {"demo_hook/__init__.py": b"", "demo_hook/sub.py": QUIET},
        {"demo_hook/__init__.py": b"", "demo_hook/sub.py": RUNS},
        "demo_hook/sub.py",
    ),
    "from a package import a submodule": (
        b"import sys; from demo_hook import sub\n",
        {"demo_hook/__init__.py": b""},
        {"demo_hook/__init__.py": b"", "demo_hook/sub.py": RUNS},
        "demo_hook/sub.py",
    ),
    "setuptools' distutils-precedence shape": (
        PRECEDENCE,
        {"_distutils_hack/__init__.py": b"def add_shim():\n    pass\n"},
        {"_distutils_hack/__init__.py": HACK},
        "_distutils_hack/__init__.py",
    ),
    "__import__ with a fromlist": (
        b"import os; __import__('demo_hook', fromlist=['sub'])\n",
        {"demo_hook/__init__.py": b""},
        {"demo_hook/__init__.py": b"", "demo_hook/sub.py": RUNS},
        "demo_hook/sub.py",
    ),
    "importlib.import_module, relative": (
        b"import importlib; importlib.import_module('.sub', 'demo_hook')\n",
        {"demo_hook/__init__.py": b"", "demo_hook/sub.py": QUIET},
        {"demo_hook/__init__.py": b"", "demo_hook/sub.py": RUNS},
        "demo_hook/sub.py",
    ),
    "a module in a directory a path line adds (pywin32's shape)": (
        b"demo_extra/lib\nimport demo_hook\n",
        {"demo_extra/lib/demo_hook.py": QUIET},
        {"demo_extra/lib/demo_hook.py": RUNS},
        "demo_extra/lib/demo_hook.py",
    ),
    "importlib.import_module": (
        b"import importlib; importlib.import_module('demo_hook')\n",
        {"demo_hook.py": QUIET},
        {"demo_hook.py": RUNS},
        "demo_hook.py",
    ),
}


@pytest.mark.parametrize(("pth", "base", "patch", "module"), CASES.values(), ids=list(CASES))
def test_a_module_a_kept_import_line_runs_fails_when_the_patch_changes_or_adds_it(
    tmp_path: Path, pth: bytes, base: dict[str, bytes], patch: dict[str, bytes], module: str
) -> None:
    code, report, new = _pair(tmp_path, {"demo.pth": pth, **base}, {"demo.pth": pth, **patch})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1
    line = pth.count(b"\n", 0, pth.index(b"import")) + 1
    assert f"imported by demo.pth's line {line} at every start" in _w702(report)[module]
    assert "W701" not in {f["code"] for f in report["findings"]}  # the line is the base's


@pytest.mark.parametrize(
    "pth",
    [
        b"import demo_other\n",  # another module
        b"demo_hook\n",  # a path line imports nothing
    ],
)
def test_a_changed_module_no_import_line_names_statically_is_no_w702(
    tmp_path: Path, pth: bytes
) -> None:
    files = {"demo.pth": pth, "demo_other.py": QUIET}
    base, patch = {**files, "demo_hook.py": QUIET}, {**files, "demo_hook.py": RUNS}
    code, report, _ = _pair(tmp_path, base, patch)
    assert not _w702(report) and code == 0


def test_an_unchanged_hook_module_passes_and_is_listed(tmp_path: Path) -> None:
    files = {"demo.pth": b"import demo_hook\n", "demo_hook.py": RUNS}
    code, report, _ = _pair(tmp_path, files, {**files, "demo/util.py": QUIET})
    assert code == 0, report["findings"]
    surfaces = {s["key"]: s for s in report["execution_surfaces"]["patch"]}
    hook = surfaces["site-packages/demo_hook.py"]
    assert hook["kind"] == "customize"
    assert hook["summary"] == "demo_hook: imported by demo.pth's line 1 at every start"
