"""Extensions no Python the wheel installs on imports (W629).

An import system finds an extension module `NAME` in a directory by the suffixes of its
`importlib.machinery.EXTENSION_SUFFIXES`, each naming the ABI it loads (PEP 3149):

* CPython on Linux and macOS (`Python/dynload_shlib.c`): `.{SOABI}.so`, `SOABI` being
  `cpython-3Y` with the build's ABI flags (`m` for pymalloc before 3.8, `d` for a debug build,
  `t` for a free-threaded one, PEP 703) and the platform (`.cpython-313t-x86_64-linux-gnu.so`,
  `.cpython-313-darwin.so`); then, on a build with the GIL, the stable ABI's `.abi3.so` (3.15
  adds `.abi3-PLATFORM.so`); on 3.15 and later, either build, `.abi3t.so` and
  `.abi3t-PLATFORM.so` (PEP 803); then `.so`. A free-threaded 3.13 or 3.14 lists `.abi3.so`
  too, but an abi3 extension crashes it (cpython#120901), and 3.15 drops it (cpython#146636);
  pip never installs an abi3 tag there (packaging's `_abi3_applies`), so it is not counted.
* CPython on Windows (`Python/dynload_win.c`): `.cp3Y-PLATFORM.pyd`, `t` after the version on
  a free-threaded build (`.cp313t-win_amd64.pyd`), `_d` before it on a debug one
  (`_d.cp313-win_amd64.pyd`: `_C_d.cp313-win_amd64.pyd` is module `_C`'s); then `.pyd`
  (`_d.pyd` on a debug one).
* PyPy: `.pypy3Y-pp73-PLATFORM.so` (`.pyd` on Windows) alone: no stable ABI, no bare `.so`
  (pypy/pypy#4011). GraalPy: its own ABI's (`.graalpy242-311-native-x86_64-linux.so`).

A file's suffix so names the Pythons that find it, read as packaging reads the running
interpreter's ABI tag from its `EXT_SUFFIX` (`tags._generic_abi`). pip installs a wheel on a
Python when packaging lists one of its tags there (`k3diff.wheel.systems.installs_on`: the
interpreters its tags name, CPython up to a horizon that stands for every later one, and
narrowed by the wheel's own `Requires-Python`, which pip checks too). A module none of whose
files a Python the wheel installs on finds is missing there: `import pkg._C` fails though the
wheel installed. A `cp313-cp313` wheel holding only `_C.cpython-313t-….so`, a `py3-none` one
holding only `.cpython-311-….so` (PyPy, free-threaded builds and every other version) or only
PyPy's names, a `cp313-cp313t` one holding only `.abi3.so`.

A module with a file of no ABI's name (`_C.so`, `_C.pyd`) is not judged: CPython finds it
everywhere, and a library loaded by `ctypes` is named so too (PyPy, which finds no bare `.so`,
is not judged for it); nor one with a source (`_C.py`, `_C/__init__.py`), which a Python finds
where it finds no extension. Python on Windows loads `.pyd` files alone, elsewhere `.so` files
alone: a wheel whose tags install it on Windows alone (`win_amd64`) counts its `.pyd` files, one
whose tags name no Windows platform (nor `any`) its `.so` files (review67b: a `cp313-cp313-
win_amd64` wheel holding `_C.cpython-313-x86_64-linux-gnu.so` alone passed). A suffix's
platform (`x86_64-linux-gnu`, `darwin`, `win_amd64`) is the one system whose Python finds it:
where the tags install on one system (`manylinux_2_17_x86_64`: `x86_64-linux`; `macosx_…`:
`darwin`), a file named for another counts for none (a cross-build under the host's tag).
A file whose suffix k3diff does not read (`_C.foo.so`) is found by no import system as the
module, so it neither counts for the module nor spares it (review67b). An ABI's suffix in
another case (`_C.CPYTHON-313-….so`) is found as the ABI's under macOS or Windows tags alone,
whose file systems ignore case; under Linux's it is found by none (left67c: alone, it passed). A name of two suffixes is read by its
last (mpi4py's `MPI.mpich.cpython-311-….so`, which its package loads itself). A debug build
is judged only where a tag names its ABI (`cp313d`): packaging gives it the release build's
tags too, whose files it does not find, which is the debug build's limit, not the wheel's. The module is the installed
path up to the file name's first dot, in site-packages (purelib and platlib alike). In an abi3
wheel, a module with a file named for one CPython version is A123/W625's (`k3diff.wheel.abi3`).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from functools import cache
from itertools import compress, repeat
from typing import NamedTuple

from k3diff.lazyre import lazy
from k3diff.wheel.installed import InstalledFile
from k3diff.wheel.requirespython import open_from, python_admits
from k3diff.wheel.tagplatforms import NEWEST
from k3diff.wheel.targets import version_number

Python = tuple[str, str]
"""An interpreter and its ABI, as packaging tags them: (`cp313`, `cp313t`), (`pp310`,
`pypy310_pp73`)."""

_SUFFIX = lazy(r"\.([^./]+)\.(so|pyd)$")
_CPYTHON = lazy(r"cpython-3(\d+)([a-z]*)(?:-[^.]+)?")  # 3.2-3.4: `.cpython-34m.so`
_WINDOWS = lazy(r"cp3(\d+)(t?)-win[^.]*")
_STABLE = lazy(r"abi3(t?)(-[^.]+)?")
_PYPY = lazy(r"pypy3(\d+)-(pp\d+)(?:-[^.]+)?")
_MARKS = (".cpython-3", ".cp3", ".abi3", ".pypy", ".graalpy")
_EXTENSION = (".so", ".pyd")
_SOURCE = ".py"  # not a sourceless `.pyc`: one version loads it
_MODULES = ("purelib", "platlib")
_DEBUG = "_d"
"""What a Windows debug build's tagged suffix starts with (`_d.cp313-win_amd64.pyd`)."""
_PATH = operator.itemgetter(2)


