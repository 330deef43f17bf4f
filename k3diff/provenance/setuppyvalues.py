"""Names a module the build runs imports from an installed package and passes on as values.

A command class of an installed package reaches ``setup(cmdclass=…)`` by more than a literal
mapping naming it (`setuppyinstalled`): ``class Build(BuildExtension)`` of ``setup.py``, a
mapping bound to a name (``CMDS = {…}; setup(cmdclass=CMDS)``), ``cmds["build_ext"] = …``,
``from cmake_build_extension import *``, ``__import__("cmake_build_extension")``, or a module of the project importing it for
``setup.py`` or ``setup.cfg`` to name (``helpers.py``: ``from cmake_build_extension import
BuildExtension``). Each passed, exit 0 (review78f). So a name that ``setup.py`` or a module
it imports in turn imports from a package the commit holds no file of (neither the standard
library nor a package known to run no CMake) stops the run where it is used other than by
calling, comparing or testing it, or reading a dunder of it (``Version(v)``, ``tomli.load(f)``,
``if cffi:``, ``cffi.__version__``): a base class, a value, an argument, or not at all (which
another module may import from it).

Python 2's standard-library modules that Python 3 removed or renamed (``StringIO``,
``UserDict``, ``ConfigParser`` …, `PYTHON2_STDLIB`) are not installed packages: six's
``else: import StringIO`` of ``if PY3:``, pytz's ``except ImportError: from UserDict import
DictMixin`` and old versioneer's ``import ConfigParser as configparser`` are Python 2 fallbacks
the build never runs, and stopped six 1.17.0, pytz 2025.2 and toolz 1.0.0 (newuser78b). A
build requirement installing a module of one of these names is not read (a known gap, older
than review78f's rule: such a class passed before it).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable

from k3diff.escape import shortened
from k3diff.provenance.setuppyimports import loaded_name
from k3diff.provenance.setuppyinstalled import KNOWN


def installed_value(
    module: ast.Module, path: str, held: Callable[[str], bool], imported: bool = True
) -> str | None:
    """Why the parsed `module` (at `path`) may pass on a class of an installed package (one
    `held` says the commit holds no file of): ``helpers.py line 1: BuildExtension, from
    cmake_build_extension, a package the commit does not hold (installed when it builds), is
    used as a value, not only called``; None where every such name is only called, compared or
    tested. A name imported and not used counts only where the module is `imported` (not
    ``setup.py``, which runs as ``__main__``: no module imports a name from it)."""
    bound: dict[str, tuple[str, int]] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if not _installed(node.module, held):
                continue
            for alias in node.names:
                if alias.name == "*":
                    return _said(path, node.lineno, "*", node.module, "is imported entirely")
                bound[alias.asname or alias.name] = (node.module, node.lineno)
        elif (name := loaded_name(node)) is not None and _installed(name, held):
            line = getattr(node, "lineno", 0)  # `__import__("cbe").BuildExtension`: any use
            return _said(path, line, name, name, "is imported by name")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _installed(alias.name, held):
                    bound[alias.asname or alias.name.split(".")[0]] = (alias.name, node.lineno)
    if not bound:
        return None
    callees = _not_passed_on(module)
    used = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and node.id in bound and isinstance(node.ctx, ast.Load):
            used.add(node.id)
            if id(node) not in callees:
                package, _ = bound[node.id]
                return _said(
                    path, node.lineno, node.id, package, "is used as a value, not only called"
                )
    for name, (package, line) in bound.items() if imported else ():
        if name not in used:
            return _said(path, line, name, package, "is imported and not used (another module may)")
    return None


def _not_passed_on(module: ast.Module) -> set[int]:
    """Ids of the names `module` uses without passing their value on: called (the root of
    ``a.b(…)`` too), compared (``x is None``), tested (``if cffi:``, ``not x``, ``a and b`` of
    a test: zstandard's ``if CFFI_BACKEND and cffi:`` of an optional import), or whose dunder
    attribute is read (zstandard's ``cffi.__version__``)."""
    found: set[int] = set()
    tests: list[ast.expr] = []
    for node in ast.walk(module):
        if isinstance(node, ast.Call):
            func = node.func
            while isinstance(func, ast.Attribute):
                func = func.value
            found.add(id(func))
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__"):
            base = node.value  # `cffi.__version__`: the package's metadata, no class
            while isinstance(base, ast.Attribute):
                base = base.value
            found.add(id(base))
        elif isinstance(node, ast.Compare):
            found |= {id(operand) for operand in (node.left, *node.comparators)}
        elif isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            tests.append(node.test)
    while tests:
        test = tests.pop()
        found.add(id(test))
        if isinstance(test, ast.BoolOp):
            tests += test.values
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            tests.append(test.operand)
    return found


PYTHON2_STDLIB = frozenset(
    {
        *("__builtin__", "anydbm", "BaseHTTPServer", "CGIHTTPServer", "commands", "ConfigParser"),
        *("Cookie", "cookielib", "copy_reg", "cPickle", "cStringIO", "dbhash", "dircache"),
        *("DocXMLRPCServer", "dumbdbm", "dummy_thread", "exceptions", "future_builtins", "gdbm"),
        *("htmlentitydefs", "HTMLParser", "httplib", "markupbase", "md5", "mimetools", "new"),
        *("popen2", "Queue", "repr", "rfc822", "robotparser", "ScrolledText", "sets", "sha"),
        *("SimpleHTTPServer", "SimpleXMLRPCServer", "SocketServer", "StringIO", "thread"),
        *("Tkinter", "tkFileDialog", "tkFont", "tkMessageBox", "tkSimpleDialog", "ttk"),
        *("urllib2", "urlparse", "UserDict", "UserList", "UserString", "whichdb", "xmlrpclib"),
    }
)
"""Top-level modules of Python 2's standard library that Python 3 has not (PEP 3108's)."""


def _installed(name: str, held: Callable[[str], bool]) -> bool:
    """Whether the module `name` is an installed package's that may provide a command class."""
    top = name.split(".")[0]
    stdlib = top in sys.stdlib_module_names or top in PYTHON2_STDLIB
    return top not in KNOWN and not stdlib and not held(name)


def _said(path: str, line: int, name: str, package: str, how: str) -> str:
    return (
        f"{path} line {line}: {shortened(name, 100)}, from {shortened(package, 100)}, a package "
        f"the commit does not hold (installed when it builds), {how}"
    )
