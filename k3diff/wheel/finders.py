"""A meta path finder a hook puts on `sys.meta_path` runs at every start: the import system
asks it (`find_spec(name, path, target)`, `find_module(name, path)` before Python 3.12) for each
module imported after, where no finder before it found the module. hooks73: a kept hook
inserting a finder whose `find_spec` imported `demo_inner` passed `wheels` (exit 0) while a
venv's `python -c pass` ran it.

The names asked at start, `asked_at_start`: `ASKED` (`site` imports `sitecustomize` and
`usercustomize`; `os.path.expanduser` imports `pwd` where `HOME` is unset; Python 3.13 imports
`linecache` for `-c`: `python -c pass` with a finder that logs, 3.8 to 3.13; `runpy` for `-m`),
and every module
the code k3diff follows at start names (more, never less: one already imported is not asked).
`distutils` is not among them, so setuptools' finder does not import `setuptools._distutils`
at start (`python -X importtime -c pass` in a venv with setuptools imports neither).

`bound_bodies` gives the body of each finder method (a method of the name, of a class whose
statement runs, taking the arguments the import system passes) once for each name asked, the
name written in place of its argument, so that what the body computes of it is certain (`fold`):
setuptools' `getattr(self, 'spec_for_{fullname}'.format(**locals()))` names
`spec_for_sitecustomize`, no method; an editable install's `if fullname in MAPPING:` is false
for `sitecustomize` where `MAPPING` is a constant of the module (`module_constants`) no other
piece of the code followed may change (`hookwords`: the requests `=MAPPING`, `=*`), and the
branch is not followed. The loader methods of the module's classes (`LOADERS`) are followed as
written: a finder may return a spec of one (`ModuleSpec(name, Loader())`). What stays unknown is followed as written (a computed name: any
module). Past `MOST_ASKED` names, or `_LARGEST` nodes of a method, the body is followed once as
written."""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Iterable, Iterator, Mapping

from k3diff.wheel.computednames import getattr_args
from k3diff.wheel.fold import UNKNOWN, folded
from k3diff.wheel.hookwords import ANY, CHANGED

ASK = "?"
"""What starts a request of a module's finder methods for a name (`?sitecustomize`): no
function's name does."""
ASKED = ("sitecustomize", "usercustomize", "pwd", "linecache", "runpy")
"""The modules every start imports after the `.pth` files, where no finder found them before
(`runpy` for `python -m`)."""
METHODS = {"find_spec": 3, "find_module": 2}
"""A finder's methods the import system calls, and the arguments it passes them."""
MOST_ASKED = 32
"""Names a finder method is read for, each (past them, its body is followed as written)."""
_COPIED = 1 << 15
"""Syntax nodes of finder methods read once for each name, in all (past them, each method is
followed as written): 32 names of 1,024 nodes."""
_FOLDED = 24
"""Nodes an expression of a finder method folds at most (setuptools' `'spec_for_{fullname}'.
format(**locals())` is 7): each expression is tried, and a larger one stays as written."""
_MUTABLE = (list, dict, set)
_WORD = re.compile(r"\w+")
"""A word of a string of the module: a name it may take its global by (`resolve_name`, passed,
exit 0, while a venv ran the branch), a list, dict or set so named not read as constant."""
_BINDERS = frozenset({"staticmethod", "classmethod"})
LOADERS = frozenset({"create_module", "exec_module", "load_module"})
"""A loader's methods the import system calls with what a finder returns (its spec's loader),
followed as written where a finder is (`ModuleSpec(name, Loader())`)."""
_OPAQUE = frozenset({"exec", "eval", "globals", "vars", "locals", "__dict__", "__globals__",
                     "f_globals", "f_locals"})  # fmt: skip
"""What may rebind a module's names unseen (`globals()['MAPPING'] = ...`; review74c:
`sys._getframe().f_globals['MAPPING'][k] = v`, a function's `__globals__`, passed, exit 0,
while a venv ran the branch)."""


def asked_at_start(modules: Iterable[tuple[str, ...]]) -> frozenset[str]:
    """The requests of the finder methods for the names asked at start: `ASKED`, and each of
    `modules` (those the code followed at start names)."""
    return frozenset(ASK + name for name in (*ASKED, *(".".join(m) for m in modules)))


def finder_requests(methods: frozenset[str], asked: frozenset[str]) -> frozenset[str]:
    """What a module whose classes define `methods` is requested where a finder is installed:
    its finder methods asked for each name of `asked`, its loaders' methods called."""
    return (asked if methods & METHODS.keys() else frozenset()) | (methods & LOADERS)


