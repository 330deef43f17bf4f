"""A kept hook that imports or runs code through a function of the standard library given a
string (`timeit.timeit('import a')`, pydoc's `help('a')`, `pickle.loads`, `importlib._bootstrap.
_call_with_frames_removed`, `unittest.mock.patch('a.X')`, a function made of a code object) reaches
every module of the wheel: a patch changing any of them is W702, the chain saying which call.
Before (review72d), each passed `wheels`, exit 0, W201 alone, while a venv's `python -c pass`
ran the patch's `demo_inner` (the oracle, `_runs_in_a_venv`); a `sitecustomize` of
`help('demo_inner')` alone, with none of the words k3diff parses for, was not even parsed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from wheel.test_pth_hook_imports import CHANGED, LINE
from wheel.test_pth_imports import _pair
from wheel.test_pth_leaving_site import _runs_in_a_venv, _w702

ANY = "it may import any module) at every start"
WHY = "which imports or runs what a string names, at line"

RUNNERS = {
    "timeit of an import statement": (
        b"import timeit\ntimeit.timeit('import demo_inner', number=1)\n",
        "`timeit.timeit`",
    ),
    "timeit's Timer under another name": (
        b"from timeit import Timer as T\nT('import demo_inner').timeit(1)\n",
        "`timeit.Timer`",
    ),
    "importlib's _call_with_frames_removed": (
        b"import importlib._bootstrap as b\nb._call_with_frames_removed(exec, 'import demo_inner')\n",
        "`importlib._bootstrap._call_with_frames_removed`",
    ),
    "a pickle naming the module's attribute": (
        b"import pickle\npickle.loads(b'cdemo_inner\\n__name__\\n.')\n",
        "`pickle.loads`",
    ),
    "unittest.mock's patch started": (
        b"from unittest import mock\nmock.patch('demo_inner.X', create=True).start()\n",
        "`unittest.mock.patch`",
    ),
    "a function made of compiled code": (
        b"import types\ntypes.FunctionType(compile('import demo_inner', 'x', 'exec'), {})()\n",
        "`types.FunctionType`",
    ),
    "an interpreter running source": (
        b"import code\ncode.InteractiveInterpreter().runsource('import demo_inner')\n",
        "`code.InteractiveInterpreter`",
    ),
}


@pytest.mark.parametrize(("hook", "call"), RUNNERS.values(), ids=list(RUNNERS))
def test_a_kept_hook_running_a_string_fails_any_module_changed(
    tmp_path: Path, hook: bytes, call: str
) -> None:
    _fails_any_module_changed(tmp_path, hook, f"{call}, {WHY} 2")


def _fails_any_module_changed(tmp_path: Path, hook: bytes, why: str) -> None:
    """A kept `demo_hook.py` the line imports, a changed `demo_inner.py` the venv runs: W702,
    the chain saying `why` the hook may import any module."""
    kept = {**LINE, "demo_hook.py": hook}
    code, report, new = _pair(tmp_path, {**kept, **CHANGED[0]}, {**kept, **CHANGED[1]})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1, report["findings"]
    (detail,) = _w702(report).values()
    assert f"demo.pth's line 1 → demo_hook ({why}: {ANY}" in detail


@pytest.mark.skipif(
    importlib.util.find_spec("sitecustomize") is not None,
    reason="this Python has its own sitecustomize, which site imports first",
)
def test_a_kept_sitecustomize_asking_help_of_a_module_fails_it_changed(tmp_path: Path) -> None:
    """`site` defines `help` before it imports `sitecustomize`; pydoc imports what it names."""
    kept = {"sitecustomize.py": b"help('demo_inner')\n"}
    code, report, new = _pair(tmp_path, {**kept, **CHANGED[0]}, {**kept, **CHANGED[1]})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1, report["findings"]
    (detail,) = _w702(report).values()
    assert f"site → sitecustomize (`builtins.help`, {WHY} 1: {ANY}" in detail


TAKEN = {
    "timeit handed to functools.partial": (
        b"import functools, timeit\nfunctools.partial(timeit.timeit, number=1)('import demo_inner')\n",
        "`timeit.timeit` taken as a value at line 2",
    ),
    "pickle.loads handed to functools.partial": (
        b"import functools, pickle\nfunctools.partial(pickle.loads, b'cdemo_inner\\n__name__\\n.')()\n",
        "`pickle.loads` taken as a value at line 2",
    ),
}


@pytest.mark.parametrize(("hook", "why"), TAKEN.values(), ids=list(TAKEN))
def test_a_kept_hook_handing_such_a_function_on_fails_any_module_changed(
    tmp_path: Path, hook: bytes, why: str
) -> None:
    _fails_any_module_changed(tmp_path, hook, why)
