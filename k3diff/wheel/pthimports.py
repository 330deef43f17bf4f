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
Windows, `__INIT__.py` where paths open in any case). Not followed: a name the line computes
(`__import__(name)`, an `exec` of a string), what the imported module imports in turn, a module
in a directory a path line adds, and lines past the part of the `.pth` k3diff reads.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from k3diff.wheel.casereads import loaded_names
from k3diff.wheel.extplatforms import CaseRule
from k3diff.wheel.installed import InstalledFile
from k3diff.wheel.pth import PthLine, line_numbers

Module = tuple[str, ...]
"""A dotted module name, split at its dots."""
_SITE = "site-packages/"


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
    case: CaseRule,
) -> Iterator[tuple[InstalledFile, str]]:  # fmt: skip
    """Each file of site-packages an executable line of a `.pth` (its installed path, content
    and lines) imports at every start, and how: `demo_hook: imported by demo.pth's line 1 at
    every start`."""
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
    for file in files:
        if not file.path.startswith(_SITE):
            continue
        *directories, leaf = file.path[len(_SITE) :].split("/")
        package: _Named | None = named
        for directory in directories:
            package = package.below.get(directory) if package else None
        if package is None:
            continue
        for name in sorted(loaded_names(leaf, case)):
            own = name == "__init__"  # a package's: its directory is the module
            runs = (package if directories else None) if own else package.below.get(name)
            if runs is not None:
                said = ".".join(directories if own else [*directories, name])
                yield file, f"{said}: imported by {runs.how} at every start"
                break


@dataclass(frozen=True)
class _Named:
    """A module a line imports: how (`demo.pth's line 1`), and the modules below it it imports."""

    how: str
    below: dict[str, _Named]
