"""A module a `.pth` line imports runs its top-level code at every interpreter start, and what
that code imports of the wheel runs too: a patch that changes or adds such a module changes
what runs at every start (W702), its chain said. Before (pth71), a kept `import demo_hook`
whose `demo_hook.py` imported a changed `demo_inner.py` passed `wheels` (exit 0, W201 alone),
and a venv's `python -c pass` ran the patch's `demo_inner`.

The oracle is the install itself: pip 26 installs the patch into a fresh venv, whose
`python -c pass` prints the module's mark (`test_pth_leaving_site._runs_in_a_venv`)."""

from __future__ import annotations

import importlib.util
import marshal
import sys
from pathlib import Path

import pytest

from wheel.test_pth_imports import QUIET, _pair
from wheel.test_pth_leaving_site import RUNS, _runs_in_a_venv, _w702

LINE = {"demo.pth": b"import demo_hook\n"}
CHANGED = ({"demo_inner.py": QUIET}, {"demo_inner.py": RUNS})

CASES = {
    "a module the hook imports": (
        {"demo_hook.py": b"import demo_inner\n"},
        *CHANGED,
        "demo_inner.py",
        "demo_inner: imported by demo.pth's line 1 → demo_hook at every start",
    ),
    "a submodule the hook imports from a package": (
        {"demo_hook.py": b"import sys\nfrom demo_pkg import sub\n", "demo_pkg/__init__.py": b""},
        {"demo_pkg/sub.py": QUIET},
        {"demo_pkg/sub.py": RUNS},
        "demo_pkg/sub.py",
        "demo_pkg.sub: imported by demo.pth's line 1 → demo_hook at every start",
    ),
    "a relative import in the hook's package": (
        {"demo_hook/__init__.py": b"from . import inner\n"},
        {"demo_hook/inner.py": QUIET},
        {"demo_hook/inner.py": RUNS},
        "demo_hook/inner.py",
        "demo_hook.inner: imported by demo.pth's line 1 → demo_hook at every start",
    ),
    "an import under try and if": (
        {
            "demo_hook.py": b"import sys\ntry:\n    if sys.version_info >= (3,):\n"
            b"        import demo_inner\nexcept ImportError:\n    pass\n"
        },
        *CHANGED,
        "demo_inner.py",
        "demo_inner: imported by demo.pth's line 1 → demo_hook at every start",
    ),
    "an import in a function the hook calls at its import": (
        {"demo_hook.py": b"def _boot():\n    from demo_inner import X\n\n\n_boot()\n"},
        *CHANGED,
        "demo_inner.py",
        "demo_inner: imported by demo.pth's line 1 → demo_hook at every start",
    ),
    "two modules deep": (
        {"demo_hook.py": b"import demo_mid\n", "demo_mid.py": b"import os, demo_inner\n"},
        *CHANGED,
        "demo_inner.py",
        "demo_inner: imported by demo.pth's line 1 → demo_hook → demo_mid at every start",
    ),
    "a star import of a package whose __all__ names a submodule": (
        {
            "demo_hook.py": b"from demo_pkg import *\n",
            "demo_pkg/__init__.py": b"__all__ = ['sub']\n",
        },
        {"demo_pkg/sub.py": QUIET},
        {"demo_pkg/sub.py": RUNS},
        "demo_pkg/sub.py",
        "demo_pkg.sub: imported by demo.pth's line 1 → demo_hook at every start",
    ),
    "a module the hook imports, added by the patch": (
        {"demo_hook.py": b"try:\n    import demo_inner\nexcept ImportError:\n    pass\n"},
        {},
        {"demo_inner.py": RUNS},
        "demo_inner.py",
        "demo_inner: imported by demo.pth's line 1 → demo_hook at every start",
    ),
}


CALLED = {
    "a function the line calls through the module": (
        b"import demo_hook; demo_hook.install()\n",
        {"demo_hook.py": b"def install():\n    import demo_inner\n"},
        "demo_inner: imported by demo.pth's line 1 → demo_hook at every start",
    ),
    "setuptools' shape: a function of __import__'s module": (
        b"import os; os.environ.get('X', '1') == '1' and __import__('demo_hook').add_shim()\n",
        {"demo_hook.py": b"def add_shim():\n    _insert()\n\n\ndef _insert():\n"
         b"    from demo_inner import X\n"},
        "demo_inner: imported by demo.pth's line 1 → demo_hook at every start",
    ),
    "a function the hook's package imports from a submodule": (
        b"import demo_hook; demo_hook.install()\n",
        {"demo_hook/__init__.py": b"from ._impl import install\n",
         "demo_hook/_impl.py": b"def install():\n    import demo_inner\n"},
        "demo_inner: imported by demo.pth's line 1 → demo_hook → demo_hook._impl at every start",
    ),
    "a function another module the line imports calls": (
        b"import demo_hook, demo_boot\n",
        {"demo_hook.py": b"def install():\n    import demo_inner\n",
         "demo_boot.py": b"import demo_hook\ndemo_hook.install()\n"},
        "demo_inner: imported by demo.pth's line 1 → demo_hook at every start",
    ),
}  # fmt: skip


@pytest.mark.parametrize(("line", "kept", "chain"), CALLED.values(), ids=list(CALLED))
def test_a_module_a_function_called_at_start_imports_fails_when_changed(
    tmp_path: Path, line: bytes, kept: dict[str, bytes], chain: str
) -> None:
    """A function the line (or a module it imports) calls through a module runs at every
    start, and so does what its body imports."""
    kept = {"demo.pth": line, **kept}
    code, report, new = _pair(tmp_path, {**kept, **CHANGED[0]}, {**kept, **CHANGED[1]})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1
    assert chain in _w702(report)["demo_inner.py"]


