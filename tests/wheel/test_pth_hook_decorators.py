"""A decorator runs where its `def` or `class` statement runs, and it may call what it decorates
then: a kept hook whose decorator calls the function (`@(lambda f: f())`, a `run` of the module
that does `f()`, a registry whose functions a loop then calls, `atexit.register`, a decorator of
another module) or the class (`Hook()` runs `__init__`) runs its body at every start. Before
(hooks73), each passed `wheels` (exit 0, W201 alone) while a venv's `python -c pass` ran the
patch's `demo_inner`: a decorated function's body was followed only where code named it.

A decorator k3diff shows never calls its argument leaves the body unfollowed, as before
(`classmethod`, `staticmethod`, `property`, `functools.wraps`,
`contextlib.contextmanager`, one of the module that only returns or marks it): a meta path
finder's `@classmethod find_spec` is no call at start (`test_pth_real_hooks.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel.test_pth_hook_imports import LINE, kept_fails, kept_passes

GO = b"def _go():\n    import demo_inner\n"
CALLING = {
    "a lambda calling it": b"@(lambda f: f())\n" + GO,
    "a function of the module calling it": b"def run(f):\n    f()\n    return f\n\n\n@run\n" + GO,
    "a registry a loop then calls": (
        b"HOOKS = []\n\n\ndef register(f):\n    HOOKS.append(f)\n    return f\n\n\n@register\n"
        + GO
        + b"\n\nfor hook in HOOKS:\n    hook()\n"
    ),
    "atexit.register, which calls it as the interpreter exits": b"import atexit\n\n\n@atexit.register\n"
    + GO,
    "a decorator of another module": b"from demo_deco import run\n\n\n@run\n" + GO,
    "a decorator factory of the module": (
        b"def run(n):\n    def deco(f):\n        f()\n        return f\n    return deco\n\n\n@run(1)\n"
        + GO
    ),
    "a functools.wraps wrapper called where it decorates": (
        b"import functools\n\n\ndef once(f):\n    @functools.wraps(f)\n    def wrapper():\n"
        b"        return f()\n\n    wrapper()\n    return wrapper\n\n\n@once\n" + GO
    ),
    "a class decorator calling the class": (
        b"def make(c):\n    c()\n    return c\n\n\n@make\nclass Hook:\n    def __init__(self):\n"
        b"        import demo_inner\n"
    ),
    "a calling decorator over staticmethod": (
        b"class Hook:\n    @(lambda f: f())\n    @staticmethod\n    def go():\n"
        b"        import demo_inner\n"
    ),
}
MORE = {"demo_deco.py": b"def run(f):\n    f()\n    return f\n"}


@pytest.mark.parametrize("hook", CALLING.values(), ids=list(CALLING))
def test_a_decorator_calling_what_it_decorates_fails_a_module_its_body_imports_changed(
    tmp_path: Path, hook: bytes
) -> None:
    chain = "imported by demo.pth's line 1 → demo_hook at every start"
    kept_fails(tmp_path, {**LINE, "demo_hook.py": hook, **MORE}, chain)


NOT_CALLING = {
    "classmethod, staticmethod and property": (
        b"class Hook:\n    @classmethod\n    def a(cls):\n        import demo_inner\n\n"
        b"    @staticmethod\n    def b():\n        import demo_inner\n\n"
        b"    @property\n    def c(self):\n        import demo_inner\n"
    ),
    "functools and contextlib": (
        b"import contextlib\nimport functools\nfrom functools import wraps\n\n\n"
        b"@contextlib.contextmanager\ndef a():\n    import demo_inner\n    yield\n\n\n"
        b"@functools.lru_cache(maxsize=None)\ndef b():\n    import demo_inner\n\n\n"
        b"def c():\n    @wraps(c)\n    def d():\n        import demo_inner\n    return d\n"
    ),
    "a decorator of the module that marks it": (
        b"def mark(f):\n    f.marked = True\n    return f\n\n\n@mark\n" + GO
    ),
}


@pytest.mark.parametrize("hook", NOT_CALLING.values(), ids=list(NOT_CALLING))
def test_a_decorator_shown_not_to_call_what_it_decorates_passes(
    tmp_path: Path, hook: bytes
) -> None:
    kept_passes(tmp_path, {**LINE, "demo_hook.py": hook})


def test_a_decorator_read_as_not_calling_another_module_rebinds_fails_any_module(
    tmp_path: Path,
) -> None:
    """`builtins.classmethod = ...` in a module reached makes `@classmethod` call what it
    decorates in every module after: the module rebinding it may import any."""
    boot = b"import builtins\nbuiltins.classmethod = lambda f: f()\n"
    hook = b"import demo_boot\n\n\n@classmethod\n" + GO
    rebound = "a decorator k3diff reads as calling nothing rebound (`classmethod`) at line 2"
    chain = f"demo_hook → demo_boot ({rebound}: it may import any module) at every start"
    kept_fails(tmp_path, {**LINE, "demo_hook.py": hook, "demo_boot.py": boot}, chain)
