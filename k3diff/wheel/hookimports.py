"""The modules code names for import, read with `ast` and never run: a `.pth` file's executable
line (`line_modules`), and a module a line imports, whose import runs its top-level code, which
may import more of the wheel in turn (`module_imports`, followed by `pthimports`).

Taken as written: `import a.b, c`; `from a import b` (`a`, and `a.b`, which the import system
tries where `a` is a package with no such attribute); `from a import *` (`a` and every module
below it: the package's `__all__` may name any); `from . import b` and `from .a import b` in a
module, resolved against its package; `__import__('a')` (with a literal `fromlist`, its names
below `a`) and `importlib.import_module('a')` (`'.b'` with a literal package), and as imports
too, each by a literal name: `importlib.util.find_spec('a')` (which imports `a`'s package;
`exec_module` may then run `a`), `runpy.run_module('a')` and `pkgutil.resolve_name('a:f')`.
Such a function is known by its name, by the one an import binds it to (`from importlib import
import_module as load`) or an assignment (`imp = __import__`): fuzz71, each passed, exit 0.

A module's import runs its top-level statements, those in their `if`, `try`, `with`, `for` and
`while` blocks, class bodies, and a function's decorators and defaults; not a function's body,
unless that code calls the function: by its name (`def _boot(): import demo_inner` then
`_boot()`; a function code that runs takes by name, `boot = _boot` or a callback, counts as
called), or from elsewhere through a module an import bound (`demo_hook.install()` on a line,
`__import__('_distutils_hack').add_shim()`, `f()` after `from a import f`, `start =
demo_boot.install` then `start()`: `Imports.calls`, which `pthimports` asks the module for; a
name the module itself imports, `from ._impl import install`, is followed on to that module; a
name no import binds, called beside `from a import *`: every function of `a`). Not followed:
a call through anything else (`self.start()`, an object's method: a meta path finder's
`find_spec` runs at later imports, not at start; `__init_subclass__` and the other methods
Python calls itself), names computed at run time (`__import__(name)`, `exec`). Bindings are
read for the whole module, whatever the scope (a name bound in one function and called in
another counts: more is followed, never less).
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

Module = tuple[str, ...]
"""A dotted module name, split at its dots."""
Named = tuple[Module, bool]
"""A module named for import, and whether every module below it may be imported too (`*`)."""
Call = tuple[Module, str]
"""A function called through a module: the module, and the function's name in it."""
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
EVERY = "*"
"""Requested of a module: every function of it (one a star import bound was called)."""
_IMPORTING = {"__import__": "name", "import_module": "name", "find_spec": "name",
              "run_module": "mod_name", "resolve_name": "name"}  # fmt: skip
"""The functions that import a module named by their first argument (or this keyword)."""


@dataclass(frozen=True)
class Imports:
    """What code imports when it runs, and the functions of other modules it calls."""

    modules: list[Named]
    """The modules it names for import, in order."""
    calls: list[Call]
    """The functions it calls through a module it imported (`demo_hook.install()`,
    `__import__('a').f()`, `f()` after `from a import f`)."""


def line_modules(text: str) -> Imports:
    """What an executable `.pth` line imports and calls (nothing where it does not parse:
    `site` then runs none of it)."""
    tree = _parsed(text)
    return Imports([], []) if tree is None else _imports(ast.walk(tree), (), frozenset())


def module_imports(
    source: bytes, module: Module, package: bool, requested: frozenset[str] = frozenset()
) -> Imports | None:
    """What importing `module` (its source; `package`: it is a package's `__init__`) imports
    and calls in turn, the functions of it `requested` (called from elsewhere) run too; None
    where its source does not parse here (a later Python's syntax may: the caller cannot say
    what it imports)."""
    tree = _parsed(source)
    if tree is None:
        return None
    return _imports(_executed(tree, requested), module if package else module[:-1], requested)


def _parsed(source: str | bytes) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _executed(tree: ast.Module, requested: frozenset[str]) -> Iterator[ast.AST]:
    """The nodes importing the module runs: all but function bodies, and those of the module's
    own functions its code calls by name or others call (`requested`), walked once each, when
    the rest is."""
    functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    called: set[str] = set(requested)
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
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                called.add(node.id)  # called, or taken (`g = f`, `@f`, a callback): may be
            stack += ast.iter_child_nodes(node)
        if not stack:  # then the bodies of functions called, defined anywhere it ran
            for name in list(functions) if EVERY in called else called.intersection(functions):
                stack += [statement for f in functions.pop(name) for statement in f.body]


