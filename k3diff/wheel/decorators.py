"""Whether a decorator may call what it decorates where its `def` or `class` statement runs:
`hookimports` then follows the function's body (or the class's dunder methods) as code that
runs, named or not (hooks73: `@(lambda f: f())` over `def _go(): import demo_inner`, a `run` of
the module doing `f()`, a registry a loop then calls, `@atexit.register` at exit, and a class
decorator calling the class each passed, exit 0, while a venv's `python -c pass` ran the
module).

A decorator is read as never calling its argument only where k3diff shows it (fail safe: any
other may call it):

- one of `_NOT_CALLING` (`classmethod`, `staticmethod`, `property`, `functools.wraps(f)`,
  `contextlib.contextmanager`, ...), by the name an import binds it to (or a builtin's own), no
  other binding of that name in the module and no attribute of that name assigned in it
  (`builtins.classmethod = run`);
- a lambda that returns its argument (`lambda f: f`);
- an undecorated function of the module, its only binding, whose body but marks its argument
  (`f.marked = True`) and returns it: no call, no other use of it.

Not shown, so calling: one of another module (`from demo_deco import run`), a decorator
factory's result but `_NOT_CALLING`'s (`@run(1)`), a wrapper (`functools.partial(...)`), and
every decorator of a module that names `exec`, `eval`, `globals`, `vars`, `locals` or
`__dict__` (its code may rebind any name). Code that runs rebinding one of them where other
modules see it (`builtins.classmethod = run`, `sys.modules['functools'] = x`: `rebinding`) may
import any module.
The real hooks decorate their finders' methods with `classmethod` and `staticmethod` alone
(`tests/wheel/test_pth_real_hooks.py`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from k3diff.wheel.computednames import called_name
from k3diff.wheel.fold import UNKNOWN, folded

_NOT_CALLING = frozenset({
    "builtins.classmethod", "builtins.staticmethod", "builtins.property",
    "abc.abstractmethod", "functools.cache", "functools.lru_cache", "functools.cached_property",
    "contextlib.contextmanager", "contextlib.asynccontextmanager",
    "typing.overload", "typing.final", "typing_extensions.overload", "typing_extensions.final",
})  # fmt: skip
"""The decorators that return what they decorate, or an object around it, and call it later
at most (a method, a context, a cache), by the names their modules give them."""
_FACTORIES = frozenset({"functools.wraps", "functools.lru_cache"})
"""The functions whose result is a decorator that calls nothing it decorates: `lru_cache`'s
where its arguments are literals (review73f: `@functools.lru_cache(run)` is `run`, cached, and
it passed, exit 0, while a venv's `python -c pass` ran the body `run` called)."""
_REBOUND = frozenset(
    {"__builtins__", *(part for known in _NOT_CALLING | _FACTORIES for part in known.split("."))}
)
"""The names whose rebinding may make such a decorator call: each decorator's, and its
module's (`sys.modules['functools'] = x`); an attribute or `setattr` of a module so named."""
_SPACES = frozenset({"vars", "globals", "__dict__", "modules", "__builtins__"})
"""The namespaces a key stored in may rebind a module's name (`vars(builtins)['cache']`)."""
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_REBINDING = frozenset({"exec", "eval", "compile", "globals", "vars", "locals", "__builtins__",
                        "__dict__", "__setattr__", "__setitem__", "update", "setdefault"})  # fmt: skip
"""What may rebind any name of a namespace (`exec('classmethod = run')`, `globals().update(
...)`): where code names one, no decorator is shown not to call."""


@dataclass
class Decorators:
    """What the names of a module mean to its decorators: the functions each names (by every
    `def`), every other binding of a name, and the names imports bind to a module's name."""

    defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = field(default_factory=dict)
    bound: set[str] = field(default_factory=set)
    """Names bound otherwise than by a `def` or an import (or by both, or by two imports),
    and attributes assigned (`x.classmethod = ...`, `setattr(x, 'classmethod', ...)`)."""
    imported: dict[str, str] = field(default_factory=dict)
    opaque: bool = False
    """The module `exec`s or `eval`s code: any name may be rebound."""

    @classmethod
    def of(cls, tree: ast.AST) -> Decorators:
        """The names of the module `tree` is, read once (every node)."""
        found = cls()
        for node in ast.walk(tree):
            found._read(node)
        return found

    def may_call(self, decorators: list[ast.expr]) -> bool:
        """Whether one of `decorators` may call what they decorate, where it is defined."""
        return any(not self._never_calls(decorator) for decorator in decorators)

    def _read(self, node: ast.AST) -> None:
        if isinstance(node, _FUNCTIONS):
            self.defs.setdefault(node.name, []).append(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                self._import(node, alias)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            self.bound.add(node.id)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            self.bound.add(node.attr)
        elif isinstance(node, (ast.ClassDef, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
            self.bound.update(filter(None, [getattr(node, "name", None)]))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            self.bound.update(node.names)
        elif isinstance(node, ast.arg):
            self.bound.add(node.arg)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            self.bound.add(node.rest)
        elif isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            key = node.slice  # `globals()['classmethod'] = run`, `sys.modules['functools'] = x`
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                self.bound.add(key.value.partition(".")[0])
        named = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if named in _REBINDING:
            self.opaque = True
        elif isinstance(node, ast.Call) and called_name(node.func) == "setattr" and node.args[1:]:
            self._setattr(node.args[1])

    def _setattr(self, name: ast.expr) -> None:
        """`setattr(x, 'classmethod', run)` binds `classmethod`; a name computed with a
        literal start no decorator of `_NOT_CALLING` has binds none of them (setuptools'
        `setattr(DistutilsMetaFinder, f'spec_for_{name}', ...)`); any other, any name."""
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            self.bound.add(name.value)
            return
        start = name.left if isinstance(name, ast.BinOp) else name
        if isinstance(start, ast.JoinedStr) and start.values:
            start = start.values[0]
        text = start.value if isinstance(start, ast.Constant) else None
        text = text if isinstance(text, str) else ""
        ends = {known.rpartition(".")[2] for known in _NOT_CALLING}
        self.opaque = self.opaque or not text or any(end.startswith(text) for end in ends)

    def _import(self, node: ast.Import | ast.ImportFrom, alias: ast.alias) -> None:
        if isinstance(node, ast.Import):
            name = alias.asname or alias.name.partition(".")[0]
            target = alias.name if alias.asname else name
        else:
            name, target = alias.asname or alias.name, f"{node.module}.{alias.name}"
            target = target if node.module and not node.level else ""
        if self.imported.setdefault(name, target) != target or not target:
            self.bound.add(name)

    def _never_calls(self, decorator: ast.expr) -> bool:
        if self.opaque:
            return False
        if isinstance(decorator, ast.Lambda):
            return _returns_its_argument(decorator.args, [decorator.body])
        if isinstance(decorator, ast.Call):  # `lru_cache(run)` is `run` cached: it calls
            factory = self._qualified(decorator.func)
            values = [*decorator.args, *(keyword.value for keyword in decorator.keywords)]
            literal = all(isinstance(value, ast.Constant) for value in values)
            return factory in _FACTORIES and (literal or factory == "functools.wraps")
        if isinstance(decorator, ast.Name) and decorator.id not in self.imported:
            defs = self.defs.get(decorator.id, [])
            if decorator.id in self.bound or len(defs) > 1:
                return False
            if defs:
                (function,) = defs
                body = function.body
                return not function.decorator_list and _returns_its_argument(function.args, body)
        return self._qualified(decorator) in _NOT_CALLING

    def _qualified(self, node: ast.expr) -> str | None:
        """The name of the function `node` is, by the import that binds its head (a builtin's
        where none does), None where something else binds it or an attribute of its name is
        assigned."""
        attributes = []
        while isinstance(node, ast.Attribute):
            attributes.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.bound or node.id in self.defs:
            return None
        if any(attribute in self.bound for attribute in attributes):
            return None
        head = self.imported.get(node.id, f"builtins.{node.id}")
        return ".".join([head, *reversed(attributes)])


def _returns_its_argument(arguments: ast.arguments, body: list[ast.stmt] | list[ast.expr]) -> bool:
    """Whether a function's `body` but marks its first argument (`f.marked = True`, a literal)
    and returns it (or returns nothing, or is a lambda's `f`): it calls no code at all."""
    positional = [*arguments.posonlyargs, *arguments.args]
    if not positional:
        return False
    name = positional[0].arg
    for statement in body:
        if isinstance(statement, ast.expr):  # a lambda's body
            if not (isinstance(statement, ast.Name) and statement.id == name):
                return False
        elif isinstance(statement, ast.Return):
            value = statement.value
            if value is not None and not (isinstance(value, ast.Name) and value.id == name):
                return False
        elif isinstance(statement, ast.Assign):
            if not isinstance(statement.value, ast.Constant):
                return False
            for target in statement.targets:
                if not (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == name
                ):
                    return False
        elif not isinstance(statement, ast.Pass) and not (
            isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
        ):
            return False
    return True


@dataclass
class Rebinding:
    """Where code of a module rebinds, where another module may use it, a decorator
    `_NOT_CALLING` holds (`builtins.classmethod = run`, `setattr(functools, 'wraps', run)`,
    `vars(builtins)['staticmethod'] = run`, `sys.modules['functools'] = x`): then any decorator
    may call what it decorates, and the code may import any module (hooks73). The module's
    names that may hold such a module (`import builtins as b`, `b = builtins`: `owners`) are
    read where first needed (review73f: `b.staticmethod = run` after `import builtins as b`,
    `vars(builtins).update(staticmethod=run)` and `setattr(builtins, n + 'method', run)` each
    passed, exit 0, while a venv's `python -c pass` ran the decorated body). Not seen: a module
    handed to a function as its argument (`f(builtins)`)."""

    tree: ast.Module
    owners: frozenset[str] | None = None

    def of(self, node: ast.AST) -> str:
        """How `node` rebinds such a decorator, empty where it does not."""
        name: object = None
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            name = node.attr if self._owner(node.value) else None
        elif isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            name = self._key(node.value, node.slice)
        elif isinstance(node, ast.Call):
            name = self._written(node)
        if name is UNKNOWN:
            return "a decorator k3diff reads as calling nothing may be rebound (a name computed)"
        if not isinstance(name, str) or name not in _REBOUND:
            return ""
        return f"a decorator k3diff reads as calling nothing rebound (`{name}`)"

    def _key(self, space: ast.expr, key: ast.expr | None) -> object:
        """The name a key stored in `space` binds: None where `space` is no namespace, or the key
        is computed where the namespace is no such module's (`sys.modules[fullname] = m`)."""
        if not _space(space):
            return None
        name = folded(key) if key is not None else UNKNOWN
        holder = space.args[0] if isinstance(space, ast.Call) and space.args else space
        holder = holder.value if isinstance(holder, ast.Attribute) else holder  # `b.__dict__`
        owned = getattr(holder, "id", None) == "__builtins__" or self._owner(holder)
        return None if name is UNKNOWN and not owned else name

    def _written(self, node: ast.Call) -> object:
        """The name a call binds of such a module (`setattr(b, name, x)`, `vars(b).update(
        name=x)`, `b.__setattr__(name, x)`), `UNKNOWN` where it is computed, None where none."""
        func, args = node.func, node.args
        if called_name(func) == "setattr" and args[1:] and self._owner(args[0]):
            return folded(args[1])
        if not isinstance(func, ast.Attribute) or func.attr not in _WRITERS:
            return None
        if args[2:] and self._owner(args[0]):  # `object.__setattr__(builtins, name, x)`
            return folded(args[1])
        owner = self._owner(func.value)
        if not (owner or _space(func.value)):
            return None
        if func.attr != "update":
            first = args[0] if args else None
            return (folded(first) if first else None) if owner else self._key(func.value, first)
        keys: list[object] = [keyword.arg or UNKNOWN for keyword in node.keywords]
        for arg in args:
            keys += [folded(k) for k in arg.keys if k] if isinstance(arg, ast.Dict) else [UNKNOWN]
            keys += [UNKNOWN] if isinstance(arg, ast.Dict) and None in arg.keys else []
        return next((key for key in keys if key is UNKNOWN or key in _REBOUND), None)

    def _owner(self, node: ast.expr) -> bool:
        """Whether `node` may be a module holding a decorator of `_NOT_CALLING`."""
        if isinstance(node, ast.Call):  # `__import__('builtins')`, `import_module(...)`
            return called_name(node.func) in _IMPORTERS
        if isinstance(node, ast.Subscript):  # `sys.modules['builtins']`
            return _space(node.value)
        if self.owners is None:
            self.owners = _owners(self.tree)
        return getattr(node, "id", None) in self.owners


_WRITERS = frozenset({"update", "setdefault", "__setitem__", "__setattr__"})
"""The methods of a namespace or a module that bind a name of it (`vars(builtins).update(...)`)."""
_IMPORTERS = frozenset({"__import__", "import_module", "modules"})
"""What gives a module by its name (`__import__('builtins')`, `sys.modules['builtins']`)."""


def _space(node: ast.expr) -> bool:
    """Whether `node` is a namespace a key stored in may rebind a module's name."""
    space = node.func if isinstance(node, ast.Call) else node
    return getattr(space, "id", getattr(space, "attr", None)) in _SPACES


def _owners(tree: ast.Module) -> frozenset[str]:
    """The names of `tree` that may hold a module of `_REBOUND`: its own names, those an import
    binds to one (`import builtins as b`), and those assigned from a value naming one of them
    (`b = builtins`, `b = sys.modules['builtins']`), however many assignments away."""
    found = set(_REBOUND | _IMPORTERS)
    assigned: dict[str, set[str]] = {}  # a name read → the names assigned from it
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = getattr(node, "module", None) or ""
            for alias in node.names:
                heads = {module.partition(".")[0], alias.name.partition(".")[0]}
                if heads & _REBOUND:
                    found.add(alias.asname or alias.name.partition(".")[0])
            continue
        bound = _assigned_from(node)
        if bound is None:
            continue
        targets = [n.id for n in ast.walk(bound[0]) if isinstance(n, ast.Name)]
        for read in ast.walk(bound[1]):
            named = getattr(read, "id", getattr(read, "attr", None))
            if isinstance(named, str):
                assigned.setdefault(named, set()).update(targets)
    stack = list(found)
    while stack:
        for target in assigned.pop(stack.pop(), set()) - found:
            found.add(target)
            stack.append(target)
    return frozenset(found)


def _assigned_from(node: ast.AST) -> tuple[ast.AST, ast.expr] | None:
    """What a statement binds, and the value it binds it to (`b = x`, `for b in x`, `with x as
    b`, `(b := x)`)."""
    if isinstance(node, ast.Assign):
        return ast.Tuple(elts=node.targets, ctx=ast.Store()), node.value
    if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value:
        return node.target, node.value
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return node.target, node.iter
    if isinstance(node, ast.withitem) and node.optional_vars:
        return node.optional_vars, node.context_expr
    return None
