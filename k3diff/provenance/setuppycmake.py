"""A ``setup.py`` that runs CMake itself, from a command class of its own (vLLM's
``cmake_build_ext(build_ext)``: ``subprocess.check_call(["cmake", "--install", ".",
"--prefix", …, "--component", …])`` into setuptools' build directory).

setuptools runs ``build_ext`` after ``build_py``, so what CMake installs there ships over the
package's files: a real build (setuptools 65.5.0, CMake 3.25.1, ``pip wheel
--no-build-isolation``) of ``install(FILES fixes/auth.py DESTINATION pkg/sub COMPONENT _C)``
shipped the fix as ``pkg/sub/auth.py``, while k3diff compared the old ``src/pkg/sub/auth.py``
and a wheel keeping it matched, exit 0 (realsource75). The script's own code decides the
install prefix and components, so they are not read: the source check stops.

vLLM's shape was not read further (vllm76): its prefix is setuptools' build directory, the
wheel's root (``get_ext_fullpath(name)``'s directory, one level up per dot of the name: a real
build installed ``DESTINATION pkg/fa`` as ``pkg/fa/…``), but its CMake moves that prefix with
``install(CODE "set(CMAKE_INSTALL_PREFIX …/vllm/)")`` and lets a ``FetchContent`` project's
own ``install()`` rules run (``CMAKE_INSTALL_LOCAL_ONLY FALSE``), whose source is fetched or
taken from the builder's environment (``VLLM_FLASH_ATTN_SRC_DIR``): a real build of that shape
shipped the fetched project's ``sampling_params.py`` over the package's, so what it installs
may stand anywhere in the package, and nothing could be matched.

A string naming CMake counts wherever it may reach a program's command line (an argument, a
list, a variable, a default, a return value: the shapes are too many to list, and one missed
is a pass), except where it is a requirement, which installs a package and runs nothing
(setupstop76: ``setup_requires=["cmake"]`` stopped the check): a string held only as data
(in a list, tuple, set or dict, never through a call) by a requirement argument of a call (``install_requires``, ``setup_requires``, ``extras_require`` …), directly or through
names nothing else reads (``REQUIRES = ["cmake"]``, ``REQUIRES.append("cmake")``). Only
setuptools', distutils' and scikit-build's ``setup`` count, and only in a script that reads
neither its requirements back (``self.distribution.setup_requires``, ``getattr``) nor its
variables by a name no `ast.Name` shows (``globals()``, ``sys._getframe().f_globals``):
review76f, each ran a required ``cmake`` and passed, exit 0. A specifier is such a string
too, not a requirement wherever it stands: ``os.system("cmake >= 3.26")`` configures the
directory ``3.26``, ``"cmake @ native"`` the directory ``native`` (review76f: both passed)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

_PROGRAMS = frozenset({"cmake", "cmake3", "cmake.exe"})
"""CMake's program names, as a command's first word (after any directory)."""

_REQUIREMENT_ARGUMENTS = frozenset(
    {"install_requires", "setup_requires", "tests_require", "extras_require", "requires"}
)
"""setuptools' (and distutils') arguments whose strings are requirements, installed not run."""

_LIST_METHODS = frozenset({"append", "extend", "insert"})
"""A list's methods that add to it: ``REQUIRES.append("cmake")`` is still a requirement."""

_NAMESPACE_READERS = frozenset(
    {
        "globals",
        "locals",
        "vars",
        "eval",
        "exec",
        "getattr",
        "setattr",
        "attrgetter",
        "__import__",
        "getmembers",
    }
)
"""Calls that read (or set) a variable or attribute by a name no `ast.Name` shows: no name is
then taken as data."""

_HOOKS = frozenset({"fetch_build_eggs", "fetch_build_egg", "_install_setup_requires"})
"""setuptools' methods that install ``setup_requires``: one the script defines or sets runs
them as it likes (``class D(Distribution): def fetch_build_eggs(self, requires): …``)."""