def _imports(nodes: Iterable[ast.AST], package: Module, requested: frozenset[str]) -> Imports:
    """The modules the import statements and calls among `nodes` name, relative ones resolved
    against `package` (none where it has no package), and the functions called through a
    module (`requested`: names others call, which an import here may bind)."""
    found: dict[Module, bool] = {}
    bound: dict[str, Module] = {}  # a name an import binds, to the module (or `module.name`)
    stars: list[Module] = []  # the modules `from a import *` binds every public name of
    aliases: list[tuple[ast.expr, ast.expr]] = []
    calls: list[ast.Call] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            _add(found, [(alias.name, False) for alias in node.names])
            for alias in node.names:
                split = tuple(alias.name.split("."))
                bound[alias.asname or split[0]] = split if alias.asname else split[:1]
        elif isinstance(node, ast.ImportFrom) and (source := _source(node, package)) is not None:
            every = any(a.name == "*" for a in node.names)
            _add(found, [(source, every)])
            _add(found, [(f"{source}.{a.name}", False) for a in node.names if a.name != "*"])
            stars += [tuple(source.split("."))] if every else []
            for alias in node.names:
                bound[alias.asname or alias.name] = (*source.split("."), alias.name)
        elif isinstance(node, ast.Call):
            calls.append(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            aliases += [(node.targets[0], node.value)]
    for target, value in aliases:  # `imp = __import__`, `f = demo_hook.install`: a function
        if isinstance(target, ast.Name):  # bound by an assignment, as its import bound it
            function = _function_of(value, bound)
            bound.update({target.id: function} if function else {})
    through: dict[Call, None] = {}
    unbound = any(name not in bound for name in requested)  # a name no import here binds
    for call in calls:  # once every import is bound: a function may call one imported later
        _add(found, _called(call, bound))  # `from importlib import import_module as im`
        func = call.func
        owner = _module_of(func.value, bound) if isinstance(func, ast.Attribute) else None
        if owner is not None and isinstance(func, ast.Attribute):
            through[owner, func.attr] = None
        elif isinstance(func, ast.Name) and len(bound.get(func.id, ())) > 1:
            through[bound[func.id][:-1], bound[func.id][-1]] = None  # `from a import f; f()`
        elif isinstance(func, ast.Name) and func.id not in bound:
            unbound = True
    for name in requested:  # `from ._impl import install`, called from elsewhere as this
        if len(bound.get(name, ())) > 1:  # module's `install`
            through[bound[name][:-1], bound[name][-1]] = None
    if unbound:  # `from a import *; f()`: every function of `a` requested, one request a star
        through.update(((star, EVERY), None) for star in stars)  # (one a name: 2,000 stars
    return Imports(list(found.items()), list(through))  # by 20,000 calls took 7 GB)


def _add(found: dict[Module, bool], names: Iterable[tuple[str, bool]]) -> None:
    """Name each module of `names` (and whether every module below it may be imported)."""
    for name, every in names:
        split = tuple(name.split("."))
        if name and all(split):
            found[split] = found.get(split, False) or every


def _module_of(node: ast.expr, bound: dict[str, Module]) -> Module | None:
    """The module an expression is, where an import bound it (`demo_hook`, `a.b` after
    `import a.b`, `__import__('a')`, `importlib.import_module('a.b')`)."""
    attributes = []
    while isinstance(node, ast.Attribute):  # walked, not recursed: a chain may be 10,000 long
        attributes.append(node.attr)
        node = node.value
    owner = _owner(node, bound)
    return None if owner is None else (*owner, *reversed(attributes))


def _function_of(value: ast.expr, bound: dict[str, Module]) -> Module | None:
    """The function an assigned value is, where an import bound it (`demo_hook.install`, `f`
    after `from a import f`) or it imports (`__import__`), as `bound` holds a function."""
    if isinstance(value, ast.Name):
        known = bound.get(value.id)
        return known if known else ("builtins", value.id) if value.id in _IMPORTING else None
    if isinstance(value, ast.Attribute):
        owner = _module_of(value.value, bound)
        return None if owner is None else (*owner, value.attr)
    return None


def _owner(node: ast.expr, bound: dict[str, Module]) -> Module | None:
    """The module a name or an import call is (`_module_of` past the attributes)."""
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Call):
        named = _called(node, bound)
        called = _callee(node.func, bound)
        if named and named[0][0]:
            split = tuple(named[0][0].split("."))
            whole = called == "import_module" or len(named) > 1 or named[0][1]
            return split if whole else split[:1]  # `__import__('a.b')` is `a`
    return None


def _source(node: ast.ImportFrom, package: Module) -> str | None:
    """The module `from X import ...` imports from, a relative one resolved (None where it
    climbs above the top: the import fails)."""
    if not node.level:
        return node.module
    if node.level > len(package):
        return None
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def _callee(func: ast.expr, bound: dict[str, Module]) -> str | None:
    """The name of the function `func` is: an attribute's, or a name's, or the function an
    import bound the name to (`import_module` for `im` after `from importlib import
    import_module as im`)."""
    if isinstance(func, ast.Name):
        target = bound.get(func.id, ())
        return target[-1] if len(target) > 1 else func.id
    return getattr(func, "attr", None)


def _called(call: ast.Call, bound: dict[str, Module]) -> list[tuple[str, bool]]:
    """The modules `__import__(...)`, `import_module(...)` (or `find_spec`), runpy's
    `run_module(...)` or pkgutil's `resolve_name(...)` names with literal arguments, by their
    names or those an import binds to them (a `fromlist` of `*` imports those the package's
    `__all__` names: any below it)."""
    called = _callee(call.func, bound)
    if called not in _IMPORTING:
        return []
    args = [*call.args, *(None for _ in range(5))]
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    name = _literal(args[0] or keywords.get(_IMPORTING[called]))
    if not isinstance(name, str):
        return []
    if called == "resolve_name":  # `a.b:c` imports `a.b`; `a.b.c` each prefix it can
        return [(name.partition(":")[0], False)]
    if called != "__import__":  # run_module runs the module; find_spec imports its package
        if not name.startswith("."):  # (taken as the module's import: more followed, never
            return [(name, False)]  # less)
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
