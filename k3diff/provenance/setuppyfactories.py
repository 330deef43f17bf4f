"""A ``setup`` or a ``setup`` mapping an installed package's code makes: not the commit's.

An installed package's name that a ``setup.py`` only calls goes through (`setuppyvalues`:
``Version(v)``, ``get_version()``), but some calls make what ``setup`` runs: jupyter_packaging's
``setup(cmdclass=create_cmdclass("js"))`` and ``cmdclass=wrap_installers(post_develop=…)``,
cmake-build-extension's ``setup(**c.kwargs())``, or ``setup`` itself imported from such a
package (``from cmake_setup import setup``). The command classes they return may run CMake
that installs over a file of the package; a wheel keeping the old file passed, exit 0
(review79d). So the run stops where the ``setup`` called is imported from an installed package
(a module the commit holds no file of, neither the standard library's nor of `MODELLED`), or where a
``cmdclass=`` value, one of its entries, or a ``**`` mapping given to ``setup`` is what calling
such a package's name returns (directly, or by a name the module binds to it). What a call
gives other keywords (``version=get_version()``, ``ext_modules=mypycify(…)``) is not asked.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from k3diff.escape import shortened
from k3diff.provenance.setuppyinstalled import KNOWN, unread_package
from k3diff.provenance.setuppykeywords import setup_keywords
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
    origins = _origins(module)
    assigned = _assigned(module)
    for call in _calls(module, origins):
        for origin in _setup_origins(call.func, origins):
            if origin.split(".")[0] not in MODELLED and installed_package(origin, held):
                fact = f"setup.py line {call.lineno}: setup is called, from {origin}"
                return unread_package(fact, origin)
        for what, value in _given(call, module):
            for made in _parts(value, assigned):
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


def _given(call: ast.Call, module: ast.Module) -> Iterator[tuple[str, ast.expr]]:
    """What `call` gives ``setup`` as command classes: each ``**`` mapping, and ``cmdclass``
    (given by name, or in a literal ``**`` mapping)."""
    for keyword in call.keywords:
        if keyword.arg is None:
            yield "a ** mapping of setup", keyword.value
        elif keyword.arg == "cmdclass":
            yield "cmdclass", keyword.value
    read = setup_keywords(call, module) or {}
    if "cmdclass" in read and all(k.arg != "cmdclass" for k in call.keywords):
        yield "cmdclass", read["cmdclass"]


def _parts(value: ast.expr, assigned: dict[str, list[ast.expr]]) -> Iterator[ast.expr]:
    """`value` and what its mapping is made of, each once: a dict display's values and ``**``
    mappings, ``dict(…)``'s arguments, both sides of ``a | b`` or ``x if c else y``, ``a or
    b``'s, and for a name what the module assigns, sets as an item or ``update``s it with."""
    seen: set[int] = set()
    todo = [value]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node, ast.Dict):
            todo += node.values
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "dict"
        ):
            todo += [*node.args, *(keyword.value for keyword in node.keywords)]
        elif isinstance(node, ast.BinOp):
            todo += [node.left, node.right]
        elif isinstance(node, ast.IfExp):
            todo += [node.body, node.orelse]
        elif isinstance(node, ast.BoolOp):
            todo += node.values
        elif isinstance(node, ast.Name):
            todo += assigned.get(node.id, ())


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


def _assigned(module: ast.Module) -> dict[str, list[ast.expr]]:
    """Name -> each value the module assigns to it anywhere (``cmds = create_cmdclass()``),
    sets as an item of it (``cmds["develop"] = …``) or ``update``s it with."""
    found: dict[str, list[ast.expr]] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and node.value:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript):
                    target = target.value
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(node.value)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("update", "setdefault")
            and isinstance(node.func.value, ast.Name)
        ):
            values = [*node.args, *(keyword.value for keyword in node.keywords)]
            found.setdefault(node.func.value.id, []).extend(values)
    return found


def _origins(module: ast.Module) -> dict[str, set[str]]:
    """Name -> every module it is imported from (``from a.b import C as D``: D -> ``a.b``;
    ``import a.b as m``: m -> ``a.b``; ``import a.b``: a -> ``a``), and ``NAME=setup`` ->
    the modules ``setup`` is imported from as NAME; relative imports aside."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                bound = alias.asname or alias.name
                found.setdefault(bound, set()).add(node.module)
                if alias.name == "setup":
                    found.setdefault(f"{bound}=setup", set()).add(node.module)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                found.setdefault(bound, set()).add(alias.name if alias.asname else bound)
    return found