class FileAbi(NamedTuple):
    """The ABI an extension's file name names, as its suffix says it."""

    kind: str
    """`cpython` (a POSIX SOABI), `windows` (a tagged `.pyd`), `stable` (abi3 or abi3t),
    `pypy`, `graalpy`, or `cased` (an ABI's in another case, under case-sensitive tags)."""
    minor: int
    """The Python 3 minor version named; for `stable`, the first CPython that finds it."""
    abi: str
    """`cpython`, `windows`: the ABI flags (`t`, `d`); `stable`: `abi3` or `abi3t`; `pypy`,
    `graalpy`: the ABI tag (`pypy310_pp73`, `graalpy242_311_native`)."""

    def finds(self, python: Python) -> bool:
        """True when the import system of `python` finds a file of this name."""
        interpreter, abi = python
        if self.kind == "cased":
            return False
        if self.kind == "pypy" or self.kind == "graalpy":
            return abi == self.abi
        if not interpreter.startswith("cp") or not abi.startswith(interpreter):
            return False
        minor, flags = version_number(interpreter[3:] or "0"), abi.removeprefix(interpreter)
        if self.kind == "stable":
            return minor >= self.minor and (self.abi == "abi3t" or "t" not in flags)
        if self.kind == "windows":  # no pymalloc flag in a .pyd's name
            flags = flags.removesuffix("m")
        return minor == self.minor and flags == self.abi

    def named(self) -> Python | str:
        """The one Python the name is for, or the stable ABI it is for said."""
        if self.kind == "cased":
            return f"'.{self.abi}' (a case no case-sensitive import finds)"
        if self.kind == "stable":
            return "CPython 3.15+ (abi3t)" if self.abi == "abi3t" else "the stable ABI (abi3)"
        if self.kind == "pypy":
            return f"pp3{self.minor}", self.abi
        if self.kind == "graalpy":
            return f"GraalPy ({self.abi})"
        return f"cp3{self.minor}", f"cp3{self.minor}{self.abi}"


def file_abi(name: str) -> FileAbi | None:
    """The ABI a file name's suffix names, None for a suffix of no ABI (`.so`, `.pyd`) or one
    k3diff does not read."""
    return module_abi(name)[1]


