"""Which names some system a wheel installs on reads as code, each system by its own way with
case and suffixes (`extplatforms.case_rule`): the module a file is (`module_name`, W628's),
bytecode (`read_blind`), a `sitecustomize` or `usercustomize` module (`customize_module`)."""

from __future__ import annotations

import posixpath

from k3diff.wheel.extplatforms import CaseRule
from k3diff.wheel.extsuffix import EXTENSIONS, bare, module_abi

CUSTOMIZE = ("sitecustomize", "usercustomize")


def customize_module(inner: str, case: CaseRule) -> bool:
    """Whether `site` may import the file at `inner` (under site-packages) as `sitecustomize` or
    `usercustomize`, or the package it imports so may run it: a file of package `sitecustomize/`
    (the directory's name as the finder matches it, as written: `sitecustomize.py/x` is none),
    any of whose files its `__init__`, this wheel's or another's, may import, so every file
    there counts (`sitecustomize/__INIT__.py` too, which is a package's `__init__` where paths
    open in any case and a module of the package elsewhere); or a module file some system the
    wheel installs on loads as that module (`module_name`), so a Linux or macOS wheel's
    `sitecustomize.PY` or `.pyw`, and any wheel's `sitecustomize.txt` or
    `sitecustomize.py.orig`, is data (w629c: the last two were W702); a Windows debug build's
    `sitecustomize_d.pyd` is a module (it was data)."""
    top, below, _ = inner.partition("/")
    if below:
        return top in CUSTOMIZE
    return not loaded_names(top, case).isdisjoint(CUSTOMIZE)


def loaded_names(filename: str, case: CaseRule) -> set[str]:
    """The modules some system `case` describes loads a file of a package directory as
    (`module_name`; `__init__` for a package's): a Windows debug build's `NAME_d.pyd` as `NAME`
    too (`dynload_win.c`)."""
    found: set[str] = set()
    for system in case.systems():
        name = module_name(filename, system)
        if name is not None:
            found.add(name)
            if system.suffix_blind and filename.lower().endswith(".pyd"):
                found.add(name.removesuffix("_d"))
    return found


def listed_name(filename: str, case: CaseRule) -> str:
    """A file's name as the import system of `case` lists it to match a module's: its suffix,
    after the first dot, lowered where it lowers one (Windows: `FileFinder._fill_cache`), as
    written elsewhere."""
    if not case.suffix_blind:
        return filename
    name, dot, suffix = filename.partition(".")
    return f"{name}{dot}{suffix.lower()}"


_POSIX_SUFFIXES = (".py", ".pyc", ".so")
"""A file the path finder on Linux or macOS may load as a module: source, sourceless bytecode,
an extension (`NAME.so`, `NAME.cpython-311-x86_64-linux-gnu.so`, `NAME.abi3.so`)."""
_WINDOWS_SUFFIXES = (".py", ".pyw", ".pyc", ".pyd")
"""On Windows: `.pyw` is source too (importlib's `SOURCE_SUFFIXES` there), and an extension is
a `.pyd` (`NAME.cp311-win_amd64.pyd`), never a `.so`."""
_DLL_SUFFIXES = (".py", ".pyc", ".dll")
"""On Cygwin and MSYS2: an extension is a `.dll` (`dynload_shlib.c` under `__CYGWIN__`)."""


def module_name(filename: str, case: CaseRule) -> str | None:
    """The module a file in a package directory is importable as on the one system `case`
    describes, or None when it is none. Windows lowers a name's suffix, after its first dot,
    before it matches it (`listed_name`), reads `.pyw` as source and loads `.pyd` extensions
    alone; Cygwin and MSYS2 `.dll` alone; Linux and macOS `.so` alone (review69: a `.pyd` kept
    a package on Linux, a `.so` on Windows, and the module it had shadowed ran unsaid). Where paths open in any case (macOS,
    Windows), `FileFinder` checks a package's `__init__` by its path, so `__INIT__.py` is the
    package's `__init__` (the module's own name it matches in the directory's listing, as
    written)."""
    filename = listed_name(filename, case)
    folded = filename.lower()
    if case.path_blind and folded.partition(".")[0] == "__init__" and _loads(folded, case):
        return "__init__"  # opened by its path, in any case
    if not _loads(filename, case):
        return None
    return filename.partition(".")[0] or None


def _loads(filename: str, case: CaseRule) -> bool:
    """Whether a loader of the system of `case` takes a file of this name: its suffix one of the
    loaders', an extension's one some Python there loads (`_loaded_extension`)."""
    if case.dll:  # any `.dll`: upstream lists `.dll`, Cygwin's own build names its modules
        return filename.endswith(_DLL_SUFFIXES)  # `NAME.cpython-39-x86_64-cygwin.dll`
    suffixes = _WINDOWS_SUFFIXES if case.suffix_blind else _POSIX_SUFFIXES
    return filename.endswith(suffixes) and (
        not filename.endswith(EXTENSIONS) or _loaded_extension(filename, case)
    )


def _loaded_extension(filename: str, case: CaseRule) -> bool:
    """Whether some Python of the system of `case` loads a `.so` or `.pyd` as an extension: a
    bare one, or one whose suffix names an ABI (`extsuffix.module_abi`); `m.foo.so` or
    `m.CPYTHON-311-x86_64-linux-gnu.so` no Python loads (review69: a kept `__init__.foo.so` kept
    the package, and the module it had shadowed ran unsaid)."""
    if bare(filename, case.suffix_blind) is not None:
        return True
    abi = module_abi(filename, case.suffix_blind)[1]
    return abi is not None and abi.kind != "cased"


def read_blind(path: str, case: CaseRule) -> bool | None:
    """Whether some system `case` describes reads the file at `path` as bytecode: True as a
    cache under a `__pycache__` in any case, where paths open in any case (its source found in
    any case too); False as written (`.pyc`, `.pyo`, which no Python since 3.5 opens: PEP 488;
    a legacy `m.PYC` where suffixes are lowered); None when none does (`.PYC` on Linux alone)."""
    suffix = path[-4:]
    if suffix == ".pyo":
        return False
    if suffix.lower() != ".pyc":
        return None
    if case.path_blind and cache_directory(path).lower() == "__pycache__":
        return True
    return False if suffix == ".pyc" or case.suffix_blind else None


def cache_directory(path: str) -> str:
    """The name of the directory holding `path`."""
    return posixpath.basename(posixpath.dirname(path))
