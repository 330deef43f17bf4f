"""A ``setup`` or a ``setup`` mapping an installed package's code makes: not the commit's.

An installed package's name that a ``setup.py`` only calls goes through (`setuppyvalues`:
``Version(v)``, ``get_version()``), but some calls make what ``setup`` runs: jupyter_packaging's
``setup(cmdclass=create_cmdclass("js"))`` and ``cmdclass=wrap_installers(post_develop=…)``,
cmake-build-extension's ``setup(**c.kwargs())``, or ``setup`` itself imported from such a
package (``from cmake_setup import setup``). The command classes they return may run CMake
that installs over a file of the package; a wheel keeping the old file passed, exit 0
(review79d). So the run stops where the ``setup`` called is imported from an installed
package (a module the commit holds no file of, neither the standard library's nor of
`MODELLED`), or where a ``cmdclass=`` value or a ``**`` mapping given to ``setup``, or a part
it is made of (`_parts`), is what calling such a package's name returns. What a call gives
other keywords (``version=get_version()``, ``ext_modules=mypycify(…)``) is not asked.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from k3diff.escape import shortened
from k3diff.provenance.setuppyinstalled import KNOWN, import_origins, unread_package
from k3diff.provenance.setuppyvalues import installed_package

MODELLED = KNOWN | {"skbuild", "versioneer"}
"""Top-level packages whose ``setup`` or command classes k3diff reads or knows: scikit-build's
``skbuild.setup`` is read as building with CMake, and versioneer's ``get_cmdclass()`` (a build
requirement, not a ``versioneer.py`` of the commit) writes the ``_version.py`` its settings name,
read as versioneer's (`versionconfig`)."""


def installed_factory(module: ast.Module, held: Callable[[str], bool]) -> str | None:
    """Why the parsed ``setup.py`` `module` runs a ``setup`` an installed package (one `held`
    says the commit holds no file of) makes or gives command classes to: ``setup.py line 5:
    setup is called, from cmake_setup; cmake_setup is a package …`` (`unread_package`); None
    where it does neither."""
    origins = import_origins(module)
    assigned = _assigned(module)
    defined = _returned(module)
    seen: set[object] = set()  # a part's verdict is its own: asked once, whatever the calls
    for call in _calls(module, origins):
        for origin in _setup_origins(call.func, origins):
            if origin.split(".")[0] not in MODELLED and installed_package(origin, held):
                fact = f"setup.py line {call.lineno}: setup is called, from {origin}"
                return unread_package(fact, origin)
        for what, given in _given(call):
            for made in _parts(given, assigned, defined, seen):
                said = _made_by(made, origins, held)
                if said is not None:
                    shown = shortened(ast.unparse(made), 100)
                    fact = f"setup.py line {made.lineno}: {what} is {shown}, made by {said}"
                    return unread_package(fact, said)
    return None


def _calls(module: ast.Module, origins: dict[str, set[str]]) -> Iterator[ast.Call]:
    """Each call of ``setup`` by a name it is imported as (or ``setup`` itself), or as an
    attribute (``cs.setup(…)``)."""
    names = {"setup"} | {key.split("=")[0] for key in origins if key.endswith("=setup")}
    for node in ast.walk(module):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id in names) or (
                isinstance(func, ast.Attribute) and func.attr == "setup"
            ):
                yield node


def _setup_origins(func: ast.expr, origins: dict[str, set[str]]) -> set[str]:
    """The modules the ``setup`` `func` calls may come from: ``from M import setup`` for a
    name, the module a name is imported as for ``name.setup``."""
    if isinstance(func, ast.Name):
        return origins.get(f"{func.id}=setup", set())
    base = func
    while isinstance(base, ast.Attribute):
        base = base.value
    return origins.get(base.id, set()) if isinstance(base, ast.Name) else set()


_Part = tuple[ast.expr, bool]
"""A value, and whether it is a mapping of command classes (else of ``setup``'s keywords)."""


def _given(call: ast.Call) -> Iterator[tuple[str, _Part]]:
    """What `call` gives ``setup``: each ``**`` mapping, and ``cmdclass``."""
    for keyword in call.keywords:
        if keyword.arg is None:
            yield "a ** mapping of setup", (keyword.value, False)
        elif keyword.arg == "cmdclass":
            yield "cmdclass", (keyword.value, True)


