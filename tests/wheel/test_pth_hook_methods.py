"""Methods that run at start without the hook naming them: those a metaclass calls where the
class statement runs (`enum.Enum`'s `_generate_next_value_`, its `_missing_` where the class is
named), and those another module of the wheel calls through an object handed to it (a registry
calling `p.activate()`, a base's metaclass or `__init_subclass__` calling `cls.setup()`).
Before (hooks72), each kept hook passed `wheels` (exit 0, W201 alone) while a venv's
`python -c pass` ran the patch's `demo_inner`: a method was followed where its own module read
its name alone, and a class's sunder methods never."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel.test_pth_hook_imports import LINE, kept_fails, kept_passes

HOOKS = {
    "an Enum's _generate_next_value_, at its class statement": (
        b"import enum\n\n\nclass Color(enum.Enum):\n"
        b"    def _generate_next_value_(name, start, count, last):\n"
        b"        import demo_inner\n        return 1\n\n    A = enum.auto()\n",
        {},
        "demo_hook",
    ),
    "an Enum's _missing_, where the class is called": (
        b"import enum\n\n\nclass Color(enum.Enum):\n    A = 1\n\n    @classmethod\n"
        b"    def _missing_(cls, value):\n        import demo_inner\n\n\n"
        b"try:\n    Color(5)\nexcept ValueError:\n    pass\n",
        {},
        "demo_hook",
    ),
    "a method a registry of another module calls": (
        b"import demo_reg\n\n\nclass Plugin:\n    def activate(self):\n        import demo_inner\n\n\n"
        b"demo_reg.register(Plugin())\n",
        {"demo_reg.py": b"def register(p):\n    p.activate()\n"},
        "demo_hook",
    ),
    "a method a base's metaclass in another module calls": (
        b"from demo_base import Base\n\n\nclass C(Base):\n    def setup(self):\n"
        b"        import demo_inner\n",
        {"demo_base.py": b"class Meta(type):\n    def __init__(cls, *a):\n        cls.setup(cls)\n\n\n"
         b"class Base(metaclass=Meta):\n    def setup(self):\n        pass\n"},
        "demo_hook",
    ),
    "a method a base's __init_subclass__ in another module calls": (
        b"import demo_base\n\n\nclass C(demo_base.Base):\n    @classmethod\n    def setup(cls):\n"
        b"        import demo_inner\n",
        {"demo_base.py": b"class Base:\n    def __init_subclass__(cls):\n        cls.setup()\n\n"
         b"    @classmethod\n    def setup(cls):\n        pass\n"},
        "demo_hook",
    ),
}  # fmt: skip


@pytest.mark.parametrize(("hook", "more", "last"), HOOKS.values(), ids=list(HOOKS))
def test_a_method_run_at_start_without_the_hook_naming_it_fails_when_changed(
    tmp_path: Path, hook: bytes, more: dict[str, bytes], last: str
) -> None:
    kept_fails(tmp_path, {**LINE, "demo_hook.py": hook, **more}, f"demo.pth's line 1 → {last}")


@pytest.mark.parametrize(
    ("hook", "more"),
    [
        (  # a finder's find_spec that cannot take the import system's three arguments: never run
            b"import sys\n\n\nclass Finder(object):\n    def find_spec(self, name, path=None):\n"
            b"        import demo_inner\n\n\nsys.meta_path.append(Finder())\n",
            {},
        ),
        (  # a method of another module's class, which nothing reached reads
            b"import demo_reg\n\ndemo_reg.register(1)\n",
            {"demo_reg.py": b"def register(p):\n    return p\n\n\nclass Plugin:\n"
             b"    def activate(self):\n        import demo_inner\n"},
        ),
    ],
    ids=["a finder's method", "a method no module reached reads"],
)  # fmt: skip
def test_a_method_nothing_calls_at_start_passes(
    tmp_path: Path, hook: bytes, more: dict[str, bytes]
) -> None:
    kept_passes(tmp_path, {**LINE, "demo_hook.py": hook, **more})