def bound_bodies(tree: ast.Module, requests: frozenset[str]) -> list[ast.stmt]:
    """The statements each finder method of `tree` runs when asked for each name of the
    `requests` (`?sitecustomize`), its globals other code may change (`=MAPPING`, `=*`:
    `hookwords`) not read as constants."""
    asked = frozenset(request for request in requests if request.startswith(ASK))
    if not asked:
        return []
    changed = {request[1:] for request in requests if request.startswith(CHANGED)}
    constants = {} if ANY in changed else module_constants(tree)
    constants = {name: value for name, value in constants.items() if name not in changed}
    rebound = {name for node in ast.walk(tree) for name in _binds(node)}
    found: list[ast.stmt] = []
    left = _COPIED
    for function, argument in _finder_methods(tree, rebound):
        left -= len(asked) * sum(1 for _ in ast.walk(function))
        if argument is None or len(asked) > MOST_ASKED or left < 0:
            found += function.body
            continue
        for name in sorted(asked):
            found += _bound(function, argument, name.removeprefix(ASK), constants)
    return found


def _finder_methods(
    tree: ast.Module, rebound: set[str]
) -> Iterator[tuple[ast.FunctionDef, str | None]]:
    """Each method of a class of `tree` the import system calls, and the name of its argument
    the module's name is given to (None where a decorator other than `staticmethod` or
    `classmethod`, or one of those rebound in the module, may change it: its body is followed
    as written); one that cannot take the arguments is never called."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for function in node.body:
            passed = METHODS.get(getattr(function, "name", ""))
            if passed is None or not isinstance(function, ast.FunctionDef):
                continue
            decorators = [getattr(d, "id", None) for d in function.decorator_list]
            if len(decorators) > 1 or not {*decorators} <= _BINDERS - rebound:
                yield function, None
                continue
            arguments = function.args
            skipped = 0 if decorators == ["staticmethod"] else 1
            positional = [*arguments.posonlyargs, *arguments.args][skipped:]
            required = len(positional) - len(arguments.defaults)
            takes = len(positional) >= passed or arguments.vararg is not None
            if takes and required <= passed:  # `find_spec(self, *args)`: as written
                yield function, positional[0].arg if positional else None


def _bound(
    function: ast.FunctionDef, argument: str, name: str, constants: Mapping[str, object]
) -> list[ast.stmt]:
    """`function`'s body with `name` for its `argument`, and what is certain of it folded: the
    module's constants it binds no local of, and its locals assigned once, in its own scope."""
    counts: dict[str, int] = {}
    assignments = []
    for node in _own_nodes([function.args, *function.body]):
        for bound in _binds(node, stored=False):
            counts[bound] = counts.get(bound, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            assignments.append(node)
    if counts.get(argument, 0) > 1:  # the body rebinds the name asked: as written
        return function.body
    names = {key: value for key, value in constants.items() if key not in counts}
    names[argument] = name
    once = {bound for bound, count in counts.items() if count == 1} - {argument}
    for assignment in assignments:
        value = folded(assignment.value, {**names, "locals": dict(names)})
        _assign(assignment.targets[0], value, once, names)
    body = [copy.deepcopy(statement) for statement in function.body]
    names["locals"] = {key: value for key, value in names.items() if key in once | {argument}}
    _Folding(names).visit(ast.Module(body=body, type_ignores=[]))
    return body


def _own_nodes(nodes: list[ast.AST]) -> Iterator[ast.AST]:
    """The nodes of a function's own scope: not the bodies of the functions, lambdas and
    classes it defines (their decorators and defaults are)."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack += [*node.decorator_list, *node.args.defaults]
            stack += [d for d in node.args.kw_defaults if d is not None]
        elif isinstance(node, ast.Lambda):
            stack += [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
        elif isinstance(node, ast.ClassDef):
            stack += [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
        else:
            stack += reversed(list(ast.iter_child_nodes(node)))


def _assign(target: ast.expr, value: object, once: set[str], names: dict[str, object]) -> None:
    """Know the value of a name assigned once (or each of a tuple unpacked)."""
    if value is UNKNOWN:
        return
    if isinstance(target, ast.Name) and target.id in once:
        names[target.id] = value
    elif isinstance(target, ast.Tuple) and isinstance(value, (tuple, list)):
        for element, part in zip(target.elts, value, strict=len(target.elts) == len(value)):
            _assign(element, part, once, names)


class _Folding(ast.NodeTransformer):
    """Folds each expression whose value is certain into a constant, and takes the branch of
    an `if` whose test is."""

    def __init__(self, names: Mapping[str, object]) -> None:
        self.names = names

    def visit_If(self, node: ast.If) -> ast.AST | list[ast.stmt]:
        test = folded(node.test, self.names, _FOLDED)
        if test is UNKNOWN or isinstance(test, (*_MUTABLE, tuple)):
            return self.generic_visit(node)
        taken = node.body if test else node.orelse
        return [visited for s in taken for visited in _statements(self.visit(s))]

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # a scope of its own: its names may be other than the method's

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if not isinstance(node.ctx, ast.Load):
            return node
        return self._constant(node) or node

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.expr) and not isinstance(node, ast.Name):
            found = self._constant(node)
            if found is not None:
                return found
        return super().generic_visit(node)

    def _constant(self, node: ast.expr) -> ast.Constant | None:
        value = folded(node, self.names, _FOLDED)
        if value is UNKNOWN or not isinstance(value, (str, bytes, int, bool, type(None))):
            return None
        return ast.copy_location(ast.Constant(value), node)


def _statements(visited: ast.AST | list[ast.stmt] | None) -> list[ast.stmt]:
    if visited is None:
        return []
    return visited if isinstance(visited, list) else [visited]  # type: ignore[list-item]


def _binds(node: ast.AST, stored: bool = True) -> Iterator[str]:
    """The names `node` binds (a store, a `del`, an import, a `def`, a `global`, ...; and
    where `stored`, of a module's names, an attribute or a key stored of the name)."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        yield node.id
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        yield from (a.asname or a.name.partition(".")[0] for a in node.names)
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        yield from node.names
    elif isinstance(node, ast.arg):
        yield node.arg
    elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
        yield node.name
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest
    elif (
        stored
        and isinstance(node, (ast.Attribute, ast.Subscript))
        and not isinstance(node.ctx, ast.Load)
    ):
        yield _stored_name(node)


def _stored_name(node: ast.Attribute | ast.Subscript) -> str:
    """The name an attribute or a key stored may rebind (`m.MAPPING = x`, `g['MAPPING'] = x`),
    the mark of a name computed (`*`) where the key is no literal."""
    if isinstance(node, ast.Attribute):
        return node.attr
    key = folded(node.slice)
    return key if isinstance(key, str) else "*"


def module_constants(tree: ast.Module) -> dict[str, object]:
    """The names of the module bound once, at its top, to a value certain (`MAPPING = {...}`,
    `_DISTUTILS_PATCH = 'a', 'b'`), rebound nowhere, by no attribute, key nor `setattr` of
    their name, and a list, dict or set never changed (read by `in` and `[...]` alone, spelt
    in no string); none where the module names what may rebind any name unseen (`globals`,
    `exec`, ...) or `setattr`s a name it computes."""
    counts: dict[str, int] = {}
    changed: set[str] = set()
    for node in ast.walk(tree):
        named = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if named in _OPAQUE:
            return {}
        for bound in _binds(node):
            counts[bound] = counts.get(bound, 0) + 1
        args = _named_by(node)
        if args is not None:  # `setattr(m, 'MAPPING', v)`, `getattr(m, 'MAPPING')[k] = v`
            key = folded(args[1]) if len(args) > 1 else UNKNOWN
            if not isinstance(key, str):
                return {}
            counts[key] = counts.get(key, 0) + 1
        changed.update(_used_otherwise(node))
        if isinstance(node, ast.Constant) and isinstance(node.value, str):  # review74c: the
            changed.update(_WORD.findall(node.value))  # `pkgutil.resolve_name('m:MAPPING')`
    if "*" in counts:
        return {}
    found: dict[str, object] = {}
    for statement in tree.body:
        target = statement.targets[0] if isinstance(statement, ast.Assign) else None
        target = statement.target if isinstance(statement, ast.AnnAssign) else target
        value = getattr(statement, "value", None)
        if not isinstance(target, ast.Name) or value is None or counts.get(target.id) != 1:
            continue
        if isinstance(statement, ast.Assign) and len(statement.targets) != 1:
            continue
        known = folded(value, found)
        mutable = isinstance(known, _MUTABLE)
        if known is not UNKNOWN and (not mutable or target.id not in changed) and _frozen(known):
            found[target.id] = known
    return found


def _named_by(node: ast.AST) -> list[ast.expr] | None:
    """The object and name arguments of a call that sets or takes an attribute by a name
    (`setattr`, `getattr`, `inspect.getattr_static`, `object.__getattribute__`: review74c, the
    module's constant changed through one of these passed, exit 0, while a venv ran its branch)."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr":
        return node.args
    return getattr_args(node)


def _frozen(value: object, top: bool = True) -> bool:
    """Whether nothing but a change of `value` itself may change it: what it holds is
    immutable (a dict of strings; not one of lists, which an alias of a value may change)."""
    if isinstance(value, dict):
        return top and all(_frozen(part, False) for item in value.items() for part in item)
    if isinstance(value, (list, set)):
        return top and all(_frozen(part, False) for part in value)
    if isinstance(value, (tuple, frozenset)):
        return all(_frozen(part, False) for part in value)
    return isinstance(value, (str, bytes, int, float, complex, bool, type(None)))


def _used_otherwise(node: ast.AST) -> Iterator[str]:
    """The names `node` uses otherwise than by `in`, `==` or a key read: it may change their
    value (`MAPPING.update(...)`, `f(MAPPING)`, `x = MAPPING`, `MAPPING[k] = v`, and so of an
    attribute of the name: `sys.modules[__name__].MAPPING[k] = v`)."""
    if isinstance(node, ast.Compare):
        return
    if isinstance(node, ast.Subscript):
        if not isinstance(node.ctx, ast.Load):
            yield from _named(node.value)
        return
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Name, ast.Attribute)) and isinstance(child.ctx, ast.Load):
            yield from _named(child)


def _named(node: ast.expr) -> Iterator[str]:
    """The name `node` reads: a name's, or an attribute's, which may be the module's own
    (review73f: `sys.modules[__name__].MAPPING['sitecustomize'] = 1` then `fullname in
    MAPPING` in the finder passed, exit 0, while a venv's `python -c pass` ran its branch)."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
