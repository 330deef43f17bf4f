"""Names a module the build runs imports from an installed package and passes on as values.

A command class of an installed package reaches ``setup(cmdclass=…)`` by more than a literal
mapping naming it (`setuppyinstalled`): ``class Build(BuildExtension)`` of ``setup.py``, a
mapping bound to a name (``CMDS = {…}; setup(cmdclass=CMDS)``), ``cmds["build_ext"] = …``,
``from cmake_build_extension import *``, ``__import__("cmake_build_extension")``, or a module of the project importing it for
``setup.py`` or ``setup.cfg`` to name (``helpers.py``: ``from cmake_build_extension import
BuildExtension``). Each passed, exit 0 (review78f). So a name that ``setup.py`` or a module
it imports in turn imports from a package the commit holds no file of (neither the standard
library nor a package known to run no CMake) stops the run where it is used other than by
calling, comparing or testing it, reading a dunder of it or naming it in an ``except`` clause
(``Version(v)``, ``tomli.load(f)``, ``if cffi:``, ``cffi.__version__``, ``except
tomllib.TOMLDecodeError``): a base class, a value, an argument, or not at all (which
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
from dataclasses import dataclass

from k3diff.escape import shortened
from k3diff.provenance.setuppyimports import loaded_name
from k3diff.provenance.setuppyinstalled import KNOWN, unread_package


@dataclass(frozen=True)
class ValueUses:
    """What one walk of a parsed module finds of the names it imports from packages outside
    the standard library and `KNOWN`, whichever the commit holds (`installed_value` asks)."""

    direct: tuple[tuple[str, str, int, str], ...]
    """(name, module, line, how) of each ``import *`` and literal ``import_module`` /
    ``__import__``, which pass on whatever the package holds, in the walk's order."""
    bindings: tuple[tuple[str, str, int], ...]
    """(name bound, module, line) of each other import, in the walk's order."""
    passed: tuple[tuple[str, int], ...]
    """(name, line) of the first use of each bound name other than calling, comparing, testing
    it or reading a dunder of it (`_not_passed_on`), in the walk's order."""
    used: frozenset[str]
    """The bound names used at all."""
    imported: bool
    """Whether a name imported and not used counts (a module imported, not ``setup.py``)."""


def installed_value(
    module: ast.Module, path: str, held: Callable[[str], bool], imported: bool = True
) -> str | None:
    """Why the parsed `module` (at `path`) may pass on a class of an installed package (one
    `held` says the commit holds no file of): ``helpers.py line 1: BuildExtension, from
    cmake_build_extension, is used as a value, not only called; cmake_build_extension is a
    package the commit holds no file of …`` (`unread_package`); None where every such name is
    only called, compared or tested. A name imported and not used counts only where the module
    is `imported` (not ``setup.py``, which runs as ``__main__``: no module imports a name from
    it)."""
    return first_installed(value_uses(module, imported), path, held)


def first_installed(uses: ValueUses, path: str, held: Callable[[str], bool]) -> str | None:
    """`installed_value` of the module whose `uses` are read, at `path`."""
    for name, package, line, how in uses.direct:
        if installed_package(package, held):
            return _said(path, line, name, package, how)
    bound = {
        name: (package, line)
        for name, package, line in uses.bindings
        if installed_package(package, held)
    }
    for name, line in uses.passed:
        if name in bound:
            return _said(path, line, name, bound[name][0], "is used as a value, not only called")
    for name, (package, line) in bound.items() if uses.imported else ():
        if name not in uses.used:
            return _said(path, line, name, package, "is imported and not used (another module may)")
    return None


