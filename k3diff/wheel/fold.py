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

UNKNOWN = object()
"""What `folded` gives where the value is not certain."""
LONGEST = 4096
"""Characters of a string folded at most (a longer one is unknown)."""
_LOCALS = "locals"
_SCALARS = (str, bytes, int, float, complex, bool, type(None))


def folded(node: ast.AST, names: Mapping[str, object] | None = None) -> object:
    """The value of `node`, `UNKNOWN` where it is not certain (`names`: the values of the
    names it may use, and, under `locals`, those `**locals()` gives)."""
    try:
        return _fold(node, names or {})
    except (RecursionError, MemoryError):
        return UNKNOWN


def _fold(node: ast.AST, names: Mapping[str, object]) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id, UNKNOWN) if node.id != _LOCALS else UNKNOWN
    folder = _FOLDERS.get(type(node))
    if folder is not None:
        return folder(node, names)
    try:
        return ast.literal_eval(node)  # a tuple, list, set or dict display of literals
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return UNKNOWN


def _joined(node: ast.AST, names: Mapping[str, object]) -> object:
    assert isinstance(node, ast.JoinedStr)
    parts = []
    for part in node.values:
        if isinstance(part, ast.FormattedValue):
            if part.conversion != -1 or part.format_spec is not None:
                return UNKNOWN
            part = part.value
        value = _fold(part, names)
        if not isinstance(value, str):
            return UNKNOWN
        parts.append(value)
    return _short("".join(parts))


def _added(node: ast.AST, names: Mapping[str, object]) -> object:
    assert isinstance(node, ast.BinOp)
    if not isinstance(node.op, ast.Add):
        return UNKNOWN
    left, right = _fold(node.left, names), _fold(node.right, names)
    if isinstance(left, str) and isinstance(right, str):
        return _short(left + right)
    if isinstance(left, bytes) and isinstance(right, bytes):
        return _short(left + right)
    return UNKNOWN


def _called(node: ast.AST, names: Mapping[str, object]) -> object:
    """`'...'.format(...)` and `'sep'.join([...])` of a literal string."""
    assert isinstance(node, ast.Call)
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in ("format", "join"):
        return UNKNOWN
    text = _fold(func.value, names)
    if not isinstance(text, str):
        return UNKNOWN
    if func.attr == "join":
        if len(node.args) != 1 or node.keywords:
            return UNKNOWN
        items = node.args[0]
        if not isinstance(items, (ast.List, ast.Tuple)):
            return UNKNOWN
        values = [_fold(item, names) for item in items.elts]
        fine = all(isinstance(value, str) for value in values)
        return _short(text.join(map(str, values))) if fine else UNKNOWN
    return _formatted(text, node, names)


def _formatted(text: str, node: ast.Call, names: Mapping[str, object]) -> object:
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
    args = [_fold(arg, names) for arg in node.args]
    keywords: dict[str, object] = {}
    for keyword in node.keywords:
        if keyword.arg is not None:
            keywords[keyword.arg] = _fold(keyword.value, names)
            continue
        value = keyword.value  # `**locals()`: the names the finder's reading knows
        local = names.get(_LOCALS)
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


def _compared(node: ast.AST, names: Mapping[str, object]) -> object:
    assert isinstance(node, ast.Compare)
    if len(node.ops) != 1:
        return UNKNOWN
    left, right = _fold(node.left, names), _fold(node.comparators[0], names)
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


def _boolean(node: ast.AST, names: Mapping[str, object]) -> object:
    assert isinstance(node, ast.BoolOp)
    value: object = UNKNOWN
    for part in node.values:
        value = _fold(part, names)
        if value is UNKNOWN or not isinstance(value, _SCALARS):
            return UNKNOWN
        if bool(value) != isinstance(node.op, ast.And):
            return value  # `and` stops at a false value, `or` at a true one
    return value


def _negated(node: ast.AST, names: Mapping[str, object]) -> object:
    assert isinstance(node, ast.UnaryOp)
    if not isinstance(node.op, ast.Not):
        try:
            return ast.literal_eval(node)  # `-1`
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return UNKNOWN
    value = _fold(node.operand, names)
    return UNKNOWN if value is UNKNOWN or not isinstance(value, _SCALARS) else not value


def _short(value: str | bytes) -> object:
    return value if len(value) <= LONGEST else UNKNOWN


_FOLDERS: dict[type, Callable[[ast.AST, Mapping[str, object]], object]] = {
    ast.JoinedStr: _joined,
    ast.BinOp: _added,
    ast.Call: _called,
    ast.Compare: _compared,
    ast.BoolOp: _boolean,
    ast.UnaryOp: _negated,
}