def module_abi(name: str, fold: bool | None = None) -> tuple[str, FileAbi | None]:
    """The module a file name is for and the ABI its suffix names (`file_abi`); `fold`: a
    suffix in another case is read (`_cased_abi`). A Windows debug build looks for `_d` before
    the tagged suffix (`dynload_win.c`: `_C_d.cp313-win_amd64.pyd` is `_C`'s, for `cp313d`;
    left67: before, it was read as a module `_C_d` a release 3.13 finds)."""
    module, _, suffix = name.partition(".")
    abi = _suffix_abi(suffix)
    if abi is None and fold is not None:
        abi = _cased_abi(suffix, fold)
    if abi is not None and abi.kind == "windows" and module.endswith(_DEBUG) and module != _DEBUG:
        return module.removesuffix(_DEBUG), abi._replace(abi=f"{abi.abi}d")
    return module, abi


@cache
def _cased_abi(suffix: str, fold: bool) -> FileAbi | None:
    """An ABI's suffix in another case (`.CPYTHON-313-….so`): the ABI's where the tags' file
    systems ignore case (`fold`: macOS, Windows, whose import system finds it), one no Python
    finds where they keep it (Linux; left67c: the module was not judged, and passed)."""
    lowered = suffix.lower()
    read = None if lowered == suffix else _suffix_abi(lowered)
    return read if read is None or fold else FileAbi("cased", 0, suffix)


def _case_folds(tags: frozenset[str]) -> bool | None:
    """Whether the file systems of the platforms the tags install on ignore case: True for
    macOS's and Windows' alone, False for Linux's and other POSIX systems' alone, None where
    they name both kinds (`any`), whose suffixes are read as written."""
    folds = {p.startswith(("macosx_", "win")) for p in (t.rpartition("-")[2] for t in tags)}
    return None if len(folds) != 1 or any(t.endswith("-any") for t in tags) else folds.pop()


@cache
def _suffix_abi(suffix: str) -> FileAbi | None:
    """`file_abi` of the part of a name after its module (read once: a wheel's hundreds of
    extensions share a few)."""
    found = _SUFFIX.search(f".{suffix}")
    if found is None:
        return None
    tag, posix = found.group(1), found.group(2) == "so"
    if posix and (match := _CPYTHON.fullmatch(tag)):
        return FileAbi("cpython", version_number(match.group(1)), match.group(2))
    if not posix and (match := _WINDOWS.fullmatch(tag)):
        return FileAbi("windows", version_number(match.group(1)), match.group(2))
    if posix and (match := _STABLE.fullmatch(tag)):
        tagged = match.group(1) or match.group(2)  # abi3t, or a platform: 3.15's suffixes
        return FileAbi("stable", 15 if tagged else 2, f"abi3{match.group(1)}")
    if match := _PYPY.fullmatch(tag):
        return FileAbi(
            "pypy", version_number(match.group(1)), f"pypy3{match.group(1)}_{match.group(2)}"
        )
    if tag.startswith("graalpy"):  # packaging: the first three parts of its SOABI
        return FileAbi("graalpy", 0, "_".join(tag.split("-")[:3]).replace(".", "_"))
    return None


def version_bound(
    joined: str,
    files: Iterable[InstalledFile],
    tags: Iterable[str],
    requires_python: str | None = None,
) -> list[tuple[str, str]]:
    """W629's extensions, looked for only where a name holds an ABI's suffix (`joined`: the
    wheel's entry names joined by NULs); `tags`: those pip installs it by (expanded);
    `requires_python`: its METADATA's field, as read for its identity."""
    if not any(map(str.__contains__, repeat(joined), _MARKS)) and not (
        any(map(str.__contains__, repeat(joined), _EXTENSION))
        and any(map(str.__contains__, repeat(joined.lower()), _MARKS))  # `.CPYTHON-313`
    ):
        return []  # nearly every wheel but the native ones
    return unimportable(files, frozenset(tags), requires_python)


