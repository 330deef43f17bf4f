"""What the names of a module's code stand for, as its imports bind them (`hookimports` reads
with them): the module an expression is (`demo_hook`, `__import__('a')`), the function a name
or an attribute is (`from a import f`, `demo_hook.install`), the function a call calls
(`timeit.timeit`, `help`), which `computednames.runner` holds against the functions that import
or run what a string names."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from k3diff.wheel.computednames import (
    IMPORTING,
    attribute,
    called_name,
    imported,
    importer,
    namespace_key,
)

Module = tuple[str, ...]
"""A dotted module name, split at its dots (a function's: the module's and its name)."""


@dataclass(frozen=True)
class Names:
    """What the names of a module's code stand for, as k3diff reads them."""

    bound: dict[str, Module]
    """A name an import binds, to the module (or `module.name`: `from a import f`)."""
    here: dict[str, str]
    """`__name__` and `__package__`, the module's (empty for a `.pth` line)."""


def module_of(node: ast.expr, names: Names) -> Module | None:
    """The module an expression is, where an import bound it (`demo_hook`, `a.b` after
    `import a.b`, `__import__('a')`, `importlib.import_module('a.b')`)."""
    attributes = []
    while (found := attribute(node)) is not None:  # walked, not recursed: a chain may be 10,000
        node, name = found  # long (`getattr(a, 'b')` is `a.b`)
        attributes.append(name)
    owner = owner_of(node, names)
    return None if owner is None else (*owner, *reversed(attributes))


def function_of(value: ast.expr, bound: dict[str, Module]) -> Module | None:
    """The function an assigned value is, where an import bound it (`demo_hook.install`, `f`
    after `from a import f`) or it imports (`__import__`), as `bound` holds a function."""
    if isinstance(value, ast.Name):
        known = bound.get(value.id)
        return known or (("builtins", value.id) if value.id in IMPORTING else None)
    found = attribute(value)  # `demo_hook.install`, `getattr(importlib, 'import_module')`
    owner = None if found is None else module_of(found[0], Names(bound, {}))
    if owner is not None and found is not None:
        return (*owner, found[1])
    name = called_name(value)  # `__builtins__['__import__']`
    return ("builtins", name) if name in IMPORTING else None


def owner_of(node: ast.expr, names: Names) -> Module | None:
    """The module a name or an import call is (`module_of` past the attributes)."""
    if isinstance(node, ast.Name):
        return names.bound.get(node.id)
    if isinstance(node, ast.Subscript) and (key := namespace_key(node)):
        return tuple(key.split("."))  # `sys.modules['demo_boot']` (`globals()['x']`: no module
    if isinstance(node, ast.Call):  # of that name, or one it imports: more followed, never less)
        named = imported(node, names.bound, names.here)
        if named and named[0][0]:
            split = tuple(named[0][0].split("."))
            whole = importer(node.func, names.bound) == "import_module" or len(named) > 1
            return split if whole or named[0][1] else split[:1]  # `__import__('a.b')` is `a`
    return None


def function_called(func: ast.expr, names: Names) -> Module | None:
    """The function a call calls, where k3diff can name it: one an import bound (`f` after
    `from timeit import timeit`), a builtin no import rebinds (`help`: `builtins.help`), or a
    function of a module an import bound (`timeit.timeit`, `code.InteractiveInterpreter`)."""
    if isinstance(func, ast.Name):
        return names.bound.get(func.id) or ("builtins", func.id)
    found = attribute(func)
    owner = None if found is None else module_of(found[0], names)
    return None if owner is None or found is None else (*owner, found[1])
