"""Code a `.pth`-imported hook runs at its import without calling a function by its name still
runs that function's body, and what the body imports runs at every start: a decorator, a
function handed on as a callback, a class instantiated (its `__init__`) or entered (`with`), a
method called through a class or `self`, a module's `__getattr__` a `from` import calls, an
`import_module` bound under another name or of the hook's own `__name__`, an `exec` of a literal
string (coverage's `a1_coverage.pth` writes one), and a source whose coding declaration spells
`import` in other bytes. Before (review71b), each, kept as the base had it, with a changed
`demo_inner.py` passed `wheels` (exit 0, W201 alone), and a venv's `python -c pass` ran the
patch's `demo_inner`.

The oracle is the install itself: pip 26 installs the patch into a fresh venv, whose
`python -c pass` prints the module's mark (`test_pth_leaving_site._runs_in_a_venv`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel.test_pth_imports import QUIET, _pair
from wheel.test_pth_leaving_site import RUNS, _runs_in_a_venv, _w702

HOOK = b"import demo_hook\n"
CHANGED = ({"demo_inner.py": QUIET}, {"demo_inner.py": RUNS})
DECORATOR = b"def deco(f):\n    import demo_inner\n    return f\n"

CASES = {
    "a decorator of the hook's": (
        HOOK,
        {"demo_hook.py": DECORATOR + b"\n\n@deco\ndef g():\n    pass\n"},
    ),
    "a decorator another module defines": (
        HOOK,
        {
            "demo_hook.py": b"from demo_deco import deco\n\n\n@deco\nclass G:\n    pass\n",
            "demo_deco.py": DECORATOR,
        },
    ),
    "a callback atexit runs": (
        HOOK,
        {"demo_hook.py": b"import atexit\n\n\ndef _flush():\n    import demo_inner\n\n\n"
         b"atexit.register(_flush)\n"},
    ),
    "a function map runs": (
        HOOK,
        {"demo_hook.py": b"def _go(x):\n    import demo_inner\n\n\nlist(map(_go, [1]))\n"},
    ),
    "a class instantiated": (
        HOOK,
        {"demo_hook.py": b"class Hook:\n    def __init__(self):\n        import demo_inner\n\n\n"
         b"HOOK = Hook()\n"},
    ),
    "a class's method the line calls through the module": (
        b"import demo_hook; demo_hook.Hook.install()\n",
        {"demo_hook.py": b"class Hook:\n    @classmethod\n    def install(cls):\n"
         b"        import demo_inner\n"},
    ),
    "a static method the hook calls": (
        HOOK,
        {"demo_hook.py": b"class Hook:\n    @staticmethod\n    def install():\n"
         b"        import demo_inner\n\n\nHook.install()\n"},
    ),
    "a method __init__ calls on self": (
        HOOK,
        {"demo_hook.py": b"class Hook:\n    def __init__(self):\n        self.go()\n\n"
         b"    def go(self):\n        import demo_inner\n\n\nHook()\n"},
    ),
    "a context manager entered": (
        HOOK,
        {"demo_hook.py": b"class Ctx:\n    def __enter__(self):\n        import demo_inner\n\n"
         b"    def __exit__(self, *exc):\n        pass\n\n\nwith Ctx():\n    pass\n"},
    ),
    "a module __getattr__ a from import calls": (
        b"import sys; from demo_hook import thing\n",
        {"demo_hook.py": b"def __getattr__(name):\n    import demo_inner\n    return 1\n"},
    ),
    "import_module under another name": (
        HOOK,
        {"demo_hook.py": b"from importlib import import_module as load\n\nload('demo_inner')\n"},
    ),
    "an exec of a literal on the line": (b"import sys; exec('import demo_inner')\n", {}),
    "an exec of a literal in the hook": (HOOK, {"demo_hook.py": b"exec('import demo_inner')\n"}),
    "an exec of an escaped literal": (
        HOOK,
        {"demo_hook.py": b"exec('\\x69mport demo_inner')\n"},
    ),
    "an f-string without placeholders": (
        HOOK,
        {"demo_hook.py": b"__import__(f'demo_inner')\nexec(f'import os')\n"},
    ),
    "__import__ looked up in __builtins__": (
        HOOK,
        {"demo_hook.py": b"__builtins__['__import__']('demo_inner')\n"},
    ),
    "import spelt by a unicode_escape coding": (
        HOOK,
        {"demo_hook.py": b"# coding: unicode_escape\n\\u0069mport demo_inner\n"},
    ),
    "import spelt by a utf-7 coding": (
        HOOK,
        {"demo_hook.py": b"# -*- coding: utf-7 -*-\n+AGk-mport demo_inner\n"},
    ),
}  # fmt: skip


@pytest.mark.parametrize(("line", "kept"), CASES.values(), ids=list(CASES))
def test_a_module_a_hook_runs_without_calling_it_by_name_fails_when_changed(
    tmp_path: Path, line: bytes, kept: dict[str, bytes]
) -> None:
    kept = {"demo.pth": line, **kept}
    code, report, new = _pair(tmp_path, {**kept, **CHANGED[0]}, {**kept, **CHANGED[1]})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1, report["findings"]
    assert "imported by demo.pth's line 1" in _w702(report)["demo_inner.py"]
    assert set(_w702(report)) == {"demo_inner.py"}  # the line and the hook are the base's


@pytest.mark.parametrize(
    "hook",
    [
        b"class Finder:\n    def find_spec(self, name, path=None):\n"
        b"        import demo_inner\n\n\nFINDER = Finder()\n",  # a method, run at later imports
        b"def later():\n    import demo_inner\n\n\nLATER = 'later'\n",  # never referenced
        b"# coding: latin-1\nX = 1\n",  # a declaration, no import
    ],
    ids=["method of an instance", "function named in a string", "coding, no import"],
)
def test_a_module_the_hook_does_not_run_at_start_passes(tmp_path: Path, hook: bytes) -> None:
    kept = {"demo.pth": HOOK, "demo_hook.py": hook}
    code, report, new = _pair(tmp_path, {**kept, **CHANGED[0]}, {**kept, **CHANGED[1]})
    assert not _runs_in_a_venv(tmp_path, new)
    assert code == 0, report["findings"]
    assert not _w702(report)


@pytest.mark.parametrize(
    "call",
    [
        b"import importlib\nimportlib.import_module('.inner', __name__)\n",
        b"import importlib\nimportlib.import_module('.inner', package=__package__)\n",
        b"__import__('inner', globals(), locals(), [], 1)\n",
    ],
    ids=["import_module of __name__", "import_module of __package__", "__import__ level 1"],
)
def test_a_relative_import_call_of_the_hooks_package_fails_when_changed(
    tmp_path: Path, call: bytes
) -> None:
    kept = {"demo.pth": HOOK, "demo_hook/__init__.py": call}
    base, patch = {"demo_hook/inner.py": QUIET}, {"demo_hook/inner.py": RUNS}
    code, report, new = _pair(tmp_path, {**kept, **base}, {**kept, **patch})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1, report["findings"]
    assert set(_w702(report)) == {"demo_hook/inner.py"}
