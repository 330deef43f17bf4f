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
import builtins
from collections.abc import Callable, Iterator

from k3diff.escape import shortened
from k3diff.provenance.setuppyinstalled import KNOWN, import_origins, unread_package
from k3diff.provenance.setuppyscopes import Project, Scope, scope_of, targets
from k3diff.provenance.setuppyvalues import installed_package

MODELLED = KNOWN | {"skbuild", "versioneer"}
"""Top-level packages whose ``setup`` or command classes k3diff reads or knows: scikit-build's
``skbuild.setup`` is read as building with CMake, and versioneer's ``get_cmdclass()`` (a build
requirement, not a ``versioneer.py`` of the commit) writes the ``_version.py`` its settings name,
read as versioneer's (`versionconfig`)."""


def installed_factory(
    module: ast.Module, held: Callable[[str], bool], project: Project | None = None
) -> str | None:
    """Why the parsed ``setup.py`` `module` runs a ``setup`` an installed package (one `held`
    says the commit holds no file of) makes or gives command classes to: ``setup.py line 5:
    setup is called, from cmake_setup; cmake_setup is a package …`` (`unread_package`); None
    where it does neither. A call or a name it takes from a module of the project is read in
    that module, which `project` gives (`setuppyscopes`; None: not read)."""
    origins = import_origins(module)
    top = scope_of("setup.py", module, None, "")
    seen: set[object] = set()  # a part's verdict is its own: asked once, whatever the calls
    walk = _Walk(top, held, project, seen, [])
    for call in _calls(module, origins):
        for origin in _setup_origins(call.func, origins):
            if origin.split(".")[0] not in MODELLED and installed_package(origin, held):
                fact = f"setup.py line {call.lineno}: setup is called, from {origin}"
                return unread_package(fact, origin)
        for what, given in _given(call):
            for made, scope, unread in walk.parts(given):
                said = _made_by(made, scope.origins, held) if unread is None else None
                if unread is None and said is None:
                    continue
                shown = shortened(ast.unparse(made), 100)
                at = f"{scope.path} line {made.lineno}{scope.via}: {what} is {shown}"
                if unread is not None:
                    return f"{at}, {unread}, not read, and {_MAY}"
                assert said is not None
                return unread_package(f"{at}, made by {said}", said)
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


BUILTINS = frozenset(vars(builtins))
"""Python's builtin names: a call of one no module ``import *`` takes from defines is the
builtin's."""
_MAY = (
    "may be command classes an installed package makes, which may run CMake that installs "
    "files into the wheel"
)
_Part = tuple[ast.expr, bool]
"""A value, and whether it is a mapping of command classes (else of ``setup``'s keywords)."""


def _given(call: ast.Call) -> Iterator[tuple[str, _Part]]:
    """What `call` gives ``setup``: each ``**`` mapping, and ``cmdclass``."""
    for keyword in call.keywords:
        if keyword.arg is None:
            yield "a ** mapping of setup", (keyword.value, False)
        elif keyword.arg == "cmdclass":
            yield "cmdclass", (keyword.value, True)


