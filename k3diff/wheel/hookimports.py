"""The modules code names for import, read with `ast` and never run: a `.pth` file's executable
line (`line_modules`), and a module a line imports, whose import runs its top-level code, which
may import more of the wheel in turn (`module_imports`, followed by `pthimports`).

Taken as written: `import a.b, c`; `from a import b` (`a`, and `a.b`, which the import system
tries where `a` is a package with no such attribute); `from a import *` (`a` and every module
below it: the package's `__all__` may name any); `from . import b` and `from .a import b` in a
module, resolved against its package; `__import__('a')` (with a literal `fromlist`, its names
below `a`; with a `level`, against the module's package) and `importlib.import_module('a')`
(`'.b'` with a literal package, or the module's `__name__`/`__package__`), and as imports
`importlib.util.find_spec('a')` (`exec_module` may then run `a`), `runpy.run_module('a')` and
`pkgutil.resolve_name('a:f')`, also under a name an import or an assignment bound them to (`from
importlib import import_module as load`, `imp = __import__`; fuzz71: each passed, exit 0).

A module's import runs its top-level statements, those in their `if`, `try`, `with`, `for`,
`while` and `match` blocks, class bodies, a function's decorators and defaults, and the code of
a literal string it `exec`s or `eval`s (coverage's `.pth` line); not a function's body, unless
that code names the function, called or not (`atexit.register(f)`, `map(f, x)`), or a decorator
that may call it decorates it (`decorators`; a class so decorated runs its dunder methods):
by its name (`def _boot(): import demo_inner` then `_boot()`), a method by its name through any
object, of this module or of any other reached (`Hook.install()`, `self.go()`, a registry's
`p.activate()`: `Imports.methods`, `Imports.attributes`), a class's dunder and sunder methods
where the class is named or its statement has a base (`Hook()` runs `__init__`, an `Enum`'s
`_generate_next_value_`), a module-level `__getattr__` always, or from elsewhere through a
module an import bound (`demo_hook.install()`, `getattr(demo_hook, 'install')()`, `f()` after
`from a import f`: `Imports.calls`; a re-export, `from ._impl import install`, is followed on;
a name no import binds beside `from a import *`: every function of `a`, `EVERY`). Each shape passed
before (review71b, fuzz71, hooks72; fuzz72: a function handed on as `a.b.go`). A name computed at
run time (`__import__(name)`, `getattr(m, name)()`, `exec(text)`: `computednames`), or a
namespace read whole (`cls.__dict__.values()`: `Spaces`), is `Imports.unknown`: it may import
any module; strings joined of literals are certain (`fold`).
A meta path finder's methods, where code followed names `sys.meta_path` (`Imports.finders`), run
for each name asked at start (`finders`: hooks73). Not followed: a method no code names. Names
are read for the whole module, whatever the scope or object.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from k3diff.wheel.boundnames import Module
from k3diff.wheel.computednames import (
    attribute,
    called_name,
    literal,
    namespace_key,
    special,
)
from k3diff.wheel.decorators import Decorators, Rebinding
from k3diff.wheel.finders import ASK, bound_bodies
from k3diff.wheel.hookwords import CHANGED
from k3diff.wheel.importnames import EVERY, Imports, imports_named
from k3diff.wheel.namespacereads import Spaces

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_META_PATH = "meta_path"
_EXEC = 1
"""Characters of literal strings `exec`ed parsed, per character of the code that `exec`s them:
one level's (coverage's `.pth` line) fits, strings nested in strings soon do not."""
NODES = 1 << 17
"""Syntax nodes of the code run at start walked in all (past them, it may import anything:
hooks72, 1 MiB of `f(a)` lines took 4.5 s of CPU to parse and walk)."""


def line_modules(text: str, nodes: int = NODES) -> Imports:
    """What an executable `.pth` line imports and calls, `nodes` syntax nodes of it read at most
    (nothing where it does not parse: `site` then runs none of it; where the strings it `exec`s
    nest past `_EXEC`, a name it computes: hooks72, such a line was read as importing nothing)."""
    tree = _parsed(text)
    if tree is None:
        return Imports([], [])
    seen = _Seen(nodes=nodes)
    try:
        found = imports_named(
            _executed(tree, frozenset(), _EXEC * len(text), seen), (), (), frozenset()
        )
    except _Unknown:
        return Imports([], [], "`exec` of strings nested past what k3diff parses")
    except _TooMany:
        return Imports([], [], f"past the {NODES:,} syntax nodes k3diff walks", walked=seen.walked)
    return _with_seen(found, seen, frozenset())


def module_imports(
    source: bytes,
    module: Module,
    package: bool,
    requested: frozenset[str] = frozenset(),
    nodes: int = NODES,
) -> Imports | None:
    """What importing `module` (its source; `package`: it is a package's `__init__`) imports
    and calls in turn, the functions of it `requested` (called from elsewhere) run too, `nodes`
    syntax nodes of it read at most (unknown past them); None where its source does not parse
    here (a later Python's syntax may: the caller cannot say what it imports)."""
    tree = _parsed(source)
    if tree is None:
        return None
    package_of = module if package else module[:-1]
    seen = _Seen(nodes=nodes)
    try:
        asked = frozenset(name for name in requested if name.startswith((ASK, CHANGED)))
        requested = requested - asked  # a finder's methods asked for a name, the rest called
        nodes_run = _executed(tree, requested, _EXEC * len(source), seen, asked)
        found = imports_named(nodes_run, module, package_of, requested)
    except _Unknown:
        return None
    except _TooMany:
        return Imports([], [], f"past the {NODES:,} syntax nodes k3diff walks", walked=seen.walked)
    return _with_seen(found, seen, frozenset(seen.methods))


def _with_seen(found: Imports, seen: _Seen, methods: frozenset[str]) -> Imports:
    """What code imports, with what its walk saw: `methods`, the attributes it reads, the nodes
    walked, a finder put on `sys.meta_path`, a decorator rebound (any module)."""
    attributes, unknown = frozenset(seen.attributes), found.unknown or seen.rebound
    return replace(found, unknown=unknown, methods=methods, attributes=attributes,
                   walked=seen.walked, finders=seen.finders)  # fmt: skip


def _parsed(source: str | bytes) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@dataclass
class _Seen:
    """What `_executed` saw run: the methods of the classes whose statements ran, the
    attributes read, the nodes walked, of `nodes` at most (`_TooMany` past them)."""

    methods: set[str] = field(default_factory=set)
    attributes: set[str] = field(default_factory=set)
    walked: int = 0
    nodes: int = NODES
    finders: bool = False
    rebound: str = ""


def _executed(
    tree: ast.Module,
    requested: frozenset[str],
    left: int,
    seen: _Seen,
    asked: frozenset[str] = frozenset(),
) -> Iterator[ast.AST]:
    """The nodes importing the module runs: all but function bodies, and those of the module's
    own functions its code names (calls, decorates with, hands on as a callback: `atexit.register
    (f)`, `map(f, x)`) or others call (`requested`), a class's dunder methods where code names
    the class (`Hook()` runs `__init__`, `with Ctx():` `__enter__`), and where its statement has
    a base or a keyword (a metaclass calls them: `enum.Enum`'s `_generate_next_value_`, members'
    `__init__`), its sunder ones too (`_missing_`), a module-level `__getattr__`
    (a `from` import or an attribute of the module may call it), and the code of a literal string
    it `exec`s or `eval`s (coverage's `.pth`), `left` characters of them in all (`_Unknown` past
    it), each walked once, when the rest is; and the bodies of its finders' methods asked for
    each name of `asked` (`finders.bound_bodies`)."""
    functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    classes: dict[str, set[str]] = {}  # a class's dunder methods, by the class's name
    top = {node.name for node in tree.body if isinstance(node, _FUNCTIONS)}
    called: set[str] = {*requested, *(top & {"__getattr__"})}
    every = EVERY in requested  # every function of it called (`from a import *`, then `f()`)
    decorators = _Decorated(tree)  # what each decorator may call, read where one is
    rebinds, spaces = Rebinding(tree), Spaces()  # a decorator rebound, a namespace read whole
    finding = bound_bodies(tree, asked)  # its finders' methods, asked for each name
    ready = list(called)  # names called whose definitions are yet to be looked up: each once,
    stack: list[ast.AST] = [*reversed(finding), tree]  # not every name each round (a chain of
    while stack:  # 40,000 functions each calling the next took 14 s)
        node = stack.pop()
        seen.walked += 1
        if seen.walked > seen.nodes:
            raise _TooMany
        yield node
        if isinstance(node, _FUNCTIONS):
            functions.setdefault(node.name, []).append(node)
            run = every or node.name in called or decorators.may_call(node.decorator_list)
            ready += [node.name] if run else []
            arguments = node.args
            stack += [*node.decorator_list, *arguments.defaults]
            stack += [default for default in arguments.kw_defaults if default is not None]
        else:
            name = _loaded(node)
            meta_path = isinstance(node, ast.Attribute) and node.attr == _META_PATH
            if not seen.rebound and (rebound := rebinds.of(node) or spaces.of(node)):
                seen.rebound = f"{rebound} at line {getattr(node, 'lineno', 0)}"
            seen.finders = seen.finders or meta_path or name == _META_PATH
            if name is not None:
                ready += [] if name in called else [name]
                called.add(name)
                seen.attributes.update([] if isinstance(node, ast.Name) else [name])
            if isinstance(node, ast.ClassDef):
                methods = {f.name for f in node.body if isinstance(f, _FUNCTIONS)}
                seen.methods.update(methods)
                classes.setdefault(node.name, set()).update(filter(special, methods))
                made = every or node.name in called or bool(node.bases or node.keywords)
                made = made or decorators.may_call(node.decorator_list)
                ready += [node.name] if made else []
            elif isinstance(node, ast.Call) and (code := _executes(node)) is not None:
                left -= len(code)
                if left < 0:
                    raise _Unknown
                stack += [parsed] if (parsed := _parsed(code)) is not None else []
            stack += reversed([*ast.iter_child_nodes(node)])  # popped in source order
        while not stack and ready:  # then the bodies of functions named, defined where it ran
            name = ready.pop()
            dunders = classes.pop(name, set()) - called
            called.update(dunders)
            ready += dunders
            stack += [statement for f in functions.pop(name, []) for statement in f.body]


@dataclass
class _Decorated:
    """The module's decorators, its names read (`Decorators.of`) where the first is met."""

    tree: ast.Module
    read: Decorators | None = None

    def may_call(self, decorators: list[ast.expr]) -> bool:
        """Whether one of `decorators` may call what it decorates (`decorators.Decorators`)."""
        if not decorators:
            return False
        self.read = self.read or Decorators.of(self.tree)
        return self.read.may_call(decorators)


def _loaded(node: ast.AST) -> str | None:
    """The name code uses (`f`, and `install` in `Hook.install` or `self.install`: k3diff does
    not tell objects apart, so a method so named of any class of the module runs)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr if isinstance(node.ctx, ast.Load) else None
    found = attribute(node)  # `getattr(self, 'install')`, `globals()['install']`
    return namespace_key(node) if found is None else found[1]


class _Unknown(Exception):
    """Code whose `exec`ed strings nest past what k3diff parses: what it imports is unknown."""


class _TooMany(Exception):
    """Code of more syntax nodes than k3diff walks."""


def _executes(call: ast.Call) -> str | bytes | None:
    """The literal string `exec('...')` or `eval('...')` runs as code."""
    if called_name(call.func) not in ("exec", "eval") or not call.args:
        return None
    code = literal(call.args[0])
    return code if isinstance(code, (str, bytes)) else None