def unimportable(
    files: Iterable[InstalledFile], tags: frozenset[str], requires_python: str | None = None
) -> list[tuple[str, str]]:
    """(entry, why) for each extension file of a module whose every file names an ABI, where
    some Python the wheel's `tags` (narrowed by its `requires_python`) install it on finds
    none of them."""
    modules: dict[str, list[tuple[InstalledFile, FileAbi]]] = {}
    plain: set[str] = set()
    files = list(files)  # the extensions picked in C: a wheel of twelve thousand has a few
    fold = _case_folds(tags)
    for file in compress(files, map(str.endswith, map(_PATH, files), repeat(_EXTENSION))):
        if file.scheme not in _MODULES:
            continue
        head, _, name = file.path.rpartition("/")
        stem, abi = module_abi(name, fold)
        module = f"{head}/{stem}"
        if abi is not None:
            modules.setdefault(module, []).append((file, abi))
        elif "." not in name.partition(".")[2]:  # `_C.so`, `_C.pyd`: every CPython's
            plain.add(module)  # (a suffix no Python lists, `_C.mpich.so`, is found by none)
    stable = any(tag.split("-")[1:2] == ["abi3"] for tag in tags)
    judged = {
        module: named
        for module, named in modules.items()
        if module not in plain
        and not (stable and any(abi.kind in ("cpython", "windows") for _, abi in named))
    }
    if judged:  # a module with a source is found where no extension is
        sourced = _sourced(files, judged)
        judged = {m: named for m, named in judged.items() if m not in sourced}
    if not judged:
        return []
    pythons, horizon, said = installs_on(tags, requires_python)
    from k3diff.wheel.systemtext import pythons as said_pythons

    finding = {abi: {p for p in pythons if abi.finds(p)} for abi in _abis(judged.values())}
    loads, system = _loads(tags), _tags_system(tags)
    problems: list[tuple[str, str]] = []
    for module, named in judged.items():
        kept = [
            abi
            for file, abi in named
            if (loads is None or file.path.endswith(loads))
            and (
                system is None
                or _file_system(file.path.lower() if fold else file.path) in (None, system)
            )
        ]
        found = set().union(*(finding[abi] for abi in kept))
        missing = [p for p in pythons if p not in found]
        if not missing:
            continue
        dotted = module.partition("/")[2].replace("/", ".")
        foreign = "" if len(kept) == len(named) else _foreign(named, loads, system)
        why = (
            f"named for {_named_text([abi for _, abi in named])} alone{foreign}, while its "
            f"tags{said} "
            f"install it on {said_pythons(pythons, horizon)}: on "
            f"{said_pythons(missing, horizon)} 'import {dotted}' finds no file of it"
        )
        problems += [(file.entry, why) for file, _ in named]
    return problems


_FOREIGN = {
    ".pyd": " (as .so, which no Python on Windows loads)",
    ".so": " (as .pyd, which Python loads on Windows alone)",
}


_TRIPLET = lazy(r"-([^-]+)-linux(?:-[^-]*)?$")
_LINUX_TAG = lazy(r"(?:manylinux_\d+_\d+|musllinux_\d+_\d+|manylinux\d+|linux)_(.+)")
_TRIPLET_ARCH = {"i686": "i386", "armv7l": "arm", "armv6l": "arm", "ppc64le": "powerpc64le"}
"""A platform tag's architecture as CPython's SOABI names it (`configure`'s triplet), where
they differ."""


def _file_system(path: str) -> str | None:
    """The system a file's ABI suffix names (`x86_64-linux`, `darwin`, `win_amd64`), None for
    a suffix of none: CPython's SOABI carries its platform (`.cpython-313-x86_64-linux-gnu.so`),
    and only that system's CPython finds it."""
    found = _SUFFIX.search(path.rpartition("/")[2])
    tag = "" if found is None else found.group(1)
    if (platform := tag.rpartition("-")[2]).startswith("win"):
        return platform
    if tag.endswith("-darwin"):
        return "darwin"
    match = _TRIPLET.search(tag)
    return None if match is None else f"{match.group(1)}-linux"


def _tags_system(tags: frozenset[str]) -> str | None:
    """The one system the tags install on, as `_file_system` names it; None where they name
    several, or one k3diff does not read (`any`, iOS, Android)."""
    found = set()
    for platform in {tag.rpartition("-")[2] for tag in tags}:
        if platform.startswith("win"):
            found.add(platform)
        elif platform.startswith("macosx_"):
            found.add("darwin")
        elif match := _LINUX_TAG.fullmatch(platform):
            found.add(f"{_TRIPLET_ARCH.get(match.group(1), match.group(1))}-linux")
        else:
            return None
    return found.pop() if len(found) == 1 else None


def _foreign(
    named: list[tuple[InstalledFile, FileAbi]], loads: str | None, system: str | None
) -> str:
    """Why some of a module's files are found on no system its tags install on."""
    if loads is not None and not all(file.path.endswith(loads) for file, _ in named):
        return _FOREIGN[loads]
    systems = {_file_system(file.path) for file, _ in named}
    other = sorted(str(found) for found in systems - {None, system})
    return f" (for {', '.join(other)}, while its tags install it on {system} alone)"