class _Walk:
    """The parts of what ``setup`` is given (`parts`), read in the scopes they are made in,
    each once (`seen`, shared by every value ``setup.py`` gives)."""

    def __init__(
        self,
        top: Scope,
        held: Callable[[str], bool],
        project: Project | None,
        seen: set[object],
        keep: list[object],
    ) -> None:
        self.top, self.held, self.project, self.seen, self.keep = top, held, project, seen, keep
        self.scopes: dict[str, Scope] = {}

    def parts(self, given: _Part) -> Iterator[tuple[ast.expr, Scope, str | None]]:
        """The value `given` and what it is made of, each once, with the scope it is read in
        and, where it is a call of a module of the project not read, why: a mapping's ``**``
        and (of a keywords mapping, only its ``cmdclass``) its values, ``dict(…)``'s arguments,
        both sides of ``a | b`` or ``x if c else y``, ``a or b``'s, for a name what its module
        assigns, sets as an item or ``update``s it with, for a call of a function its module
        defines what it returns (``def kwargs(): return {"cmdclass": create_cmdclass("js")}``,
        ``setup(**kwargs())``; cython80: it passed, exit 0), and for a name or call taken from a
        module of the project the same in that module (review80c: ``from helpers import
        kwargs`` passed, exit 0); none of those in `seen` (each part and name once, however
        often it is used: a hostile ``setup.py`` of many calls), to which each is added."""
        seen = self.seen
        todo: list[tuple[ast.expr, bool, Scope]] = [(given[0], given[1], self.top)]
        while todo:
            node, classes, scope = todo.pop()
            if (id(node), classes) in seen:
                continue
            seen.add((id(node), classes))
            yield node, scope, None
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if key is None or classes:
                        todo.append((value, classes, scope))
                    elif isinstance(key, ast.Constant) and key.value == "cmdclass":
                        todo.append((value, True, scope))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "dict"
            ):
                todo += [(arg, classes, scope) for arg in node.args]
                todo += [
                    (k.value, classes or k.arg in (None, "cmdclass"), scope)
                    for k in node.keywords
                    if classes or k.arg in (None, "cmdclass")
                ]
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Name) and func.id in scope.defined:
                    if (scope.path, f"{func.id}()", classes) not in seen:
                        seen.add((scope.path, f"{func.id}()", classes))
                        todo += [(v, classes, scope) for v in scope.defined[func.id]]
                else:
                    found = self._leave(node, func, scope, classes, True)
                    if isinstance(found, str):
                        yield node, scope, found
                    else:
                        todo += found
            elif isinstance(node, ast.BinOp):
                todo += [(node.left, classes, scope), (node.right, classes, scope)]
            elif isinstance(node, ast.IfExp):
                todo += [(node.body, classes, scope), (node.orelse, classes, scope)]
            elif isinstance(node, ast.BoolOp):
                todo += [(value, classes, scope) for value in node.values]
            elif isinstance(node, ast.Name) and (scope.path, node.id, classes) not in seen:
                seen.add((scope.path, node.id, classes))
                for item, value in scope.assigned.get(node.id, ()):
                    if classes or item is None:
                        todo.append((value, classes, scope))
                    elif item == "cmdclass":
                        todo.append((value, True, scope))
                found = self._leave(node, node, scope, classes, False)
                todo += found if not isinstance(found, str) else []
            elif isinstance(node, ast.Attribute):
                found = self._leave(node, node, scope, classes, False)
                todo += found if not isinstance(found, str) else []

    def _leave(
        self, node: ast.expr, func: ast.expr, scope: Scope, classes: bool, call: bool
    ) -> list[tuple[ast.expr, bool, Scope]] | str:
        """What the name `func` (called by `node` where `call`) taken from a module of the
        project is, read in that module: its function's returns, or the name; why not read
        where it is a call none of its modules defines or imports (``which the project's
        helpers returns: kwargs is no function it defines or imports``)."""
        if self.project is None:
            return []
        if call and (computed := self._computed(func, scope)) is not None:
            return f"which the project's {shortened(computed, 100)} gives by a computed name"
        if call and (starred := self._starred(node, func, scope, classes)) is not None:
            return starred
        pairs = targets(func, scope, self.held)
        found: list[tuple[ast.expr, bool, Scope]] = []
        why: list[str] = []
        read = False  # read before (what it gives is walked already), or a builtin
        for module, name, star in pairs:
            key = ("from", module, name, call, classes)
            if key in self.seen:
                read = True
                continue
            target = self._scope(module, node, scope)
            if isinstance(target, str):
                why.append(target)
                continue
            if target is None:
                continue
            if call and name in target.defined:
                self.seen.add(key)
                found += [(value, classes, target) for value in target.defined[name]]
            elif {name, "*"} & target.origins.keys() or (not call and name in target.assigned):
                self.seen.add(key)
                made: ast.expr = ast.Name(name, ast.Load())
                made = ast.Call(made, [], []) if call else made
                made.lineno = made.end_lineno = target.lines.get(name, 0)
                self.keep.append(made)  # `seen` holds its id
                found.append((made, classes, target))
            elif star and name in BUILTINS:  # `from helpers import *` and `sorted(…)`
                read = True
            elif call:
                why.append(f"{shortened(name, 100)} is no function it defines or imports")
        if found or read or not call or not pairs:
            return found
        said = why[0] if why else "no file of the commit holds it"
        return f"which the project's {shortened(pairs[0][0], 100)} returns: {said}"

    def _starred(
        self, node: ast.expr, func: ast.expr, scope: Scope, classes: bool
    ) -> list[tuple[ast.expr, bool, Scope]] | str | None:
        """``a.b()`` whose ``a`` `scope` binds only by ``from helpers import *`` of the
        project: the call read in each such module binding ``a`` (review80c: ``jp`` of
        ``helpers.py``'s ``import jupyter_packaging as jp``, ``setup(**jp.create_cmdclass())``
        passed, exit 0); why not read where none binds it; None where it is no such call."""
        base = func
        while isinstance(base, ast.Attribute):
            base = base.value
        if func is base or not isinstance(base, ast.Name) or base.id in BUILTINS:
            return None
        name = base.id
        if name in scope.origins or name in scope.assigned or name in scope.defined:
            return None
        stars = sorted(m for m in scope.origins.get("*", ()) if self.held(m))
        found: list[tuple[ast.expr, bool, Scope]] = []
        for module in stars:
            target = self._scope(module, node, scope)
            if not isinstance(target, Scope):
                continue
            bound = target.origins.keys() | target.assigned.keys() | target.defined.keys()
            if name in bound or "*" in bound:
                made = ast.Call(func, [], [])
                made.lineno = made.end_lineno = target.lines.get(name, 0)
                self.keep.append(made)  # `seen` holds its id
                found.append((made, classes, target))
        if found or not stars:
            return found or None
        return (
            f"which the project's {shortened(stars[0], 100)} gives by import *, not binding {name}"
        )

    def _computed(self, func: ast.expr, scope: Scope) -> str | None:
        """The module of the project a call of `func` takes what it calls from where that is no
        name or ``a.b.name`` (``getattr(helpers, "kwargs")()``, ``helpers.Config().kwargs()``,
        ``helpers.table["k"]()``: review80c); None where it is one, or names no such module."""
        base = func
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name):
            return None
        for node in ast.walk(func):
            if isinstance(node, ast.Name):
                held = sorted(m for m in scope.origins.get(node.id, ()) if self.held(m))
                if held:
                    return held[0]
        return None

    def _scope(self, module: str, node: ast.expr, scope: Scope) -> Scope | str | None:
        """The scope of the project's `module` (left for by `node` of `scope`), read once; why
        it is not read; None where the commit holds no file of it."""
        if module in self.scopes:
            return self.scopes[module]
        assert self.project is not None
        loaded = self.project(module)
        if loaded is None or isinstance(loaded, str):
            return loaded
        path, parsed = loaded
        package = module if path.endswith("/__init__.py") else module.rpartition(".")[0]
        via = scope.via or (
            f" ({shortened(ast.unparse(node), 100)}, which setup.py line {node.lineno} gives setup)"
        )
        made = scope_of(path, parsed, package or None, via)
        self.scopes[module] = made
        return made


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