def _parts(
    given: _Part,
    assigned: dict[str, list[tuple[str | None, ast.expr]]],
    defined: dict[str, list[ast.expr]],
    seen: set[object],
) -> Iterator[ast.expr]:
    """The value `given` and what it is made of, each once: a mapping's ``**`` and (of a
    keywords mapping, only its ``cmdclass``) its values, ``dict(…)``'s arguments, both sides of
    ``a | b`` or ``x if c else y``, ``a or b``'s, and for a name what the module assigns, sets as
    an item or ``update``s it with, and for a call of a function ``setup.py`` defines what it
    returns (`defined`: ``def kwargs(): return {"cmdclass": create_cmdclass("js")}``,
    ``setup(**kwargs())``; cython80: it passed, exit 0); none of those in `seen` (each part
    and name once, however often it is used: a hostile ``setup.py`` of many calls), to which
    each is added."""
    todo = [given]
    while todo:
        node, classes = todo.pop()
        if (id(node), classes) in seen:
            continue
        seen.add((id(node), classes))
        yield node
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if key is None or classes:
                    todo.append((value, classes))
                elif isinstance(key, ast.Constant) and key.value == "cmdclass":
                    todo.append((value, True))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "dict"
        ):
            todo += [(arg, classes) for arg in node.args]
            todo += [
                (k.value, classes or k.arg in (None, "cmdclass"))
                for k in node.keywords
                if classes or k.arg in (None, "cmdclass")
            ]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if (f"{node.func.id}()", classes) not in seen:
                seen.add((f"{node.func.id}()", classes))
                todo += [(value, classes) for value in defined.get(node.func.id, ())]
        elif isinstance(node, ast.BinOp):
            todo += [(node.left, classes), (node.right, classes)]
        elif isinstance(node, ast.IfExp):
            todo += [(node.body, classes), (node.orelse, classes)]
        elif isinstance(node, ast.BoolOp):
            todo += [(value, classes) for value in node.values]
        elif isinstance(node, ast.Name) and (node.id, classes) not in seen:
            seen.add((node.id, classes))
            for item, value in assigned.get(node.id, ()):
                if classes or item is None:
                    todo.append((value, classes))
                elif item == "cmdclass":
                    todo.append((value, True))


def _made_by(
    value: ast.expr, origins: dict[str, set[str]], held: Callable[[str], bool]
) -> str | None:
    """The installed module whose name `value` calls (``create_cmdclass("js")``,
    ``c.kwargs()``, ``f()()``), None where it is no such call."""
    if not isinstance(value, ast.Call):
        return None
    base: ast.expr = value
    while isinstance(base, ast.Call | ast.Attribute):
        base = base.func if isinstance(base, ast.Call) else base.value
    if not isinstance(base, ast.Name):
        return None
    found = sorted(origins.get(base.id, ()))
    return next(
        (m for m in found if m.split(".")[0] not in MODELLED and installed_package(m, held)), None
    )


def _assigned(module: ast.Module) -> dict[str, list[tuple[str | None, ast.expr]]]:
    """Name -> (None, each value the module assigns to it anywhere: ``cmds =
    create_cmdclass()``, or ``update``s it with), and (the key, or "" where not a literal
    string, each value it sets as an item: ``cmds["develop"] = …``)."""
    found: dict[str, list[tuple[str | None, ast.expr]]] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and node.value:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                key: str | None = None
                if isinstance(target, ast.Subscript):
                    key = _key(target.slice)
                    target = target.value
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append((key, node.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "update"
            and isinstance(node.func.value, ast.Name)
        ):
            pairs: list[tuple[str | None, ast.expr]] = [(None, arg) for arg in node.args]
            pairs += [(keyword.arg, keyword.value) for keyword in node.keywords]
            found.setdefault(node.func.value.id, []).extend(pairs)
    return found


def _returned(module: ast.Module) -> dict[str, list[ast.expr]]:
    """Name -> what each function of that name (anywhere in `module`) returns; one walk, no
    recursion (a hostile ``setup.py`` nests deep)."""
    found: dict[str, list[ast.expr]] = {}
    todo: list[tuple[ast.AST, str | None]] = [(module, None)]
    while todo:
        node, function = todo.pop()
        if isinstance(node, ast.Return) and node.value is not None and function is not None:
            found.setdefault(function, []).append(node.value)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name
        todo += [(child, function) for child in ast.iter_child_nodes(node)]
    return found


def _key(index: ast.expr) -> str:
    """An item's key: the literal string, or "" where it is not one."""
    literal = isinstance(index, ast.Constant) and isinstance(index.value, str)
    return index.value if literal else ""  # type: ignore[attr-defined]
