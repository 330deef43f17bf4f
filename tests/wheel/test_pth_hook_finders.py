"""A meta path finder a kept hook puts on `sys.meta_path` runs at every start: `site` imports
`sitecustomize` after the `.pth` files, and the import system asks each finder for it, and for
each module imported after. Before (hooks73), each hook below passed `wheels` (exit 0, W201
alone) while a venv's `python -c pass` ran the patch's `demo_inner`: a finder's `find_spec` was
followed only where code named it.

The finder is read for the names asked at start (`sitecustomize`, `usercustomize`, `pwd`,
`linecache`, and each module the code followed imports), each written in place of its
argument, so that a finder importing only for a name no start imports passes, as setuptools'
`_distutils_hack` does: its `spec_for_distutils` imports `setuptools._distutils` only where
`distutils` is imported, which no start does (`python -X importtime -c pass`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel.test_pth_hook_imports import CHANGED, LINE, kept_fails, kept_passes
from wheel.test_pth_imports import PRECEDENCE, QUIET
from wheel.test_pth_leaving_site import RUNS
from wheel.test_pth_real_hooks import DISTUTILS_HACK

ANY = "it may import any module) at every start"


def _finder(
    body: bytes, after: bytes = b"", method: bytes = b"find_spec(self, name, path, target=None)"
) -> bytes:
    """A hook putting a finder first on `sys.meta_path`, whose `method` runs `body`."""
    return (
        b"import os\nimport sys\n\n\nclass Finder:\n    def " + method + b":\n"
        + b"".join(b"        " + line + b"\n" for line in body.splitlines())
        + b"        return None\n\n\nsys.meta_path.insert(0, Finder())\n" + after
    )  # fmt: skip


RUN_AT_START = {
    "a finder importing the module": (
        _finder(b"if name != 'demo_inner':\n    import demo_inner"),
        {},
        "",
    ),
    "a finder appended, importing where asked for sitecustomize": (
        _finder(b"if name == 'sitecustomize':\n    import demo_inner").replace(
            b"insert(0, Finder())", b"append(Finder())"
        ),
        {},
        "",
    ),
    "a finder asked for a module the hook imports after": (
        _finder(b"if name == 'demo_' + 'later':\n    import demo_inner", b"import demo_later\n"),
        {"demo_later.py": b""},
        "",
    ),
    "a finder's find_module (Python before 3.12)": (
        _finder(
            b"if name != 'demo_inner':\n    import demo_inner",
            method=b"find_module(self, name, path=None)",
        ),
        {},
        "",
    ),
    "a loader's exec_module, of the spec a finder returns": (
        b"import sys\nfrom importlib.machinery import ModuleSpec\n\n\nclass Loader:\n"
        b"    def create_module(self, spec):\n        return None\n\n"
        b"    def exec_module(self, module):\n        import demo_inner\n\n\n"
        b"class Finder:\n    def find_spec(self, name, path, target=None):\n"
        b"        if name == 'sitecustomize':\n            return ModuleSpec(name, Loader())\n"
        b"        return None\n\n\nsys.meta_path.insert(0, Finder())\n",
        {},
        "",
    ),
    "a finder whose staticmethod the module rebinds": (
        _finder(
            b"if cls != 'sitecustomize' and name == 'sitecustomize':\n    import demo_inner",
            b"",
            b"find_spec(cls, name, path, target=None)",
        ).replace(
            b"class Finder:\n",
            b"staticmethod = classmethod\n\n\nclass Finder:\n    @staticmethod\n",
        ),
        {},
        "",
    ),
    "a finder rebinding the name it is asked for": (
        _finder(
            b"name = {'sitecustomize': 'demo_x'}.get(name, name)\nif name == 'demo_x':\n    import demo_inner"
        ),
        {},
        "",
    ),
    "a finder taking its arguments as *args": (
        _finder(
            b"if args[0] == 'sitecustomize':\n    import demo_inner",
            method=b"find_spec(self, *args)",
        ),
        {},
        "",
    ),
    "a finder importing a name it computes": (
        _finder(
            b"if name == 'sitecustomize':\n    __import__(os.environ.get('DEMO', 'demo_inner'))"
        ),
        {},
        "(`__import__` of a computed name at line 8: " + ANY,
    ),
}


@pytest.mark.parametrize(("hook", "more", "said"), RUN_AT_START.values(), ids=list(RUN_AT_START))
def test_a_finder_a_kept_hook_installs_fails_a_module_it_imports_at_start_changed(
    tmp_path: Path, hook: bytes, more: dict[str, bytes], said: str
) -> None:
    kept = {**LINE, "demo_hook.py": hook, **more}
    kept_fails(tmp_path, kept, f"demo.pth's line 1 → demo_hook {said}")


NOT_AT_START = {
    "a finder importing for a name no start imports": (
        {**LINE, "demo_hook.py": _finder(b"if name == 'demo_never':\n    import demo_inner")},
        CHANGED,
    ),
    "setuptools' finder, distutils imported by no start": (
        {"distutils-precedence.pth": PRECEDENCE, "_distutils_hack/__init__.py": DISTUTILS_HACK,
         "setuptools/__init__.py": b""},
        ({"setuptools/_distutils/__init__.py": QUIET}, {"setuptools/_distutils/__init__.py": RUNS}),
    ),
}  # fmt: skip


@pytest.mark.parametrize(("kept", "changed"), NOT_AT_START.values(), ids=list(NOT_AT_START))
def test_a_finder_importing_only_for_names_no_start_imports_passes(
    tmp_path: Path, kept: dict[str, bytes], changed: tuple[dict[str, bytes], dict[str, bytes]]
) -> None:
    kept_passes(tmp_path, kept, changed)
