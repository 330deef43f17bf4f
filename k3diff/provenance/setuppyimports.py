"""The project's modules a module imports in turn, for the readers of what ``setup.py`` runs.

A ``setup.py`` importing ``build_helpers``, which imports ``_cmake``, whose command class runs
``cmake --install`` over the package: only the modules ``setup.py`` imports itself were read,
and a wheel keeping the old file passed, exit 0 (source78). So are relative imports of a
module (``from .tools import x``: its package's ``tools.py``, ``tools/__init__.py``,
``tools/x.py``) and ``importlib.import_module("NAME")`` / ``__import__("NAME")`` of a literal
name, anywhere in it. An absolute name is looked for where ``setup.py``'s own imports are (its
directory and the ``sys.path`` entries it adds, `setuppypaths`); a name the commit holds no file
of is an installed package's, not the project's. A name computed (``import_module(name)``),
``exec`` of a file's text or ``runpy`` is not read.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Iterator, Sequence

IMPORT_DEPTH_CAP = 8
"""Most imports followed one inside another from what ``setup.py`` imports; a module deeper
stops the run (each level is one batch of git reads)."""
_LOADERS = frozenset({"import_module", "__import__"})


def imported_names(module: ast.Module) -> list[str]:
    """The absolute module names `module` imports, anywhere (``from a.b import c`` names
    ``a.b`` and ``a.b.c``, which may be a module), literal ``import_module`` names included."""
    names = []
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif (name := _loaded(node)) is not None and not name.startswith("."):
            names.append(name)
    return names


def module_files(name: str, directory: str) -> list[str]:
    """The files importing `name` from `directory` ('' or ending in '/') may run: each
    package's ``__init__.py`` and the module's own file."""
    parts = name.split(".")
    found = []
    for n in range(1, len(parts) + 1):
        base = directory + "/".join(parts[:n])
        found += [base + "/__init__.py", base + ".py"]
    return found


def followed_files(module: ast.Module, path: str, places: Sequence[str]) -> set[str]:
    """The files of the commit the parsed module at repository path `path` may run by its
    imports: absolute names at each of `places`, relative ones from its own package."""
    found = {f for name in imported_names(module) for at in places for f in module_files(name, at)}
    package = posixpath.dirname(path)
    for level, name in _relative(module):
        parts = package.split("/") if package else []
        if level - 1 > len(parts):
            continue  # above the repository: an ImportError when it runs
        base = "/".join(parts[: len(parts) - (level - 1)])
        found |= set(module_files(name, base + "/" if base else "")) if name else set()
        found |= {f"{base}/__init__.py" if base else "__init__.py"}
    return found


def _relative(module: ast.Module) -> Iterator[tuple[int, str]]:
    """(level, dotted name under that package) of each relative import (``from ..a import b``:
    (2, ``a``) and (2, ``a.b``); ``from . import x``: (1, ``x``))."""
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and node.level:
            head = node.module or ""
            yield node.level, head
            for alias in node.names:
                yield node.level, f"{head}.{alias.name}" if head else alias.name


def _loaded(node: ast.AST) -> str | None:
    """``NAME`` of ``importlib.import_module("NAME")`` or ``__import__("NAME")``."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    first = node.args[0]
    if called not in _LOADERS or not isinstance(first, ast.Constant):
        return None
    return first.value if isinstance(first.value, str) and first.value else None