def _loads(tags: frozenset[str]) -> str | None:
    """The extension every Python the tags install on loads: `.pyd` where each tag's platform
    is Windows', `.so` where each is Linux's or macOS's; None where they name both, or a
    platform k3diff does not read (`any`; MSYS2's `mingw_x86_64`, whose Python loads `.pyd`)."""
    platforms = {tag.rpartition("-")[2] for tag in tags}
    if platforms and all(platform.startswith("win") for platform in platforms):
        return ".pyd"
    posix = [p.startswith("macosx_") or _LINUX_TAG.fullmatch(p) is not None for p in platforms]
    return ".so" if platforms and all(posix) else None


def _sourced(files: list[InstalledFile], modules: Iterable[str]) -> set[str]:
    """Which of `modules` have a source file in site-packages: `pkg/_C` for `pkg/_C.py` and for
    `pkg/_C/__init__.py`, a package the import system finds before an extension; each module's
    two paths looked up in one C pass (`pkg/__init__` by `pkg/__init__/__init__.py` alone: a
    source `pkg/__init__.py` is package `pkg`'s), not the module of every source derived."""
    wanted: dict[str, str] = {}
    for module in modules:
        wanted[f"{module}/__init__.py"] = module
        if not module.endswith("/__init__"):
            wanted[f"{module}{_SOURCE}"] = module
    picked = compress(files, map(wanted.__contains__, map(_PATH, files)))
    return {wanted[file.path] for file in picked if file.scheme in _MODULES}


def _abis(modules: Iterable[list[tuple[InstalledFile, FileAbi]]]) -> set[FileAbi]:
    """The distinct ABIs the modules' files name."""
    return {abi for named in modules for _, abi in named}


def installs_on(tags: frozenset[str], requires_python: str | None) -> tuple[list[Python], int, str]:
    """The Pythons pip installs the wheel on (`systems.installs_on`) that its
    `requires_python` admits, the horizon (the newest CPython judged, which stands for every
    later one, past any a specifier excludes above it), and, where the specifier excluded
    one, ` and Requires-Python SPEC` for the finding."""
    from k3diff.wheel.systems import installs_on as tags_install_on
    from k3diff.wheel.systems import minor_of

    found, horizon = tags_install_on(tags)
    if not requires_python:
        return found, horizon, ""
    admits = python_admits(requires_python)
    open_run = any(p[0] == f"cp3{horizon}" for p in found)  # tags open in version
    top = open_from(requires_python, horizon) if open_run else horizon
    if top > horizon:
        found, horizon = tags_install_on(tags, top)
    kept = [p for p in found if admits(minor_of(p[0]))]
    if len(kept) == len(found):
        return found, horizon, ""
    return kept, horizon, f" and Requires-Python {requires_python[:80]!r}"


def installs_nowhere(tags: frozenset[str], requires_python: str | None) -> str | None:
    """Why pip installs the wheel on no Python, where its `tags` install it on some and its
    `requires_python` admits none of those (`cp313-cp313` under `>=3.14`: pip refuses it on
    3.13 by the specifier, on 3.14 by the tags; left67c: it passed), else None."""
    if not requires_python:
        return None
    from k3diff.wheel.systems import installs_on as tags_install_on
    from k3diff.wheel.systemtext import pythons as said_pythons

    found, horizon = tags_install_on(tags)
    if not found or installs_on(tags, requires_python)[0]:
        return None
    return (
        f"its tags ({', '.join(sorted(tags)[:3])}{', ...' if len(tags) > 3 else ''}) install it "
        f"on {said_pythons(found, horizon)}, none of which its Requires-Python "
        f"{requires_python[:80]!r} admits: pip installs it on no Python"
    )


def _named_text(abis: list[FileAbi]) -> str:
    """What the module's files are named for: `CPython 3.11-3.12`, `the stable ABI (abi3)`."""
    from k3diff.wheel.systemtext import pythons as said_pythons

    named = [abi.named() for abi in abis]
    exact = [n for n in named if isinstance(n, tuple)]
    words = sorted({n for n in named if isinstance(n, str)})
    return ", ".join(([said_pythons(exact, NEWEST + 1)] if exact else []) + words)
