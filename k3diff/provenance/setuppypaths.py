"""The directories a ``setup.py`` puts on ``sys.path``, where its imports find the project's
modules too.

grpcio's ``setup.py`` does ``sys.path.insert(0, os.path.abspath(PYTHON_STEM))`` with
``PYTHON_STEM = os.path.join("src", "python", "grpcio")``, then ``import commands``: the
module run is ``src/python/grpcio/commands.py``, which `setuppylocal` looked for at the
project's root alone, so a module there running CMake was not read (cmake77). An entry is read
where its value is a string, a name assigned it once, or ``os.path``'s ``join``, ``abspath``,
``normpath``, ``realpath`` or ``dirname`` of those (``__file__`` being ``setup.py``'s path);
one computed otherwise (``"sr" + "c"``, ``Path(…)``, an environment variable) is not.

Nor is a change made another way (``sys.path[:0] = […]``, ``sys.path.extend``, ``+=``,
``from sys import path``, ``site.addsitedir``): review77b, such a ``setup.py`` importing
``commands`` from ``build_tools/`` (or naming ``commands.CMakeBuild`` in ``setup.cfg``'s
``cmdclass``), whose code ran ``cmake --install`` over the package, passed, exit 0. Where a
change is not read, every directory of the commit holding an imported module's top name
(``NAME.py``, ``NAME/``, a link named so) is taken as an entry (`import_places`), at most
`ENTRIES_CAP` of them.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Collection, Iterable

from k3diff.escape import shortened

ENTRIES_CAP = 16
"""Most ``sys.path`` entries of one ``setup.py`` read; more stop the run (each multiplies the
places its imports are looked up)."""
_PATH_CALLS = frozenset({"join", "abspath", "normpath", "realpath", "dirname"})
_DEPTH_CAP = 16
"""Most names followed from an entry to its value (``A = B``, ``B = C`` …)."""


def path_entries(module: ast.Module, directory: str) -> list[str] | str:
    """The repository directories ('' or ending in '/') the parsed ``setup.py`` of the project
    in `directory` adds to ``sys.path`` by ``sys.path.insert(…)`` or ``sys.path.append(…)``,
    each inside the repository; or why they are not read (over `ENTRIES_CAP`)."""
    names = _assigned_once(module)
    entries = []
    for node in ast.walk(module):
        if not isinstance(node, ast.Call) or not _adds_to_path(node.func) or not node.args:
            continue
        value = _value(node.args[-1], names, 0)
        if value is None:
            continue  # computed otherwise: not read (docs/wheels.md)
        joined = posixpath.normpath(posixpath.join(directory or ".", value))
        if not value.startswith("/") and not joined.startswith(("../", "/")) and joined != "..":
            entries.append("" if joined == "." else joined + "/")
    found = sorted(set(entries))
    if len(found) > ENTRIES_CAP:
        many = shortened(", ".join(found[:3]), 200)
        return f"{len(found):,} sys.path entries of setup.py ({many} …), over {ENTRIES_CAP},"
    return found


def import_places(
    module: ast.Module,
    directory: str,
    paths: Iterable[str],
    names: Collection[str],
) -> list[str] | str:
    """Where the parsed ``setup.py`` of the project in `directory` has the modules `names`
    (dotted) found: its directory, the ``sys.path`` entries read (`path_entries`), and, where
    it changes ``sys.path`` in a way not read (`unread_change`), every directory of the
    commit's `paths` (files and links) holding a top name of `names`; or why not read (more
    than `ENTRIES_CAP` entries), ending before ``not read``."""
    entries = path_entries(module, directory)
    if isinstance(entries, str):
        return entries
    places = [directory, *entries]
    line = unread_change(module)
    if line is None:
        return places
    tops = {name.split(".")[0] for name in names}
    held = sorted(_holding(paths, tops) - set(places))
    if len(places) + len(held) > ENTRIES_CAP:
        many = shortened(", ".join(held[:3]), 200)
        return (
            f"setup.py changes sys.path in a way k3diff does not read (line {line}), and "
            f"{len(held):,} directories of the commit ({many} …) hold modules it imports, over "
            f"{ENTRIES_CAP},"
        )
    return places + held


def unread_change(module: ast.Module) -> int | None:
    """The line of the first change `module` makes to ``sys.path`` that `path_entries` does
    not read (``sys.path`` used but by an ``insert``/``append`` of a value read, ``from sys
    import path``, ``addsitedir``), None where there is none."""
    names = _assigned_once(module)
    systems = {"sys"} | {
        alias.asname
        for node in ast.walk(module)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "sys" and alias.asname
    }
    read: set[int] = set()
    lines: list[int] = []
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and _adds_to_path(node.func) and node.args:
            if _value(node.args[-1], names, 0) is not None and isinstance(node.func, ast.Attribute):
                read.add(id(node.func.value))
        elif isinstance(node, ast.ImportFrom) and node.module == "sys" and not node.level:
            if any(a.name in ("path", "*") for a in node.names):
                lines.append(node.lineno)
        elif isinstance(node, ast.Name | ast.Attribute | ast.alias) and (
            _name_of(node) == "addsitedir"
        ):
            lines.append(getattr(node, "lineno", 0))
    for node in ast.walk(module):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "path"
            and isinstance(node.value, ast.Name)
            and node.value.id in systems
            and id(node) not in read
        ):
            lines.append(node.lineno)
    return min(lines) if lines else None


def _name_of(node: ast.Name | ast.Attribute | ast.alias) -> str:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else node.name


def _holding(paths: Iterable[str], tops: Collection[str]) -> set[str]:
    """The directories ('' or ending in '/') of `paths` holding ``NAME.py``, a directory
    ``NAME/`` or a link ``NAME`` for a name of `tops`: one pass over the commit's paths."""
    found = set()
    for path in paths:
        parts = path.split("/")
        last = len(parts) - 1
        for at, part in enumerate(parts):
            if part in tops or (at == last and part.endswith(".py") and part[:-3] in tops):
                found.add("".join(p + "/" for p in parts[:at]))
    return found


