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
FOLLOWED_CAP = 128
"""Most modules read as of one ``setup.py`` (or command class), those imported in turn
included; more stop the run."""
FOLLOWED_BYTES_CAP = 1024 * 1024
"""Most bytes of those modules, all together; more stop the run. Parsing is what costs:
255 modules of 16 KiB of 60-term sums (4 MiB) took 14 s of CPU (19 s to parse alone on a
loaded machine), so 1 MiB: about 4 s at worst. Cython 3.3.2's ``setup.py`` imports its own
compiler (``from Cython import __version__``, ``Cython.Distutils``): 82 modules, 3.4 MiB,
over it, so its check stops (source78: a known wrong hold, docs/wheels.md)."""
NAMES_CAP = 8192
"""Most module names those modules import, all together; more stop the run (source78: 255
modules of 16 KiB of ``import a1, a2, …`` lines, 431,432 names looked up at 16 ``sys.path``
entries, took 19 s of CPU)."""
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
        elif (name := loaded_name(node)) is not None and not name.startswith("."):
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


def followed_files(
    module: ast.Module, package: str | None, places: Sequence[str], known: set[str]
) -> dict[str, str | None]:
    """The files of the commit the parsed `module` may run by its imports, each with its
    package's directory (`package_of`): absolute names at each of `places`, relative ones from
    `package` (the module's package directory; None for a top-level module, whose relative
    imports fail: psutil's ``setup.py`` imports ``_common`` from ``psutil/``, whose ``from .
    import _ntuples`` it never reaches). A name of `known` (those looked up already) is not
    looked up again; each new one is added to it."""
    found: dict[str, str | None] = {}
    for name in dict.fromkeys(imported_names(module)):
        if name in known:
            continue
        known.add(name)
        for at in places:
            for file in module_files(name, at):
                found.setdefault(file, package_of(file, at))
    parts = package.split("/") if package else []
    for level, name in () if package is None else _relative(module):
        if level - 1 > len(parts):
            continue  # above the repository: an ImportError when it runs
        base = "/".join(parts[: len(parts) - (level - 1)])
        at = base + "/" if base else ""
        for file in [*(module_files(name, at) if name else []), f"{at}__init__.py"]:
            found.setdefault(file, posixpath.dirname(file))
    return found


def package_of(file: str, place: str) -> str | None:
    """The package directory of `file` imported from the ``sys.path`` entry `place` ('' or
    ending in '/'): its directory, None where it is a top-level module (``place/NAME.py``)."""
    directory = posixpath.dirname(file)
    return None if (directory + "/" if directory else "") == place else directory


def own_package(path: str, places: Sequence[str]) -> str | None:
    """The package directory of the module at `path` where nothing says how it was imported
    (a command class ``setup.cfg`` names): its directory, None where that is one of
    `places` (a top-level module)."""
    return min(
        (package_of(path, at) for at in places),
        key=lambda p: p is not None,
        default=posixpath.dirname(path),
    )


def _relative(module: ast.Module) -> Iterator[tuple[int, str]]:
    """(level, dotted name under that package) of each relative import (``from ..a import b``:
    (2, ``a``) and (2, ``a.b``); ``from . import x``: (1, ``x``))."""
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and node.level:
            head = node.module or ""
            yield node.level, head
            for alias in node.names:
                yield node.level, f"{head}.{alias.name}" if head else alias.name


def loaded_name(node: ast.AST) -> str | None:
    """``NAME`` of ``importlib.import_module("NAME")`` or ``__import__("NAME")``."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    first = node.args[0]
    if called not in _LOADERS or not isinstance(first, ast.Constant):
        return None
    return first.value if isinstance(first.value, str) and first.value else None
