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
from k3diff.wheel.fold import folded

_NOT_CALLING = frozenset({
    "builtins.classmethod", "builtins.staticmethod", "builtins.property",
    "abc.abstractmethod", "functools.cache", "functools.lru_cache", "functools.cached_property",
    "contextlib.contextmanager", "contextlib.asynccontextmanager",
    "typing.overload", "typing.final", "typing_extensions.overload", "typing_extensions.final",
})  # fmt: skip
"""The decorators that return what they decorate, or an object around it, and call it later
at most (a method, a context, a cache), by the names their modules give them."""
_FACTORIES = frozenset({"functools.wraps", "functools.lru_cache"})
"""The functions whose result is a decorator that calls nothing it decorates."""
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
        if isinstance(decorator, ast.Call):
            return self._qualified(decorator.func) in _FACTORIES
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


def rebinding(node: ast.AST) -> str:
    """How code that runs rebinds, where another module may use it, a decorator `_NOT_CALLING`
    holds (`builtins.classmethod = run`, `setattr(functools, 'wraps', run)`, `vars(builtins)[
    'staticmethod'] = run`, `sys.modules['functools'] = x`): then any decorator may call what
    it decorates, and the code may import any module (hooks73); empty where it does not."""
    name: object = None
    if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
        name = node.attr if _owner(node.value) else None
    elif isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
        space = node.value.func if isinstance(node.value, ast.Call) else node.value
        spaced = getattr(space, "id", getattr(space, "attr", None)) in _SPACES
        name = folded(node.slice) if spaced else None
    elif isinstance(node, ast.Call) and called_name(node.func) == "setattr" and node.args[1:]:
        name = folded(node.args[1]) if _owner(node.args[0]) else None
    if not isinstance(name, str) or name not in _REBOUND:
        return ""
    return f"a decorator k3diff reads as calling nothing rebound (`{name}`)"


def _owner(node: ast.expr) -> bool:
    """Whether `node` may be a module holding a decorator of `_NOT_CALLING` (by its name)."""
    return getattr(node, "id", None) in _REBOUND
