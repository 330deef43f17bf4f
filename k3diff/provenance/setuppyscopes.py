"""The modules whose names a value ``setup.py`` gives ``setup`` is read in: its own, and the
project's modules it takes a function or a name from.

``from helpers import kwargs; setup(**kwargs())`` with ``helpers.py`` returning
``{"cmdclass": create_cmdclass("js")}`` (jupyter_packaging's command classes, which may run
CMake over a file of the wheel) passed, exit 0: what a function of ``setup.py`` returns was
read, not what one of a module of the project does (cython80's left pass, review80c). A call
or a name ``setup.py`` (or a module read so) takes from a module the commit holds is read in
that module (`Scope`), its relative imports resolved; a call of it that is no function that
module defines or imports stops the run (`calls`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from k3diff.provenance.setuppyinstalled import note_import

Project = Callable[[str], "tuple[str, ast.Module] | str | None"]
"""Module name -> (its path, parsed) where the commit holds its file, why it is not read (over
a cap, not Python, a link), or None where the commit holds no file of it."""


@dataclass(frozen=True)
class Scope:
    """A module names are read in: ``setup.py`` or a module of the project."""

    path: str
    module: ast.Module
    origins: dict[str, set[str]]
    """Name -> the modules it is imported from (`import_origins`, relative ones resolved)."""
    lines: dict[str, int]
    """Name -> the line of its first import."""
    via: str
    """`` (kwargs(), which setup.py line 4 gives setup)`` for a module of the project, where
    ``setup.py`` leaves itself; "" for ``setup.py``."""
    assigned: dict[str, list[tuple[str | None, ast.expr]]]
    defined: dict[str, list[ast.expr]]


def scope_of(path: str, module: ast.Module, package: str | None, via: str) -> Scope:
    """The `Scope` of the parsed `module` at `path` of the package `package` (None: a top-level
    module, whose relative imports fail), in one walk of it (review80c: four walks of each
    module a hostile ``setup.py`` names took ~5 s of 900,000 words), no recursion (a hostile
    ``setup.py`` nests deep)."""
    origins: dict[str, set[str]] = {}
    lines: dict[str, int] = {}
    assigned: dict[str, list[tuple[str | None, ast.expr]]] = {}
    defined: dict[str, list[ast.expr]] = {}
    todo: list[tuple[ast.AST, str | None]] = [(module, None)]
    while todo:
        node, function = todo.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            note_import(node, origins)
            source = _relative(node, package) if isinstance(node, ast.ImportFrom) else None
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                lines.setdefault(bound, node.lineno)
                if source is not None:  # `from .impl import *`: "*"
                    origins.setdefault(bound, set()).add(source)
        elif isinstance(node, ast.Return) and node.value is not None and function is not None:
            defined.setdefault(function, []).append(node.value)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and node.value:
            _assigned(node, node.value, assigned, defined)
        elif isinstance(node, ast.Call):
            _updated(node, assigned)
        todo += [(child, function) for child in ast.iter_child_nodes(node)]
    return Scope(path, module, origins, lines, via, assigned, defined)


def _assigned(
    node: ast.Assign | ast.AnnAssign | ast.AugAssign,
    value: ast.expr,
    assigned: dict[str, list[tuple[str | None, ast.expr]]],
    defined: dict[str, list[ast.expr]],
) -> None:
    """Add to `assigned` (None, each value the module assigns to a name: ``cmds =
    create_cmdclass()``), and (the key, or "" where not a literal string, each value it sets as
    an item: ``cmds["develop"] = …``); to `defined` the body of a lambda bound to a name
    (review80c: ``kwargs = lambda: {…}``, ``setup(**kwargs())`` passed, exit 0)."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        key: str | None = None
        if isinstance(target, ast.Subscript):
            key = _key(target.slice)
            target = target.value
        if isinstance(target, ast.Name):
            assigned.setdefault(target.id, []).append((key, value))
            if key is None and isinstance(value, ast.Lambda):
                defined.setdefault(target.id, []).append(value.body)


def _updated(node: ast.Call, assigned: dict[str, list[tuple[str | None, ast.expr]]]) -> None:
    """Add to `assigned` what ``name.update(…)`` `node` updates a name with."""
    func = node.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "update"
        and isinstance(func.value, ast.Name)
    ):
        pairs: list[tuple[str | None, ast.expr]] = [(None, arg) for arg in node.args]
        pairs += [(keyword.arg, keyword.value) for keyword in node.keywords]
        assigned.setdefault(func.value.id, []).extend(pairs)


def _key(index: ast.expr) -> str:
    """An item's key: the literal string, or "" where it is not one."""
    literal = isinstance(index, ast.Constant) and isinstance(index.value, str)
    return index.value if literal else ""  # type: ignore[attr-defined]


def _relative(node: ast.ImportFrom, package: str | None) -> str | None:
    """The absolute module of a relative ``from`` import in `package`; None where absolute or
    above the top."""
    if not node.level or package is None:
        return None
    parts = package.split(".")
    if node.level - 1 >= len(parts):
        return None
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def targets(
    func: ast.expr, scope: Scope, held: Callable[[str], bool]
) -> list[tuple[str, str, bool]]:
    """(module, name, whether by ``import *``) each of the project's modules `func` (a name or
    ``a.b.name``) may be taken from: ``from M import f`` (M, f); ``import M as m``, ``m.x.f``
    (M.x, f), and ``from M import m``, ``m.f`` (M.m, f); a name imported by none, from each
    module ``from M import *`` imports (review80c: it passed, exit 0); [] where its first name
    is not imported from a module the commit holds (`held`)."""
    chain: list[str] = []
    node = func
    while isinstance(node, ast.Attribute):
        chain.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return []
    chain.insert(0, node.id)
    found: list[tuple[str, str, bool]] = []
    named = scope.origins.get(chain[0], set())
    for origin in sorted(named or (scope.origins.get("*", set()) if len(chain) == 1 else ())):
        if not held(origin):
            continue
        if len(chain) == 1:
            found.append((origin, chain[0], not named))
        else:
            middle = chain[1:-1]
            found.append((".".join([origin, *middle]), chain[-1], False))
            found.append((".".join([origin, chain[0], *middle]), chain[-1], False))
    return found
