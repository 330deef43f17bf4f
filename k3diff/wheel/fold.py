"""The value of an expression whose value is certain without running the code, as Python would
compute it: literals, and strings joined of them (`'demo' + '_inner'`, `f'demo_{"inner"}'`,
`'.'.join(['demo', 'inner'])`, `'spec_for_{}'.format('pip')`), `in` and `==` of such values,
`and`, `or`, `not` (hooks73: each was read as computed, so a hook using one reached every module
of the wheel). Names stand for what `names` gives them (a module's `__name__`, a finder's
argument, `finders`) and nothing else. Any doubt stays unknown (`UNKNOWN`): a format field
with a conversion, a spec or an attribute (`'{0:>99999999}'`), a string past `LONGEST`
characters (a chain of `x = x + x` doubles it each line), a name `names` lacks."""

from __future__ import annotations

import ast
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass

UNKNOWN = object()
"""What `folded` gives where the value is not certain."""
LONGEST = 4096
"""Characters of a string folded at most (a longer one is unknown)."""
MOST = 4096
"""Nodes `folded` folds at most (past them, the value is unknown)."""
_LOCALS = "locals"
_METHODS = frozenset({"partition", "rpartition", "split", "rsplit", "startswith", "endswith",
                      "strip", "lstrip", "rstrip", "lower", "upper", "isidentifier"})  # fmt: skip
"""A string's methods whose result is no longer than the string (`fullname.rpartition('.')`)."""
_SCALARS = (str, bytes, int, float, complex, bool, type(None))


def folded(node: ast.AST, names: Mapping[str, object] | None = None, most: int = MOST) -> object:
    """The value of `node`, `UNKNOWN` where it is not certain or takes more than `most` nodes
    folded (`names`: the values of the names it may use, and, under `locals`, those
    `**locals()` gives)."""
    try:
        return _fold(node, _Scope(names or {}, most))
    except (RecursionError, MemoryError, _Spent):
        return UNKNOWN


@dataclass
class _Scope:
    """The names known, and the nodes left to fold."""

    names: Mapping[str, object]
    left: int


class _Spent(Exception):
    """More nodes than `folded` was given."""


def _fold(node: ast.AST, scope: _Scope) -> object:
    scope.left -= 1
    if scope.left < 0:
        raise _Spent
    names = scope.names
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id, UNKNOWN) if node.id != _LOCALS else UNKNOWN
    folder = _FOLDERS.get(type(node))
    if folder is not None:
        return folder(node, scope)
    try:
        return ast.literal_eval(node)  # a tuple, list, set or dict display of literals
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return UNKNOWN


def _joined(node: ast.AST, scope: _Scope) -> object:
    assert isinstance(node, ast.JoinedStr)
    parts = []
    for part in node.values:
        if isinstance(part, ast.FormattedValue):
            if part.conversion != -1 or part.format_spec is not None:
                return UNKNOWN
            part = part.value
        value = _fold(part, scope)
        if not isinstance(value, str):
            return UNKNOWN
        parts.append(value)
    return _short("".join(parts))


def _added(node: ast.AST, scope: _Scope) -> object:
    assert isinstance(node, ast.BinOp)
    if not isinstance(node.op, ast.Add):
        return UNKNOWN
    left, right = _fold(node.left, scope), _fold(node.right, scope)
    if isinstance(left, str) and isinstance(right, str):
        return _short(left + right)
    if isinstance(left, bytes) and isinstance(right, bytes):
        return _short(left + right)
    return UNKNOWN


