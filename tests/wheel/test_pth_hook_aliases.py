"""A hook that imports a module by a literal name through another importing function, or
through a name it bound to one, runs that module at every start (fuzz71).

pth71's reader took `__import__(...)` and `import_module(...)` by those names only, and a
function called by its own name or through a module an import bound: fuzz71 found a kept
`import demo_hook` whose `demo_hook.py` ran a changed `demo_inner.py` at every start, CPython's
`site` confirming it, pass `wheels` (exit 0, W201 alone) when the hook imported it by
`runpy.run_module('demo_inner')`, `pkgutil.resolve_name('demo_inner:X')`,
`importlib.util.find_spec` and `exec_module`, `import_module` bound as another name (`from
importlib import import_module as load`, `imp = __import__`), a function taken before it is
called (`boot = _boot; boot()`, `start = demo_boot.install`), or a function a star import
bound (port71: also one the star-imported package re-exports, `from ._impl import install`). The oracle is the install itself (`test_pth_leaving_site._runs_in_a_venv`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel.test_pth_hook_imports import CHANGED, LINE
from wheel.test_pth_imports import _pair
from wheel.test_pth_leaving_site import _runs_in_a_venv, _w702

BOOT = {"demo_boot.py": b"def install():\n    import demo_inner\n"}

HOOKS = {
    "runpy.run_module": (b"import runpy\nrunpy.run_module('demo_inner')\n", {}),
    "pkgutil.resolve_name": (b"import pkgutil\npkgutil.resolve_name('demo_inner:X')\n", {}),
    "find_spec and exec_module": (
        b"import importlib.util\nspec = importlib.util.find_spec('demo_inner')\n"
        b"module = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(module)\n",
        {},
    ),
    "import_module bound as another name": (
        b"from importlib import import_module as load\nload('demo_inner')\n",
        {},
    ),
    "__import__ assigned to another name": (b"imp = __import__\nimp('demo_inner')\n", {}),
    "a function of the hook's assigned, then called": (
        b"def _boot():\n    import demo_inner\n\n\nboot = _boot\nboot()\n",
        {},
    ),
    "a function of another module assigned, then called": (
        b"import demo_boot\nstart = demo_boot.install\nstart()\n",
        BOOT,
    ),
    "a function a star import bound": (b"from demo_boot import *\ninstall()\n", BOOT),
    "a re-export a star import bound": (
        b"from demo_pkg import *\ninstall()\n",
        {
            "demo_pkg/__init__.py": b"from ._impl import install\n",
            "demo_pkg/_impl.py": BOOT["demo_boot.py"],
        },
    ),
}


@pytest.mark.parametrize(("hook", "more"), HOOKS.values(), ids=list(HOOKS))
def test_a_module_the_hook_runs_by_a_literal_name_fails_when_changed(
    tmp_path: Path, hook: bytes, more: dict[str, bytes]
) -> None:
    kept = {**LINE, "demo_hook.py": hook, **more}
    code, report, new = _pair(tmp_path, {**kept, **CHANGED[0]}, {**kept, **CHANGED[1]})
    assert _runs_in_a_venv(tmp_path, new)
    assert code == 1, report["findings"]
    assert "imported by demo.pth's line 1 → demo_hook" in _w702(report)["demo_inner.py"]
