"""The project's modules a module imports in turn, for the readers of what ``setup.py`` runs.

A ``setup.py`` importing ``build_helpers``, which imports ``_cmake``, whose command class runs
``cmake --install`` over the package: only the modules ``setup.py`` imports itself were read,
and a wheel keeping the old file passed, exit 0 (source78). So are relative imports of a
module (``from .tools import x``: its package's ``tools.py``, ``tools/__init__.py``,
``tools/x.py``) and ``importlib.import_module("NAME")`` / ``__import__("NAME")`` of a literal
name, anywhere in it. An absolute name is looked for where ``setup.py``'s own imports are (its
directory and the ``sys.path`` entries it adds, `setuppypaths`); a name the commit holds no file
of is an installed package's, not the project's. A name computed (``import_module(name)``),
``exec`` of a file's text or ``runpy`` is not read.
"""

from __future__ import annotations

import ast
import io
import posixpath
import re
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from k3diff.provenance.setuppycmake import may_name_cmake

IMPORT_DEPTH_CAP = 8
"""Most imports followed one inside another from what ``setup.py`` imports; a module deeper
stops the run (each level is one batch of git reads)."""
FOLLOWED_CAP = 128
"""Most modules read as of one ``setup.py`` (or command class), those imported in turn
included; more stop the run."""
FOLLOWED_BYTES_CAP = 8 * 1024 * 1024
"""Most bytes of those modules, all together; more stop the run (what is read and counted
before `FOLLOWED_WORDS_CAP`). Cython 3.3.2's ``setup.py`` imports its own compiler (``from
Cython import __version__``, ``Cython.Distutils``): 3.4 MiB, which stopped its check over
source78's 1 MiB (cython78)."""
FOLLOWED_WORDS_CAP = 1_000_000
"""Most words and marks (`word_count`) of those modules, all together, counted before they are
parsed; more stop the run. Parsing is what costs, by the word, not the byte: 1 MiB of
``a+a+…`` (a million words) took 3 s to parse and 1 s to walk once, Cython's 3.4 MiB (624,000
words, its docstrings included) 1.3 s (cython78)."""
NAMES_CAP = 8192
"""Most module names those modules import, all together; more stop the run (source78: 255
modules of 16 KiB of ``import a1, a2, …`` lines, 431,432 names looked up at 16 ``sys.path``
entries, took 19 s of CPU)."""
_LOADERS = frozenset({"import_module", "__import__"})
_WORDS = re.compile(r"\w+|[^\w\s]")
_BYTE_WORDS = re.compile(rb"\w+|[^\w\s]")


@dataclass(frozen=True)
class ModuleScan:
    """What one walk of a parsed module finds for the readers of what it imports (source78
    walked each module three times, then once more where it imported nothing relative)."""

    imports: tuple[ast.Import | ast.ImportFrom, ...]
    loaded: tuple[str, ...]
    """The literal names of its ``import_module`` / ``__import__`` calls (`loaded_name`)."""
    cmake: bool
    """Whether a node is one `cmake_line` reads further (`may_name_cmake`)."""


def scan_module(module: ast.Module) -> ModuleScan:
    """`module`'s imports, loaded names and whether it may name CMake, in one walk."""
    imports: list[ast.Import | ast.ImportFrom] = []
    loaded: list[str] = []
    cmake = False
    for node in ast.walk(module):
        if isinstance(node, ast.Import | ast.ImportFrom):
            imports.append(node)
            cmake = cmake or may_name_cmake(node)
        elif isinstance(node, ast.Constant):
            cmake = cmake or may_name_cmake(node)
        elif (name := loaded_name(node)) is not None:
            loaded.append(name)
    return ModuleScan(tuple(imports), tuple(loaded), cmake)