def _called(node: ast.AST, scope: _Scope) -> object:
    """`'...'.format(...)`, `'sep'.join([...])` and `_METHODS` of a string certain."""
    assert isinstance(node, ast.Call)
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in ("format", "join", *_METHODS):
        return UNKNOWN
    text = _fold(func.value, scope)
    if not isinstance(text, str):
        return UNKNOWN
    if func.attr in _METHODS:
        args = [_fold(arg, scope) for arg in node.args]
        if node.keywords or not all(isinstance(a, (str, int, tuple)) for a in args):
            return UNKNOWN
        try:
            return getattr(text, func.attr)(*args)
        except (TypeError, ValueError):
            return UNKNOWN
    if func.attr == "join":
        if len(node.args) != 1 or node.keywords:
            return UNKNOWN
        items = node.args[0]
        if not isinstance(items, (ast.List, ast.Tuple)):
            return UNKNOWN
        values = [_fold(item, scope) for item in items.elts]
        fine = all(isinstance(value, str) for value in values)
        return _short(text.join(map(str, values))) if fine else UNKNOWN
    return _formatted(text, node, scope)


def _formatted(text: str, node: ast.Call, scope: _Scope) -> object:
    """`text.format(...)`, where each field names an argument alone (`{}`, `{0}`, `{name}`)."""
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return UNKNOWN
    for _, field_name, spec, conversion in fields:
        if field_name is None:
            continue
        if (
            spec
            or conversion
            or not (field_name == "" or field_name.isdigit() or field_name.isidentifier())
        ):
            return UNKNOWN
    args = [_fold(arg, scope) for arg in node.args]
    keywords: dict[str, object] = {}
    for keyword in node.keywords:
        if keyword.arg is not None:
            keywords[keyword.arg] = _fold(keyword.value, scope)
            continue
        value = keyword.value  # `**locals()`: the names the finder's reading knows
        local = scope.names.get(_LOCALS)
        if not (_is_locals(value) and isinstance(local, dict)):
            return UNKNOWN
        keywords.update(local)
    if not all(isinstance(v, (str, int)) for v in [*args, *keywords.values()]):
        return UNKNOWN
    try:
        return _short(text.format(*args, **keywords))
    except (KeyError, IndexError, ValueError, AttributeError, TypeError):
        return UNKNOWN


def _is_locals(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == _LOCALS
        and not node.args
        and not node.keywords
    )


def _compared(node: ast.AST, scope: _Scope) -> object:
    assert isinstance(node, ast.Compare)
    if len(node.ops) != 1:
        return UNKNOWN
    left, right = _fold(node.left, scope), _fold(node.comparators[0], scope)
    if left is UNKNOWN or right is UNKNOWN or not isinstance(left, _SCALARS):
        return UNKNOWN
    op = node.ops[0]
    if isinstance(op, (ast.In, ast.NotIn)):
        if not isinstance(right, (str, bytes, tuple, list, set, frozenset, dict)):
            return UNKNOWN
        try:
            found = left in right
        except TypeError:
            return UNKNOWN
        return found if isinstance(op, ast.In) else not found
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, _SCALARS):
        return (left == right) == isinstance(op, ast.Eq)
    return UNKNOWN


def _boolean(node: ast.AST, scope: _Scope) -> object:
    assert isinstance(node, ast.BoolOp)
    value: object = UNKNOWN
    for part in node.values:
        value = _fold(part, scope)
        if value is UNKNOWN or not isinstance(value, _SCALARS):
            return UNKNOWN
        if bool(value) != isinstance(node.op, ast.And):
            return value  # `and` stops at a false value, `or` at a true one
    return value


def _negated(node: ast.AST, scope: _Scope) -> object:
    assert isinstance(node, ast.UnaryOp)
    if not isinstance(node.op, ast.Not):
        try:
            return ast.literal_eval(node)  # `-1`
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return UNKNOWN
    value = _fold(node.operand, scope)
    return UNKNOWN if value is UNKNOWN or not isinstance(value, _SCALARS) else not value


def _short(value: str | bytes) -> object:
    return value if len(value) <= LONGEST else UNKNOWN


_FOLDERS: dict[type, Callable[[ast.AST, _Scope], object]] = {
    ast.JoinedStr: _joined,
    ast.BinOp: _added,
    ast.Call: _called,
    ast.Compare: _compared,
    ast.BoolOp: _boolean,
    ast.UnaryOp: _negated,
}
