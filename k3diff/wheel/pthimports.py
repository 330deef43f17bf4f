"""The modules a `.pth` file's executable lines import, and the wheel's files `site` so runs at
every interpreter start, as it runs a `sitecustomize` (W702).

`site.addpackage` runs each executable line with `exec(line)`. k3diff parses it (`ast.parse`,
never run) and takes the modules it names as written: `import a.b, c`, `from a import b` (`a`,
and `a.b`, which the import system tries where `a` is a package with no such attribute),
`__import__('a')` (with a literal `fromlist`, its names below `a`) and
`importlib.import_module('a')` (`'.b'` with a literal package). Importing `a.b.c` runs `a`'s
package `__init__` or its module file, then `a.b`'s, then `a.b.c`'s, each looked up in
site-packages by the import system of every system the wheel installs on
(`casereads.loaded_names`: a `.so` on Linux, `.pyd`, `.pyw` and suffixes in any case on
Windows, `__INIT__.py` where paths open in any case), and in each directory a path line of the
wheel puts on `sys.path` (`pthpaths.named_places`: pywin32's `import pywin32_bootstrap` finds
`win32/lib/pywin32_bootstrap.py` by its line `win32\\lib`). Not followed: a name the line
computes (`__import__(name)`, an `exec` of a string), what the imported module imports in turn,
and lines past the part of the `.pth` k3diff reads.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from k3diff.wheel.casereads import loaded_names
from k3diff.wheel.extplatforms import CaseRule
from k3diff.wheel.installed import InstalledFile
from k3diff.wheel.pth import PthLine, line_numbers
from k3diff.wheel.pthpaths import Place, places_of

Module = tuple[str, ...]
"""A dotted module name, split at its dots."""
_SITE = "site-packages/"
_ON = "/"  # `_places_tree`'s key of how a line names a place (no segment is `/`)


def line_modules(text: str) -> list[Module]:
    """The modules an executable `.pth` line names statically, in order (none where it does
    not parse: `site` then runs none of it)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.append(node.module)
            found += (f"{node.module}.{a.name}" for a in node.names if a.name != "*")
        elif isinstance(node, ast.Call):
            found += _called(node)
    return [tuple(name.split(".")) for name in dict.fromkeys(found) if name]


def _called(call: ast.Call) -> list[str]:
    """The module `__import__(...)` or `import_module(...)` names with literal arguments."""
    func = call.func
    called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if called not in ("__import__", "import_module"):
        return []
    args = [*call.args, *(None for _ in range(5))]
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    name = _literal(args[0] or keywords.get("name"))
    if not isinstance(name, str):
        return []
    if called == "import_module":
        if not name.startswith("."):
            return [name]
        package = _literal(args[1] or keywords.get("package"))
        try:
            return [importlib.util.resolve_name(name, package)] if isinstance(package, str) else []
        except (ImportError, ValueError):
            return []
    if _literal(args[4] or keywords.get("level")) not in (None, 0):
        return []
    fromlist = _literal(args[3] or keywords.get("fromlist"))
    below = fromlist if isinstance(fromlist, (list, tuple)) else ()
    return [name, *(f"{name}.{b}" for b in below if isinstance(b, str) and b != "*")]


def _literal(node: ast.expr | None) -> object:
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None


def imported_files(
    files: Iterable[InstalledFile], pths: Iterable[tuple[str, str | None, Iterable[PthLine]]],
    case: CaseRule, places: dict[Place, str],
) -> Iterator[tuple[InstalledFile, str]]:  # fmt: skip
    """Each file an executable line of a `.pth` (its installed path, content and lines) imports
    at every start, and how (`demo_hook: imported by demo.pth's line 1 at every start`): from
    the top of site-packages, or from a place a path line puts on `sys.path` (`places`,
    `pthpaths.named_places`)."""
    named = _Named("", {})  # each module imported (every prefix of a name) by its segments
    for key, content, lines in pths:
        pth, numbers = key.rpartition("/")[2], None
        for line in lines:
            modules = line_modules(line.text) if line.executable else ()
            if modules and numbers is None:
                numbers = line_numbers(content or "")
            number = numbers.get(line.text) if numbers else None
            how = f"{pth}'s line {number}" if number else pth
            for module in modules:
                node = named
                for segment in module:
                    node = node.below.setdefault(segment, _Named(how, {}))
    if not named.below:
        return
    fold = str.lower if case.path_blind else str
    tree = _places_tree(places, fold)
    for file in files:
        top = file.path.startswith(_SITE)
        runs = _imported(file.path, len(_SITE), named, case) if top else None
        for where, below in places_of(file) if tree and runs is None else ():
            place, start = tree.get(where), 0
            while place is not None:  # each place a line names above the file, walked down
                on = place.get(_ON)
                found = _imported(below, start, named, case) if isinstance(on, str) else None
                if found is not None:
                    runs = f"{found}, from {on}"
                    break
                end = below.find("/", start)
                place = None if end < 0 else place.get(fold(below[start:end]))
                start = end + 1
            if runs is not None:
                break
        if runs is not None:
            yield file, runs


def _places_tree(places: dict[Place, str], fold: Callable[[str], str]) -> dict[str, Any]:
    """The places path lines name as a tree of their (folded) segments, each named one's `_ON`
    saying how, so that a file's directories are looked up as its path is walked."""
    tree: dict[str, Any] = {}
    for (where, below), how in places.items():
        node = tree.setdefault(where, {})
        for segment in below.split("/") if below else ():
            node = node.setdefault(fold(segment), {})
        node.setdefault(_ON, how)
    return tree


def _imported(path: str, start: int, named: _Named, case: CaseRule) -> str | None:
    """How the file at `path[start:]` below a `sys.path` entry runs as a module a line imports
    (its directories looked up one by one, as far as the names lines import go)."""
    package, directories = named, []
    while (end := path.find("/", start)) >= 0:
        segment = path[start:end]
        below = package.below.get(segment)
        if below is None:
            return None
        package, start = below, end + 1
        directories.append(segment)
    for name in sorted(loaded_names(path[start:], case)):
        own = name == "__init__"  # a package's: its directory is the module
        runs = (package if directories else None) if own else package.below.get(name)
        if runs is not None:
            said = ".".join(directories if own else [*directories, name])
            return f"{said}: imported by {runs.how} at every start"
    return None


@dataclass(frozen=True)
class _Named:
    """A module a line imports: how (`demo.pth's line 1`), and the modules below it it imports."""

    how: str
    below: dict[str, _Named]
