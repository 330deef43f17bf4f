"""Where code run at start reads a namespace whole (`Spaces`): it may call any function of it,
one no code names, so it may import any module (`hookimports` makes it `Imports.unknown`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from k3diff.wheel.computednames import AROUND, KEYED, called_name, literal

_WHOLE = frozenset({"vars", "globals", "locals", "dir", "getmembers", "getmembers_static"})
"""The calls that give an object's names or namespace whole (`vars(cls)`, `dir(cls)`)."""
_SPACES = frozenset({"__dict__", "__globals__", "f_globals", "f_locals"})
"""The attributes that are a namespace (`cls.__dict__`, a function's `__globals__`)."""
_WRITES = frozenset({"update", "__setitem__", "__delitem__", "clear", "format", "format_map"})
"""The calls that write to a namespace or format with it, and call none of its values."""


@dataclass
class Spaces:
    """Where code reads a namespace whole (`for v in cls.__dict__.values(): v()`, `dir(m)`,
    `inspect.getmembers(cls)`): it may call any function, one no code names (review73f: a base's
    `__init_subclass__` calling each function of the subclass's `__dict__` passed, exit 0, while
    a venv's `python -c pass` ran it). Read by a literal key (`m.__dict__['go']`, `.get('go')`,
    `.setdefault('__path__', [])` of the `-nspkg.pth` lines), written (`.update(...)`; not one
    written in elsewhere, review74c: `d.update(x=H.__dict__)` then `d['x'].values()` passed,
    exit 0), asked `in`, or formatted with (`'{x}'.format(**locals())`), it is not whole.
    The nodes are met parent first, as `hookimports` walks them."""

    keyed: set[int] = field(default_factory=set)

    def of(self, node: ast.AST) -> str:
        """How `node` reads a namespace whole, empty where it does not."""
        if not isinstance(node, (ast.Subscript, ast.Compare, ast.Call, ast.Attribute)):
            return ""
        if isinstance(node, ast.Subscript) and isinstance(literal(node.slice), str):
            self._key(node.value)
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            self._key(node.comparators[0])
        elif isinstance(node, ast.Call) and isinstance(func := node.func, ast.Attribute):
            writes = func.attr in _WRITES
            key = literal(node.args[0]) if node.args and func.attr in KEYED else None
            spaces = [func.value] if writes or isinstance(key, str) else []
            formats = func.attr in ("format", "format_map")  # `**locals()`; not `update(x=...)`
            for space in [*spaces, *(keyword.value for keyword in node.keywords if formats)]:
                self._key(space)
        whole = _whole(node)
        if whole is None or id(node) in self.keyed:
            return ""
        return f"a namespace read whole (`{whole}`): it may call any function"

    def _key(self, space: ast.expr) -> None:
        """Mark `space` read by a key, and the namespaces it may be (`(b if isinstance(b, dict)
        else b.__dict__)['__import__']`), `AROUND` nodes of it at most."""
        stack = [space]
        for _ in range(AROUND):
            if not stack:
                return
            node = stack.pop()
            self.keyed.add(id(node))
            stack += [node.body, node.orelse] if isinstance(node, ast.IfExp) else []
            stack += node.values if isinstance(node, ast.BoolOp) else []


def _whole(node: ast.AST) -> str | None:
    """The namespace (or names) an expression gives whole: `__dict__`, `vars(...)`, ..."""
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return node.attr if node.attr in _SPACES else None
    if isinstance(node, ast.Call):
        name = called_name(node.func)
        return name if name in _WHOLE else None
    return None