@pytest.mark.parametrize(
    ("kept", "base", "patch", "module", "chain"), CASES.values(), ids=list(CASES)
)
def test_a_module_a_kept_hook_imports_fails_when_the_patch_changes_or_adds_it(
    tmp_path: Path,
    kept: dict[str, bytes],
    base: dict[str, bytes],
    patch: dict[str, bytes],
    module: str,
    chain: str,
) -> None:
    code, report, new = _pair(tmp_path, {**LINE, **kept, **base}, {**LINE, **kept, **patch})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1
    assert chain in _w702(report)[module]
    assert set(_w702(report)) == {module}  # the line and the hook are the base's


@pytest.mark.parametrize(
    "hook",
    [
        b"def later():\n    import demo_inner\n",  # a function nothing calls at start
        b"class Finder:\n    def find_spec(self, name, path=None):\n"
        b"        import demo_inner\n",  # a method, run at later imports
        b"import demo_other\n",  # another module of the wheel
    ],
    ids=["function", "method", "other module"],
)
def test_a_module_the_hook_does_not_import_at_start_passes(tmp_path: Path, hook: bytes) -> None:
    kept_passes(tmp_path, {**LINE, "demo_hook.py": hook, "demo_other.py": QUIET})


def kept_fails(tmp_path: Path, kept: dict[str, bytes], chain: str) -> None:
    """`kept` in both wheels, `demo_inner.py` changed: the venv runs the patch's, and it alone
    is W702, its chain saying `chain`."""
    code, report, new = _pair(tmp_path, {**kept, **CHANGED[0]}, {**kept, **CHANGED[1]})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1, report["findings"]
    assert set(_w702(report)) == {"demo_inner.py"}
    assert chain in _w702(report)["demo_inner.py"]


def kept_passes(
    tmp_path: Path,
    kept: dict[str, bytes],
    changed: tuple[dict[str, bytes], dict[str, bytes]] = CHANGED,
) -> None:
    """`kept` in both wheels, `changed` the base's and the patch's: the venv runs none of it,
    and the pair passes."""
    code, report, new = _pair(tmp_path, {**kept, **changed[0]}, {**kept, **changed[1]})
    assert not _runs_in_a_venv(tmp_path, new)
    assert code == 0, report["findings"]
    assert not _w702(report)


def _bytecode(source: bytes) -> bytes:
    """A sourceless `.pyc` of `source` this Python (and so the test venv's) loads."""
    code = compile(source, "demo_hook.py", "exec")
    return importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(code)


def test_a_sourceless_hook_counts_as_importing_any_module(tmp_path: Path) -> None:
    """Fail safe: k3diff does not read what bytecode (or an extension) imports."""
    kept = {**LINE, "demo_hook.pyc": _bytecode(b"import demo_inner\n")}
    code, report, new = _pair(tmp_path, {**kept, **CHANGED[0]}, {**kept, **CHANGED[1]})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1
    detail = _w702(report)["demo_inner.py"]
    assert "demo.pth's line 1 → demo_hook (not source k3diff reads: it may import any" in detail


@pytest.mark.parametrize(
    ("hook", "why"),
    [
        (b"import demo_inner\n" + b"X = 1\n" * 200_000, "unread or over 1024 KiB"),
        pytest.param(
            b"type Alias = int\nimport demo_inner\n",  # 3.12's syntax: 3.12 runs it
            "not parsed here",
            marks=pytest.mark.skipif(sys.version_info >= (3, 12), reason="parses here"),
        ),
    ],
    ids=["over the cap", "later syntax"],
)
def test_a_hook_k3diff_cannot_parse_counts_as_importing_any_module(
    tmp_path: Path, hook: bytes, why: str
) -> None:
    kept = {**LINE, "demo_hook.py": hook}
    code, report, _ = _pair(tmp_path, {**kept, **CHANGED[0]}, {**kept, **CHANGED[1]})
    assert code == 1
    detail = _w702(report)["demo_inner.py"]
    assert f"demo.pth's line 1 → demo_hook ({why}: it may import any module)" in detail


def test_an_unchanged_chain_passes_and_is_listed(tmp_path: Path) -> None:
    files = {**LINE, "demo_hook.py": b"import demo_inner\n", "demo_inner.py": RUNS}
    code, report, _ = _pair(tmp_path, files, {**files, "demo/util.py": QUIET})
    assert code == 0, report["findings"]
    surfaces = {s["key"]: s for s in report["execution_surfaces"]["patch"]}
    inner = surfaces["site-packages/demo_inner.py"]
    assert inner["kind"] == "customize"
    assert (
        inner["summary"] == "demo_inner: imported by demo.pth's line 1 → demo_hook at every start"
    )


def test_deep_names_are_followed_without_recursing(tmp_path: Path) -> None:
    """A line naming a module 7,000 segments deep and a hook calling through a 2,000-long
    attribute chain: each walked, not recursed (Python's recursion limit is 1,000)."""
    line = b"import demo_hook, " + b".".join([b"a"] * 7000) + b"\n"
    hook = b"import demo_inner\ndemo_inner" + b".b" * 2000 + b".f()\n"
    kept = {"demo.pth": line, "demo_hook.py": hook}
    code, report, _ = _pair(tmp_path, {**kept, **CHANGED[0]}, {**kept, **CHANGED[1]})
    assert code == 1
    assert (
        "imported by demo.pth's line 1 → demo_hook at every start"
        in (_w702(report)["demo_inner.py"])
    )