def word_count(data: bytes) -> int:
    """How many words (a run of letters, digits, ``_``) and marks (any other character not
    space) the text `data` decodes to, by its coding cookie as Python reads it, holds: a bound
    on the tokens, and so on the nodes, parsing it makes (review78i: ``# coding: utf-7`` puts a
    line of tokens in one base64 run, one word as bytes). Bytes that do not decode (which do
    not parse either) are counted as bytes."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return _WORDS.subn("", data.decode(encoding))[1]
    except (SyntaxError, LookupError, UnicodeError):
        return _BYTE_WORDS.subn(b"", data)[1]


def imported_names(scan: ModuleScan) -> list[str]:
    """The absolute module names the scanned module imports, anywhere (``from a.b import c``
    names ``a.b`` and ``a.b.c``, which may be a module), literal ``import_module`` names
    included."""
    names = []
    for node in scan.imports:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif not node.level and node.module:
            names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return names + [name for name in scan.loaded if not name.startswith(".")]


def module_files(name: str, directory: str) -> list[str]:
    """The files importing `name` from `directory` ('' or ending in '/') may run: each
    package's ``__init__.py`` and the module's own file."""
    parts = name.split(".")
    found = []
    for n in range(1, len(parts) + 1):
        base = directory + "/".join(parts[:n])
        found += [base + "/__init__.py", base + ".py"]
    return found


def followed_files(
    scan: ModuleScan, package: str | None, places: Sequence[str], known: set[str]
) -> dict[str, str | None]:
    """The files of the commit the scanned module may run by its imports, each with its
    package's directory (`package_of`): absolute names at each of `places`, relative ones from
    `package` (the module's package directory; None for a top-level module, whose relative
    imports fail: psutil's ``setup.py`` imports ``_common`` from ``psutil/``, whose ``from .
    import _ntuples`` it never reaches). A name of `known` (those looked up already) is not
    looked up again; each new one is added to it."""
    found: dict[str, str | None] = {}
    for name in dict.fromkeys(imported_names(scan)):
        if name in known:
            continue
        known.add(name)
        for at in places:
            for file in module_files(name, at):
                found.setdefault(file, package_of(file, at))
    parts = package.split("/") if package else []
    for level, name in () if package is None else _relative(scan):
        if level - 1 > len(parts):
            continue  # above the repository: an ImportError when it runs
        base = "/".join(parts[: len(parts) - (level - 1)])
        at = base + "/" if base else ""
        for file in [*(module_files(name, at) if name else []), f"{at}__init__.py"]:
            found.setdefault(file, posixpath.dirname(file))
    return found


def package_of(file: str, place: str) -> str | None:
    """The package directory of `file` imported from the ``sys.path`` entry `place` ('' or
    ending in '/'): its directory, None where it is a top-level module (``place/NAME.py``)."""
    directory = posixpath.dirname(file)
    return None if (directory + "/" if directory else "") == place else directory


def own_package(path: str, places: Sequence[str]) -> str | None:
    """The package directory of the module at `path` where nothing says how it was imported
    (a command class ``setup.cfg`` names): its directory, None where that is one of
    `places` (a top-level module)."""
    return min(
        (package_of(path, at) for at in places),
        key=lambda p: p is not None,
        default=posixpath.dirname(path),
    )


def _relative(scan: ModuleScan) -> Iterator[tuple[int, str]]:
    """(level, dotted name under that package) of each relative import (``from ..a import b``:
    (2, ``a``) and (2, ``a.b``); ``from . import x``: (1, ``x``))."""
    for node in scan.imports:
        if isinstance(node, ast.ImportFrom) and node.level:
            head = node.module or ""
            yield node.level, head
            for alias in node.names:
                yield node.level, f"{head}.{alias.name}" if head else alias.name


def loaded_name(node: ast.AST) -> str | None:
    """``NAME`` of ``importlib.import_module("NAME")`` or ``__import__("NAME")``."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    first = node.args[0]
    if called not in _LOADERS or not isinstance(first, ast.Constant):
        return None
    return first.value if isinstance(first.value, str) and first.value else None
