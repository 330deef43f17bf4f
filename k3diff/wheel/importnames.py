"""What code names for import, read from the statements and calls of one block with `ast` and
never run (`imports_named`), and what it amounts to (`Imports`): the modules, the functions of a
module it calls or hands on, and why it may import any module where it computes a name.
`hookimports` gathers the block a module's import runs and asks it here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from k3diff.wheel.boundnames import Module, Names, function_called, function_of, module_of
from k3diff.wheel.computednames import (
    RUNNING,
    attribute,
    by_computed_name,
    called_name,
    imported,
    importer,
    runner,
    short_chain,
    unread_call,
)

Named = tuple[Module, bool]
"""A module named for import, and whether every module below it may be imported too (`*`)."""
Call = tuple[Module, str]
"""A function called through a module: the module, and the function's name in it."""
EVERY = "*"
"""Requested of a module: every function of it (a name no import binds was used beside `from a
import *`; one request a star module, not one a name: 2,000 star imports × 20,000 calls took 7 GB,
fuzz71)."""


@dataclass(frozen=True)
class Imports:
    """What code imports when it runs, and the functions of other modules it calls."""

    modules: list[Named]
    """The modules it names for import, in order."""
    calls: list[Call]
    """The functions it calls through a module it imported (`demo_hook.install()`,
    `__import__('a').f()`, `f()` after `from a import f`)."""
    unknown: str = ""
    """Why k3diff cannot say all the code imports, where it cannot: it computes a name it
    imports or calls (`__import__` of a computed name at line 2, `computednames`), or is over
    the nodes k3diff walks; it may import any module. Empty where it names each as written."""
    methods: frozenset[str] = frozenset()
    """The names of the methods of the classes whose statements run (code elsewhere may call
    one through an object handed to it: `demo_reg.register(Plugin())`, then `p.activate()`)."""
    attributes: frozenset[str] = frozenset()
    """The attributes the code reads (`p.activate`, `getattr(p, 'activate')`): a method so
    named of any module reached runs (hooks72: one of another module passed, exit 0)."""
    walked: int = 0
    """The syntax nodes walked to read it."""
    finders: bool = False
    """Whether it names `sys.meta_path` (it may put a finder there, `finders`)."""


def imports_named(
    nodes: Iterable[ast.AST], module: Module, package: Module, requested: frozenset[str]
) -> Imports:
    """The modules the import statements and calls among `nodes` (`module`'s code; none for a
    line) name, relative ones resolved against `package` (none where it has no package; so are
    `import_module('.b', __name__)` and `__import__('b', level=1)`), and the functions of a
    module they name (called, or handed on: `atexit.register(demo_hook.flush)`; `requested`:
    names others call, which an import here may bind)."""
    found: dict[Module, bool] = {}
    bound: dict[str, Module] = {}  # a name an import binds, to the module (or `module.name`)
    scope = Names(bound, {"__name__": ".".join(module), "__package__": ".".join(package)})
    named: list[ast.Name | ast.Attribute | ast.Call] = []
    stars: list[Module] = []  # the modules `from a import *` binds every public name of
    assigned: list[tuple[str, ast.expr]] = []
    unread = ""  # how the code computes a name it imports or calls, the first found
    for node in nodes:
        if isinstance(node, ast.Import):
            names = [(alias.name, False) for alias in node.names]
            for alias in node.names:
                split = tuple(alias.name.split("."))
                bound[alias.asname or split[0]] = split if alias.asname else split[:1]
        elif isinstance(node, ast.ImportFrom):
            source = _source(node, package)
            if source is None:
                continue
            names = [(source, any(a.name == "*" for a in node.names))]
            names += ((f"{source}.{a.name}", False) for a in node.names if a.name != "*")
            stars += [tuple(source.split("."))] if names[0][1] else []
            for alias in node.names:
                bound[alias.asname or alias.name] = (*source.split("."), alias.name)
        elif isinstance(node, (ast.Call, ast.Name, ast.Attribute)):
            named.append(node)
            continue
        elif isinstance(node, ast.Assign):
            value = node.value
            assigned += ((t.id, value) for t in node.targets if isinstance(t, ast.Name))
            continue
        else:
            continue
        _found(found, names)
    for target, value in assigned:  # `imp = __import__`, `start = demo_hook.install`: bound as
        function = function_of(value, bound)  # an import binds a function
        bound.update({target: function} if function else {})
    taken = {target for target, value in assigned if by_computed_name(value)}  # `f = getattr(m,
    through: dict[Call, None] = {}  # name)`, then `f()`
    called = {id(node.func) for node in named if isinstance(node, ast.Call)}
    called.update(id(value) for _, value in assigned if function_of(value, bound))  # bound
    for node in named:  # once every import is bound: a function may use one imported later
        if isinstance(node, ast.Call):
            modules = imported(node, scope.bound, scope.here)
            _found(found, modules or [])
            func = node.func
            unread = unread or unread_call(
                node, modules is None, taken, function_called(func, scope)
            )
            for value, name in filter(None, (attribute(func), attribute(node))):
                owner = module_of(value, scope)  # `demo_hook.go()`, `getattr(demo_hook, 'go')`
                through.update({(owner, name): None} if owner is not None else {})
            continue
        if id(node) not in called and (runs := _running(node, scope)):  # `map(__import__, x)`
            unread = unread or f"`{runs}` taken as a value at line {node.lineno}"
        if isinstance(node, ast.Attribute) and short_chain(node.value):  # fuzz72: `a.b.go` too
            owner = module_of(node.value, scope)  # `demo_hook.flush` handed on
            if owner is not None:
                through[owner, node.attr] = None
        elif isinstance(node, ast.Name) and len(bound.get(node.id, ())) > 1:
            through[bound[node.id][:-1], bound[node.id][-1]] = None  # `from a import f; f()`
    for name in bound if EVERY in requested else requested.intersection(bound):
        if len(bound[name]) > 1:  # `from ._impl import install`, called from elsewhere as
            through[bound[name][:-1], bound[name][-1]] = None  # this module's `install`
    names_used = (node.id for node in named if isinstance(node, ast.Name))
    if any(name not in bound for name in (*requested, *names_used)):  # `from a import *` then
        through.update(((star, EVERY), None) for star in stars)  # `f()`: every function of `a`
    return Imports(list(found.items()), list(through), unread)


def _running(node: ast.Name | ast.Attribute, names: Names) -> str | None:
    """The importing function, `exec` or `eval` a name or a module's attribute read stands for
    (`__import__`, `importlib.import_module`, `load` after `from importlib import import_module
    as load`), or a function of `computednames.RUNNERS` (`map(timeit.timeit, x)`, `h = help`:
    review72d, each passed, exit 0)."""
    if not isinstance(node.ctx, ast.Load):
        return None
    name = importer(node, names.bound) or called_name(node)
    if isinstance(node, ast.Attribute) and module_of(node.value, names) is None:
        return None
    function = function_called(node, names) or ()
    return name if name in RUNNING else ".".join(function) if runner(function, 0) else None


def _found(found: dict[Module, bool], names: Iterable[tuple[str, bool]]) -> None:
    """Add the modules `names` names (and whether every module below each may be imported)."""
    for name, every in names:
        split = tuple(name.split("."))
        if name and all(split):
            found[split] = found.get(split, False) or every


def _source(node: ast.ImportFrom, package: Module) -> str | None:
    """The module `from X import ...` imports from, a relative one resolved (None where it
    climbs above the top: the import fails)."""
    if not node.level:
        return node.module
    if node.level > len(package):
        return None
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])
