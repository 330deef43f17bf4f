"""The keywords a ``setup(…)`` call of a ``setup.py`` passes, ``**`` mappings included where
they are literal.

``setup(**{"version": "2.3.0"})`` and ``options = {…}; setup(**options)`` pass the keywords of
the dict: read as ``setup(version=…)`` was, the version was said "set by code" and not checked,
so a 9.9 wheel of a commit building 2.3.0 passed, exit 0 (source78). A mapping is read where it
is a dict display with string keys (``{"version": "2.3.0", **{…}}`` nested too), ``dict(k=v,
…)``, or a name bound once at the module's top to one of those and read nowhere but as the
``**`` of ``setup`` calls (so nothing adds to it: ``options["version"] = …``,
``options.update(…)``, a ``match`` capture); any other (a call, a name changed or read
elsewhere, any in a module using ``globals``, ``vars``, ``locals``, ``exec`` or ``eval``) is
not read.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping

_REBOUND = "dict()"
"""The key `_mappings` holds where the module binds ``dict`` itself (no name is spelt so)."""
_BY_CODE = frozenset({"globals", "vars", "locals", "exec", "eval"})
"""Names whose use may bind a module's names (``dict`` too) by code: no mapping is read by name
then (review78f: ``globals()["OPTIONS"] = {"version": "9.9"}`` was read as the literal)."""
_DEPTH_CAP = 16
"""Most mappings followed inside one another (``{**{**{…}}}``, a name for another)."""
SETUP_CALLS_CAP = 64
"""Most ``setup(…)`` calls of one ``setup.py`` whose keywords are read; past them its readers
stop (`calls_capped`). Each call's ``**`` mapping is expanded again (a name bound once may be
spread by every call), so the work was the calls times the mapping's keys (caps80: 10,000 calls
of ``setup(**O)``, ``O`` of 10,000 keys, a 238 KB ``setup.py``, took 60 s of CPU a reader)."""


def calls_capped(path: str) -> str:
    """Why a ``setup.py`` of more than `SETUP_CALLS_CAP` ``setup`` calls is not read."""
    return (
        f"{path} calls setup() more than {SETUP_CALLS_CAP} times; k3diff reads the keywords of "
        f"at most {SETUP_CALLS_CAP}"
    )


def setup_keywords(call: ast.Call, module: ast.Module) -> dict[str, ast.expr] | None:
    """Keyword -> value of `call` (a ``setup`` call of the parsed `module`), its ``**``
    mappings merged; None where a mapping is not read or a keyword is given twice (a
    ``TypeError`` when it runs)."""
    if all(keyword.arg is not None for keyword in call.keywords):
        return {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}
    mappings = _mappings(module)
    keywords: dict[str, ast.expr] = {}
    for keyword in call.keywords:
        pairs = _pairs(keyword.value, mappings, 0) if keyword.arg is None else None
        if keyword.arg is not None:
            pairs = [(keyword.arg, keyword.value)]
        if pairs is None:
            return None
        for name, value in pairs:
            if name in keywords:
                return None
            keywords[name] = value
    return keywords


def _pairs(
    node: ast.expr, mappings: Mapping[str, ast.expr], depth: int
) -> list[tuple[str, ast.expr]] | None:
    """The (key, value) pairs the mapping `node` holds, in order; None where not read."""
    if depth > _DEPTH_CAP:
        return None
    if isinstance(node, ast.Name):
        held = mappings.get(node.id)
        return None if held is None else _pairs(held, mappings, depth + 1)
    if isinstance(node, ast.Call):
        plain = isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args
        if not plain or _REBOUND in mappings:
            return None
        found: list[tuple[str, ast.expr]] = []
        for keyword in node.keywords:
            more = (
                [(keyword.arg, keyword.value)]
                if keyword.arg is not None
                else _pairs(keyword.value, mappings, depth + 1)
            )
            if more is None:
                return None
            found += more
        return found
    if not isinstance(node, ast.Dict):
        return None
    pairs: list[tuple[str, ast.expr]] = []
    for key, value in zip(node.keys, node.values, strict=True):
        if key is None:  # {**other}
            more = _pairs(value, mappings, depth + 1)
            if more is None:
                return None
            pairs += more
        elif isinstance(key, ast.Constant) and isinstance(key.value, str):
            pairs.append((key.value, value))
        else:
            return None
    # a later key replaces an earlier one, as a dict display does
    return list({name: (name, value) for name, value in pairs}.values())


@functools.lru_cache(maxsize=4)
def _mappings(module: ast.Module) -> dict[str, ast.expr]:
    """Name -> value (one walk a module, however many ``setup`` calls: cached) of each name
    bound once, at the module's top by ``NAME = {…}`` or
    ``NAME = dict(…)``, and read only as a keyword's ``**`` (``setup(**NAME)``, ``{**NAME}``)."""
    top: dict[str, ast.expr] = {}
    for statement in module.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
            if isinstance(target, ast.Name) and isinstance(value, ast.Dict | ast.Call):
                top[target.id] = value
    uses: dict[str, int] = {}
    spread: set[int] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.keyword) and node.arg is None:
            spread.add(id(node.value))
        elif isinstance(node, ast.Dict):
            spread |= {id(v) for k, v in zip(node.keys, node.values, strict=True) if k is None}
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and node.id in _BY_CODE:  # review78f: globals()[…] = …
            return {_REBOUND: ast.Constant(None)}
        if isinstance(node, ast.Name) and node.id in top:
            counted = isinstance(node.ctx, ast.Load) and id(node) in spread
            uses[node.id] = uses.get(node.id, 0) + (0 if counted else 1)
        for name in _bound_otherwise(node):
            uses[name] = uses.get(name, 0) + 2
            if name == "dict":
                uses[_REBOUND] = 2
    found = {name: value for name, value in top.items() if uses.get(name, 0) == 1}
    return {**found, _REBOUND: ast.Constant(None)} if _REBOUND in uses else found


def _bound_otherwise(node: ast.AST) -> list[str]:
    """The names `node` binds or declares other than by assigning a name (a function, class,
    argument, import, ``except … as``, a ``match`` capture, ``global``), and ``dict`` where it
    assigns that."""
    if isinstance(node, ast.Name):
        return ["dict"] if node.id == "dict" and not isinstance(node.ctx, ast.Load) else []
    if isinstance(node, ast.Global | ast.Nonlocal):
        return list(node.names)
    if isinstance(node, ast.alias):
        return [node.asname or node.name.split(".")[0]]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.MatchMapping):  # review78f: `case {**NAME}` binds NAME
        return [node.rest] if node.rest else []
    if isinstance(node, ast.MatchAs | ast.MatchStar):  # `case NAME:`, `case [*NAME]`
        return [node.name] if node.name else []
    return [node.name] if isinstance(node, ast.ExceptHandler) and node.name else []
