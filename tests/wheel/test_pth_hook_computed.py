"""A hook that imports or calls by a name it computes at run time reaches every module of the
wheel, as a cap reached does: a patch changing any of them is W702, the chain saying why.
Before (hooks72), a kept line or hook doing `__import__(name)`, `importlib.import_module(name)`,
`exec(text)`, `getattr(m, 'go')()` or `getattr(importlib, 'import_module')('x')` passed
`wheels` (exit 0, W201 alone) while a venv's `python -c pass` ran the patch's `demo_inner`.

Strings joined of literals are certain (`'demo' + '_inner'`, an f-string of literals,
`'.'.join([...])`, `'demo_{}'.format('inner')`): read as written, as Python computes them.
Before (hooks73), each was computed: the hook reached every module, and a patch changing an
unrelated one failed W702.

The real `.pth` files people ship compute names only in a meta path finder's `find_spec`, and
none for the names asked at start (`test_pth_hook_finders.py`): kept, with an unrelated module changed, they pass
(`test_pth_real_hooks.py`). The oracle is the install itself (`_runs_in_a_venv`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel.test_pth_hook_imports import CHANGED, LINE
from wheel.test_pth_imports import _pair
from wheel.test_pth_leaving_site import _runs_in_a_venv, _w702

BOOT = {"demo_boot.py": b"def go():\n    import demo_inner\n"}
ANY = "it may import any module) at every start"

COMPUTED_LINES = {
    "__import__ of a name": (
        b"import os; name = 'demo_' + 'inner'; __import__(name)\n",
        {},
        f"demo.pth's line 1 (`__import__` of a computed name at line 1: {ANY}",
    ),
    "import_module of a name": (
        b"import importlib; n = 'demo_inner'; importlib.import_module(n)\n",
        {},
        f"demo.pth's line 1 (`import_module` of a computed name at line 1: {ANY}",
    ),
    "exec of a name": (
        b"import os; t = 'import demo_inner'; exec(t)\n",
        {},
        f"demo.pth's line 1 (`exec` of computed code at line 1: {ANY}",
    ),
    "getattr of a computed name, called": (
        b"import demo_boot; n = 'go'; getattr(demo_boot, n)()\n",
        BOOT,
        f"demo.pth's line 1 (a call by a computed name at line 1: {ANY}",
    ),
    "strings exec'ed in strings past what k3diff parses": (
        b"import os; exec(" + repr("exec(" + repr("exec('import demo_inner')") + ")").encode()
        + b")\n",
        {},
        f"demo.pth's line 1 (`exec` of strings nested past what k3diff parses: {ANY}",
    ),
    "getattr with a literal name, read as written": (
        b"import demo_boot; getattr(demo_boot, 'go')()\n",
        BOOT,
        "demo_inner: imported by demo.pth's line 1 → demo_boot at every start",
    ),
    "getattr of importlib's import_module, read as written": (
        b"import importlib; getattr(importlib, 'import_module')('demo_inner')\n",
        {},
        "demo_inner: imported by demo.pth's line 1 at every start",
    ),
}  # fmt: skip

COMPUTED_HOOKS = {
    "__import__ of a name": (b"n = 'demo_inner'\n__import__(n)\n", {}, "`__import__` of a computed name at line 2"),
    "a relative import_module against a computed package": (
        b"import importlib\np = 'demo' + '_x'\nimportlib.import_module('.inner', p)\n",
        {},
        "`import_module` of a computed name at line 3",
    ),
    "a function taken by a computed name, then called": (
        b"import demo_boot\nf = getattr(demo_boot, 'og'[::-1])\nf()\n",
        BOOT,
        "a call by a computed name at line 3",
    ),
    "a call through globals() by a computed key": (
        b"def go():\n    import demo_inner\n\n\nglobals()['og'[::-1]]()\n",
        {},
        "a call by a computed name at line 5",
    ),
    "a call through sys.modules by a computed key": (
        b"import sys, demo_boot\nsys.modules['toob_omed'[::-1]].go()\n",
        BOOT,
        "a call by a computed name at line 2",
    ),
    "__import__ looked up in __builtins__ by a computed key (with no word k3diff parsed for)": (
        b"b = __builtins__\nf = (b if isinstance(b, dict) else b.__dict__)['__tropmi__'[::-1]]\n"
        b"f('demo_inner')\n",
        {},
        "a call by a computed name at line 3",
    ),
    "__import__ handed to map": (b"list(map(__import__, ['demo_inner']))\n", {}, "`__import__` taken as a value at line 1"),
    "import_module under another name, handed to functools.partial": (
        b"import functools\nfrom importlib import import_module as load\n"
        b"functools.partial(load, 'demo_inner')()\n",
        {},
        "`import_module` taken as a value at line 3",
    ),
    "exec under another name": (b"e = exec\ne('import demo_inner')\n", {}, "`exec` taken as a value at line 1"),
    "a function operator.methodcaller names": (
        b"import operator, demo_boot\noperator.methodcaller('go')(demo_boot)\n",
        BOOT,
        "a call by a name `methodcaller` takes at line 2",
    ),
    "exec of code compiled from a file": (
        b"import os\np = os.path.join(os.path.dirname(__file__), 'demo_inner.py')\n"
        b"exec(compile(open(p).read(), p, 'exec'))\n",
        {},
        "`exec` of computed code at line 3",
    ),
    "a module loaded from its path": (
        b"import importlib.util, os\n"
        b"p = os.path.join(os.path.dirname(__file__), 'demo_inner.py')\n"
        b"spec = importlib.util.spec_from_file_location('x', p)\n"
        b"spec.loader.exec_module(importlib.util.module_from_spec(spec))\n",
        {},
        "a module loaded from a path (`spec_from_file_location`) at line 3",
    ),
    "a function made of compiled code, called (fuzz72)": (
        b"import types\ntypes.FunctionType(compile('import demo_inner', 'x', 'exec'), {})()\n",
        {},
        "`types.FunctionType`, which imports or runs what a string names, at line 2",
    ),
}  # fmt: skip

NAMED_HOOKS = {
    "a function called by a literal getattr": (b"import demo_boot\ngetattr(demo_boot, 'go')()\n", BOOT),
    "a function of sys.modules by a literal key": (
        b"import sys, demo_boot\nsys.modules['demo_boot'].go()\n",
        BOOT,
    ),
    "a function of vars() of a module by a literal key": (
        b"import demo_boot\nvars(demo_boot)['go']()\n",
        BOOT,
    ),
    "__import__ taken from __builtins__ by a literal key, then called": (
        b"imp = __builtins__['__import__']\nimp('demo_pkg.inner')\n",
        {"demo_pkg/__init__.py": b""},
    ),
    "a function of globals() by a literal key": (
        b"def go():\n    import demo_inner\n\n\nglobals()['go']()\n",
        {},
    ),
    "a method called by a literal getattr": (
        b"class Hook:\n    def install(self):\n        import demo_inner\n\n\n"
        b"getattr(Hook(), 'install')()\n",
        {},
    ),
    "importlib._bootstrap's _gcd_import of a literal name (fuzz72)": (
        b"import importlib._bootstrap as b\nb._gcd_import('demo_pkg.inner')\n",
        {"demo_pkg/__init__.py": b""},
    ),
    "a function of a package's module handed on in a list, then called (fuzz72)": (
        b"import demo_pkg.boot\n[f() for f in [demo_pkg.boot.go]]\n",
        {"demo_pkg/__init__.py": b"", "demo_pkg/boot.py": b"def go():\n    import demo_pkg.inner\n"},
    ),
    "__import__ with a computed fromlist": (
        b"names = ['in' + 'ner']\n__import__('demo_pkg', fromlist=names)\n",
        {"demo_pkg/__init__.py": b""},
    ),
    "__import__ of literals joined by + (hooks73)": (b"__import__('demo' + '_inner')\n", {}),
    "a function called by getattr of an f-string of literals (hooks73)": (
        b"import demo_boot\ngetattr(demo_boot, f'g{\"o\"}')()\n",
        BOOT,
    ),
    "import_module of a name '.'.join()s of literals (hooks73)": (
        b"import importlib\nimportlib.import_module('.'.join(['demo_pkg', 'inner']))\n",
        {"demo_pkg/__init__.py": b""},
    ),
    "__import__ looked up in __builtins__ by literals joined (hooks73)": (
        b"b = __builtins__\nf = (b if isinstance(b, dict) else b.__dict__)['__imp' + 'ort__']\n"
        b"f('demo_inner')\n",
        {},
    ),
    "a name format()s of literals (hooks73)": (
        b"import importlib\nimportlib.import_module('demo_{}'.format('inner'))\n",
        {},
    ),
}  # fmt: skip


@pytest.mark.parametrize(
    ("line", "kept", "chain"), COMPUTED_LINES.values(), ids=list(COMPUTED_LINES)
)
def test_a_kept_line_that_computes_what_it_imports_fails_any_module_changed(
    tmp_path: Path, line: bytes, kept: dict[str, bytes], chain: str
) -> None:
    kept = {"demo.pth": line, **kept}
    code, report, new = _pair(tmp_path, {**kept, **CHANGED[0]}, {**kept, **CHANGED[1]})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1, report["findings"]
    assert chain in _w702(report)["demo_inner.py"]
    assert set(_w702(report)) == {"demo_inner.py"}  # the line and the hook are the base's


@pytest.mark.parametrize(("hook", "more", "why"), COMPUTED_HOOKS.values(), ids=list(COMPUTED_HOOKS))
def test_a_kept_hook_that_computes_what_it_imports_fails_any_module_changed(
    tmp_path: Path, hook: bytes, more: dict[str, bytes], why: str
) -> None:
    kept = {**LINE, "demo_hook.py": hook, **more}
    if b"'.inner'" in hook:  # the package it computes, `demo_x`, holds the changed module
        kept["demo_x/__init__.py"] = b""
    base, patch = _changed("demo_x" if b"'.inner'" in hook else None)
    code, report, new = _pair(tmp_path, {**kept, **base}, {**kept, **patch})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1, report["findings"]
    (detail,) = _w702(report).values()
    assert f"demo.pth's line 1 → demo_hook ({why}: {ANY}" in detail


@pytest.mark.parametrize(("hook", "more"), NAMED_HOOKS.values(), ids=list(NAMED_HOOKS))
def test_a_name_written_as_a_literal_is_followed_as_written(
    tmp_path: Path, hook: bytes, more: dict[str, bytes]
) -> None:
    """Nothing computed: the chain names the module, and an unrelated module is not reached."""
    kept = {**LINE, "demo_hook.py": hook, "demo_other.py": b"X = 1\n", **more}
    base, patch = _changed("demo_pkg" if "demo_pkg/__init__.py" in more else None)
    code, report, new = _pair(tmp_path, {**kept, **base}, {**kept, **patch})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1, report["findings"]
    (detail,) = _w702(report).values()
    assert "imported by demo.pth's line 1 → demo_hook" in detail and "any module" not in detail
    code, report, _ = _pair(
        tmp_path / "other", {**kept, **base}, {**kept, **base, "demo_other.py": b"X = 2\n"}
    )
    assert code == 0 and not _w702(report), report["findings"]


def _changed(package: str | None) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The base's and the patch's `demo_inner` (`PACKAGE/inner.py` where it is in a package)."""
    if package is None:
        return CHANGED
    path = f"{package}/inner.py"
    return {path: CHANGED[0]["demo_inner.py"]}, {path: CHANGED[1]["demo_inner.py"]}