_READ_BACK = (
    _REQUIREMENT_ARGUMENTS
    | _HOOKS
    | {
        "get_requires",
        "f_globals",
        "f_locals",
        "__dict__",
        "__globals__",
        "__getattribute__",
        "modules",
    }
)
"""Attributes that read a requirement back from setuptools' distribution (a command class's
``self.distribution.setup_requires``) or a module's variables (a frame's ``f_globals``,
``sys.modules[__name__]``): a requirement may then be a command line."""

_SETUP_MODULES = frozenset({"setuptools", "distutils", "skbuild", "numpy"})
"""Packages whose ``setup`` installs requirements and runs none (``numpy.distutils``)."""

_SUBMODULES = frozenset({"core", "distutils"})
"""The modules between a package of `_SETUP_MODULES` and its ``setup`` (``distutils.core``)."""

_Place = tuple[str, frozenset[str]]
"""Where a data value ends up: ("requirement", {}), ("names", the names it is stored in, or
whose list it is added to), or ("other", {}): anywhere else."""


@dataclass(frozen=True)
class _Tree:
    """Each node's parent, and where the data around it ends: (the outermost list, tuple, set,
    dict, ``+``, ``*`` or branch holding it, what holds that), one walk of the module, not one
    walk up per string and name (review76f: 256 KiB of ``a+a+…`` chains took 23 s)."""

    parents: dict[ast.AST, ast.AST]
    ends: dict[ast.AST, tuple[ast.AST, ast.AST]]
    setups: frozenset[str] = frozenset()
    """Names bound only by an import of `_SETUP_MODULES` (``import setuptools as st``), or of
    their ``setup`` (``from setuptools import setup as build``): ``st.setup(…)`` and
    ``build(…)`` call setuptools' ``setup`` (cmake77: they stopped the check)."""

    @classmethod
    def of(cls, module: ast.Module) -> _Tree:
        parents: dict[ast.AST, ast.AST] = {}
        ends: dict[ast.AST, tuple[ast.AST, ast.AST]] = {}
        for node in ast.walk(module):  # breadth first: a parent before its children
            for child in ast.iter_child_nodes(node):
                parents[child] = node
                held = node in ends and _holds_as_data(node, child)
                ends[child] = ends[node] if held else (child, node)
        return cls(parents, ends, _setup_names(module))


def cmake_line(module: ast.Module | None) -> int | None:
    """The first line of a parsed ``setup.py`` naming CMake as a program to run (a string
    or bytes whose first word is ``cmake``, as in ``["cmake", "--install", …]`` or ``"cmake
    --build ."``, that is not a requirement), or importing the ``cmake`` package (PyPI's, which
    holds the program); None where it names none. A ``setup.py`` that does not parse (None) is read
    elsewhere."""
    if module is None:
        return None
    named, lines = [], []
    for node in ast.walk(module):
        if isinstance(node, ast.Constant) and _constant_names_cmake(node):
            named.append(node)
        elif isinstance(node, ast.Import | ast.ImportFrom) and _imports_cmake(node):
            lines.append(node.lineno)
    if named:  # where each string ends up, read only where one names CMake
        tree = _Tree.of(module)
        trusted = not any(map(_unreadable, ast.walk(module)))
        data = _data_names(module, tree) if trusted else None
        lines += [node.lineno for node in named if not _held(node, tree, data)]
    return min(lines, default=None)


def may_name_cmake(node: ast.AST) -> bool:
    """Whether `node` is what `cmake_line` reads further: a string or bytes whose first word
    is CMake's program, or an import of the ``cmake`` package. A module with none has no line
    (cython78: one walk of an imported module decides, not `cmake_line`'s own)."""
    if isinstance(node, ast.Constant):
        return _constant_names_cmake(node)
    return isinstance(node, ast.Import | ast.ImportFrom) and _imports_cmake(node)


def _constant_names_cmake(node: ast.Constant) -> bool:
    value = node.value  # review76a: ``[b"cmake", …]`` runs it as well
    if not isinstance(value, str | bytes):
        return False
    return _names_cmake(value.decode("latin-1") if isinstance(value, bytes) else value)