def _adds_to_path(func: ast.expr) -> bool:
    """``sys.path.insert`` or ``sys.path.append``."""
    if not isinstance(func, ast.Attribute) or func.attr not in ("insert", "append"):
        return False
    path = func.value
    return (
        isinstance(path, ast.Attribute)
        and path.attr == "path"
        and isinstance(path.value, ast.Name)
        and path.value.id == "sys"
    )


def _assigned_once(module: ast.Module) -> dict[str, ast.expr]:
    """Each name bound once, by a plain ``NAME = value``, and its value."""
    values: dict[str, ast.expr] = {}
    bound: dict[str, int] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound[node.id] = bound.get(node.id, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                values[target.id] = node.value
    return {name: value for name, value in values.items() if bound.get(name) == 1}


def _value(node: ast.expr, names: dict[str, ast.expr], depth: int) -> str | None:
    """The string `node` evaluates to, where read (module docstring); None otherwise."""
    if depth > _DEPTH_CAP:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        if node.id == "__file__":
            return "setup.py"
        held = names.get(node.id)
        return None if held is None else _value(held, names, depth + 1)
    if not isinstance(node, ast.Call) or node.keywords or not node.args:
        return None
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr in _PATH_CALLS):
        return None
    owner = func.value  # os.path, or path from `from os import path`
    if not (isinstance(owner, ast.Attribute) and owner.attr == "path") and not (
        isinstance(owner, ast.Name) and owner.id in ("path", "os.path")
    ):
        return None
    parts = [_value(arg, names, depth + 1) for arg in node.args]
    if any(part is None for part in parts):
        return None
    texts = [part for part in parts if part is not None]
    if func.attr == "join":
        return posixpath.join(*texts)
    if len(texts) != 1:
        return None
    return posixpath.dirname(texts[0]) if func.attr == "dirname" else texts[0]