def value_uses(module: ast.Module, imported: bool = True) -> ValueUses:
    """The `ValueUses` of the parsed `module`, in one walk (review78f's rule walked it three
    times, after `setuppyimports.scan_module`'s own)."""
    direct: list[tuple[str, str, int, str]] = []
    bindings: list[tuple[str, str, int]] = []
    loads: list[ast.Name] = []
    found: set[int] = set()
    tests: list[ast.expr] = []
    for node in ast.walk(module):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loads.append(node)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if _outside(node.module):
                for alias in node.names:
                    if alias.name == "*":
                        direct.append(("*", node.module, node.lineno, "is imported entirely"))
                    else:
                        bindings.append((alias.asname or alias.name, node.module, node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _outside(alias.name):
                    bound = alias.asname or alias.name.split(".")[0]
                    bindings.append((bound, alias.name, node.lineno))
        else:
            if (name := loaded_name(node)) is not None and _outside(name):
                line = getattr(node, "lineno", 0)  # `__import__("cbe").BuildExtension`: any use
                direct.append((name, name, line, "is imported by name"))
            _not_passed_on(node, found, tests)
    _tested(tests, found)
    names = {name for name, _package, _line in bindings}
    named = [node for node in loads if node.id in names]
    first: dict[str, int] = {}  # the first use of each name decides: `first_installed`
    for node in named:
        if id(node) not in found:
            first.setdefault(node.id, node.lineno)
    passed = tuple(first.items())
    used = frozenset(node.id for node in named)
    return ValueUses(tuple(direct), tuple(bindings), passed, used, imported)


def _not_passed_on(node: ast.AST, found: set[int], tests: list[ast.expr]) -> None:
    """Add to `found` the ids of the names `node` uses without passing their value on: called
    (the root of ``a.b(…)`` too), compared (``x is None``), or whose dunder attribute is read
    (zstandard's ``cffi.__version__``), or an ``except`` clause matches (versioneer 0.29's
    ``except (tomllib.TOMLDecodeError, KeyError)``, review80c); add to `tests` what it tests
    (`_tested`)."""
    if isinstance(node, ast.ExceptHandler) and node.type is not None:
        caught = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
        for base in caught:
            while isinstance(base, ast.Attribute):
                base = base.value
            found.add(id(base))
    elif isinstance(node, ast.Call):
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


def _tested(tests: list[ast.expr], found: set[int]) -> None:
    """Add to `found` the ids of what `tests` test (``if cffi:``, ``not x``, ``a and b`` of a
    test: zstandard's ``if CFFI_BACKEND and cffi:`` of an optional import)."""
    while tests:
        test = tests.pop()
        found.add(id(test))
        if isinstance(test, ast.BoolOp):
            tests += test.values
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            tests.append(test.operand)


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

OTHER_STDLIB = frozenset(
    {
        *("aifc", "asynchat", "asyncore", "audioop", "cgi", "cgitb", "chunk", "crypt"),
        *("distutils", "imghdr", "imp", "lib2to3", "mailcap", "msilib", "nis", "nntplib"),
        *("ossaudiodev", "pipes", "smtpd", "sndhdr", "spwd", "sunau", "telnetlib", "uu"),
        *("xdrlib", "_bootsubprocess", "_crypt", "_msi", "_sha256", "_sha512"),
        *("_android_support", "_colorize", "_interpchannels", "_interpqueues", "_interpreters"),
        *("_ios_support", "_opcode_metadata", "_pydatetime", "_pylong", "_pyrepl", "_sha2"),
        *("_suggestions", "_sysconfig", "_wmi"),
        *("annotationlib", "compression", "_zstd", "_hmac", "_remote_debugging"),
        "__main__",
    }
)
"""Top-level modules of the standard library of a Python 3.11 to 3.14 that the one k3diff runs
on may lack from its ``sys.stdlib_module_names``: those 3.12 and 3.13 removed (``imp``,
``asyncore``, ``cgi`` …) and those 3.12 to 3.14 added (3.14's ``compression``). Which Python
ran k3diff decided the verdict: Cython 3.2.1's ``Cython/Compiler/Code.py`` does ``from
compression.zstd import compress as zstd_compress`` (3.14's, in ``try:``) and passes it to
``partial``, which stopped the run under Python 3.11 as an installed package's (cython80). And
``__main__``, the script running (``setup.py``, the commit's): Cython's
``pyximport/pyximport.py`` does ``import __main__``."""


def _outside(name: str) -> bool:
    """Whether the module `name` is neither the standard library's (of any Python 3.11 to
    3.14, `OTHER_STDLIB`, and Python 2's) nor of a package known to run no CMake (`KNOWN`)."""
    top = name.split(".")[0]
    stdlib = top in sys.stdlib_module_names or top in OTHER_STDLIB or top in PYTHON2_STDLIB
    return top not in KNOWN and not stdlib


def installed_package(name: str, held: Callable[[str], bool]) -> bool:
    """Whether the module `name` is an installed package's that may provide a command class."""
    return _outside(name) and not held(name)


def _said(path: str, line: int, name: str, package: str, how: str) -> str:
    fact = f"{path} line {line}: {shortened(name, 100)}, from {shortened(package, 100)}, {how}"
    return unread_package(fact, package)