def _names_cmake(text: str) -> bool:
    words = text.split(maxsplit=1)
    return bool(words) and words[0].replace("\\", "/").rsplit("/", 1)[-1] in _PROGRAMS


def _held(node: ast.Constant, tree: _Tree, data: set[str] | None) -> bool:
    """Whether the string `node` is data a requirement argument holds, directly or through
    names only such arguments read (`data`; None where the script's own ``setup`` or its
    reading of variables by name leaves no argument or name known for one)."""
    return data is not None and _within(_place(node, tree), data)


def _place(node: ast.AST, tree: _Tree) -> _Place:
    """Where the value `node` ends up, through the data around it (lists, tuples, sets, dicts,
    ``+``, ``*``, a conditional's branches), never through a call."""
    child, parent = tree.ends.get(node, (node, None))
    if isinstance(parent, ast.keyword) and parent.arg in _REQUIREMENT_ARGUMENTS:
        calls = _calls_setup(tree.parents.get(parent), tree.setups)
        return ("requirement" if calls else "other"), frozenset()
    if isinstance(parent, ast.Assign | ast.AnnAssign | ast.AugAssign) and child is parent.value:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        names = [target.id for target in targets if isinstance(target, ast.Name)]
        if len(names) == len(targets):
            return "names", frozenset(names)
    if isinstance(parent, ast.Call) and child in parent.args and (added := _added_to(parent)):
        return "names", frozenset({added})
    return "other", frozenset()


def _calls_setup(call: ast.AST | None, setups: frozenset[str]) -> bool:
    """Whether `call` calls ``setup(…)`` or ``….setup(…)`` of a module `setups` names (or
    ``setup`` by a name it holds): another function's ``requires=`` may be a command line it
    runs."""
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "setup":
        func = func.value  # setuptools.setup, st.setup
        while isinstance(func, ast.Attribute) and func.attr in _SUBMODULES:
            func = func.value  # distutils.core.setup, numpy.distutils.core.setup
        return isinstance(func, ast.Name) and func.id in setups
    return isinstance(func, ast.Name) and (func.id == "setup" or func.id in setups)


def _setup_names(module: ast.Module) -> frozenset[str]:
    """The names `module` binds only by importing a module of `_SETUP_MODULES` (``import
    setuptools as st``, ``import distutils.core``, ``from distutils import core``) or its
    ``setup`` under another name; none bound another way too (``import helpers as
    setuptools``, ``st = …``, a function's argument): a ``setup`` there is not setuptools'."""
    good: set[str] = set()
    bad: set[str] = set()
    stored: set[str] = set()  # st.x = …: what ``st.x.setup`` or ``from st import x`` gets
    for node in ast.walk(module):
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            stored |= {base.id} if isinstance(base, ast.Name) else set()
            stored |= {node.attr} & _SUBMODULES  # x = distutils; x.core = …
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                ours = alias.name.split(".")[0] in _SETUP_MODULES
                (good if ours else bad).add(bound)
        elif isinstance(node, ast.ImportFrom):
            ours = not node.level and (node.module or "").split(".")[0] in _SETUP_MODULES
            for alias in node.names:
                bound = alias.asname or alias.name
                (good if ours and (alias.name == "setup" or alias.name == "core") else bad).add(
                    bound
                )
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bad.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bad.add(node.name)
        elif isinstance(node, ast.arg):
            bad.add(node.arg)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            bad.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bad.add(node.rest)
    if stored & (good | _SUBMODULES):  # review77b: ``st.x = SimpleNamespace(setup=run)``
        return frozenset()
    return frozenset(good - bad)


def _holds_as_data(parent: ast.AST, child: ast.AST) -> bool:
    if isinstance(parent, ast.List | ast.Tuple | ast.Set | ast.Dict | ast.Starred):
        return True
    if isinstance(parent, ast.BinOp):
        return isinstance(parent.op, ast.Add | ast.Mult)
    return isinstance(parent, ast.IfExp) and child is not parent.test


