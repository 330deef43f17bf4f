"""The modules code names for import, read with `ast` and never run: a `.pth` file's executable
line (`line_modules`), and a module a line imports, whose import runs its top-level code, which
may import more of the wheel in turn (`module_imports`, followed by `pthimports`).

Taken as written: `import a.b, c`; `from a import b` (`a`, and `a.b`, which the import system
tries where `a` is a package with no such attribute); `from a import *` (`a` and every module
below it: the package's `__all__` may name any); `from . import b` and `from .a import b` in a
module, resolved against its package; `__import__('a')` (with a literal `fromlist`, its names
below `a`) and `importlib.import_module('a')` (`'.b'` with a literal package).

A module's import runs its top-level statements, those in their `if`, `try`, `with`, `for` and
`while` blocks, class bodies, and a function's decorators and defaults; not a function's body,
unless that code calls the function by its name (`def _boot(): import demo_inner` then
`_boot()`), followed within the module. Not followed: a function called through an attribute
(`demo_hook.install()` on a line, `self.start()`), methods (a meta path finder's `find_spec` runs
at later imports, not at start), names computed at run time (`__import__(name)`, `exec`).
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterable, Iterator

Module = tuple[str, ...]
"""A dotted module name, split at its dots."""
Named = tuple[Module, bool]
"""A module named for import, and whether every module below it may be imported too (`*`)."""
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def line_modules(text: str) -> list[Named]:
    """The modules an executable `.pth` line names statically, in order (none where it does
    not parse: `site` then runs none of it)."""
    tree = _parsed(text)
    return [] if tree is None else _named(ast.walk(tree), ())


def module_imports(source: bytes, module: Module, package: bool) -> list[Named] | None:
    """The modules importing `module` (its source; `package`: it is a package's `__init__`)
    imports in turn, or None where its source does not parse here (a later Python's syntax
    may: the caller cannot say what it imports)."""
    tree = _parsed(source)
    if tree is None:
        return None
    return _named(_executed(tree), module if package else module[:-1])


def _parsed(source: str | bytes) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _executed(tree: ast.Module) -> Iterator[ast.AST]:
    """The nodes importing the module runs: all but function bodies, and those of the module's
    own functions its code calls by name (walked once each, when the rest is)."""
    functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    called: set[str] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _FUNCTIONS):
            functions.setdefault(node.name, []).append(node)
            arguments = node.args
            stack += [*node.decorator_list, *arguments.defaults]
            stack += [default for default in arguments.kw_defaults if default is not None]
        else:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                called.add(node.func.id)
            stack += ast.iter_child_nodes(node)
        if not stack:  # then the bodies of functions called, defined anywhere it ran
            for name in called.intersection(functions):
                stack += [statement for f in functions.pop(name) for statement in f.body]


def _named(nodes: Iterable[ast.AST], package: Module) -> list[Named]:
    """The modules the import statements and calls among `nodes` name, relative ones resolved
    against `package` (none where it has no package)."""
    found: dict[Module, bool] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            names = [(alias.name, False) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _source(node, package)
            if source is None:
                continue
            names = [(source, any(a.name == "*" for a in node.names))]
            names += ((f"{source}.{a.name}", False) for a in node.names if a.name != "*")
        elif isinstance(node, ast.Call):
            names = _called(node)
        else:
            continue
        for name, every in names:
            split = tuple(name.split("."))
            if name and all(split):
                found[split] = found.get(split, False) or every
    return list(found.items())


def _source(node: ast.ImportFrom, package: Module) -> str | None:
    """The module `from X import ...` imports from, a relative one resolved (None where it
    climbs above the top: the import fails)."""
    if not node.level:
        return node.module
    if node.level > len(package):
        return None
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def _called(call: ast.Call) -> list[tuple[str, bool]]:
    """The modules `__import__(...)` or `import_module(...)` names with literal arguments (a
    `fromlist` of `*` imports those the package's `__all__` names: any below it)."""
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
            return [(name, False)]
        package = _literal(args[1] or keywords.get("package"))
        try:
            resolved = (
                importlib.util.resolve_name(name, package) if isinstance(package, str) else ""
            )
        except (ImportError, ValueError):
            return []
        return [(resolved, False)] if resolved else []
    if _literal(args[4] or keywords.get("level")) not in (None, 0):
        return []
    fromlist = _literal(args[3] or keywords.get("fromlist"))
    below = (
        [b for b in fromlist if isinstance(b, str)] if isinstance(fromlist, (list, tuple)) else []
    )
    return [(name, "*" in below), *((f"{name}.{b}", False) for b in below if b != "*")]


def _literal(node: ast.expr | None) -> object:
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