def _added_to(call: ast.Call) -> str | None:
    """``NAME`` of ``NAME.append(…)``, ``NAME.extend(…)``, ``NAME.insert(…)``, else None."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _LIST_METHODS:
        return func.value.id if isinstance(func.value, ast.Name) else None
    return None


def _data_names(module: ast.Module, tree: _Tree) -> set[str]:
    """The names read only as requirements' data: each read of one ends in a requirement
    argument, in another such name, or adds to its own list; none where the module reads
    its variables by name (``globals()``, ``eval`` …)."""
    reads: dict[str, list[_Place]] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            reads.setdefault(node.id, []).append(_read_place(node, tree))
    data = {name for name, places in reads.items() if any(p[0] == "requirement" for p in places)}
    data |= {name for name, places in reads.items() if any(p[0] == "names" for p in places)}
    readers: dict[str, set[str]] = {}  # a name -> the names a read of which ends in it
    for name, places in reads.items():
        for target in (target for _kind, names in places for target in names):
            readers.setdefault(target, set()).add(name)
    # the largest set whose every read stays inside it, each name dropped once (review76f: a
    # pass per name dropped took 58 s on a 256 KiB chain ``a0=[a1]``, ``a1=[a2]`` …)
    dropped = [name for name in data if not all(_within(p, data) for p in reads[name])]
    data -= set(dropped)
    while dropped:
        fallen = readers.get(dropped.pop(), set()) & data
        data -= fallen
        dropped += fallen
    return data


def _unreadable(node: ast.AST) -> bool:
    """A ``setup`` of the script's own (a function, a class, a name bound or imported as one,
    or imported from a module other than setuptools'), whose ``requires=`` may be a command
    line it runs, a read of variables by a name no `ast.Name` shows (``globals()``, ``eval``,
    a frame's ``f_globals`` …) or of a requirement back (``self.distribution.setup_requires``,
    ``attrs["setup_requires"]``), or setuptools' own ``setup`` or installing of requirements
    replaced (``setuptools.setup = …``, a ``fetch_build_eggs`` of the script's)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name == "setup" or node.name in _HOOKS
    if isinstance(node, ast.Constant):  # attrs["setup_requires"] in a Distribution's __init__
        return isinstance(node.value, str) and node.value in _REQUIREMENT_ARGUMENTS
    if isinstance(node, ast.alias):
        return node.asname == "setup" and node.name != "setup"
    if isinstance(node, ast.ImportFrom):  # a `setup` (or `*`) from another module
        source = "" if node.level else (node.module or "").split(".")[0]
        taken = {alias.asname or alias.name for alias in node.names}
        return source not in _SETUP_MODULES and bool(taken & {"setup", "*"})
    if isinstance(node, ast.Import):
        return any(alias.name == "__main__" for alias in node.names)
    if isinstance(node, ast.Attribute):  # also `setuptools.setup = …`, `operator.attrgetter`
        read = node.attr in _READ_BACK or node.attr in _NAMESPACE_READERS
        return read or (node.attr == "setup" and _bound(node.ctx))
    if isinstance(node, ast.keyword):  # a Distribution of its own reads every argument
        return node.arg == "distclass"
    if isinstance(node, ast.Name):
        return (node.id == "setup" and _bound(node.ctx)) or node.id in _NAMESPACE_READERS
    return False


def _bound(context: ast.expr_context) -> bool:
    return not isinstance(context, ast.Load)


def _read_place(node: ast.Name, tree: _Tree) -> _Place:
    parent = tree.parents.get(node)
    if isinstance(parent, ast.Attribute) and parent.attr in _LIST_METHODS:
        call = tree.parents.get(parent)
        if isinstance(call, ast.Call) and call.func is parent:
            return "names", frozenset({node.id})  # adds to its own list
    return _place(node, tree)


def _within(place: _Place, data: set[str]) -> bool:
    kind, names = place
    return kind == "requirement" or (kind == "names" and names <= data)


def _imports_cmake(node: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(node, ast.ImportFrom):
        names = [] if node.level else [node.module or ""]
    else:
        names = [alias.name for alias in node.names]
    return any(name == "cmake" or name.startswith("cmake.") for name in names)
