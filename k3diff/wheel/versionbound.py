"""Extensions no Python the wheel installs on imports (W629).

A file's suffix names the Pythons that find it (`k3diff.wheel.extsuffix`, the import system's
rules with their sources), on the systems whose Python loads it (`k3diff.wheel.extplatforms`:
`.pyd` on Windows, `.so` elsewhere; a suffix's platform its own, read as written where the
import system matches it so). pip installs a wheel on a
Python when packaging lists one of its tags there (`k3diff.wheel.systems.installs_on`: the
interpreters its tags name, CPython up to a horizon that stands for every later one, and
narrowed by the wheel's own `Requires-Python`, which pip checks too). A module none of whose
files a Python the wheel installs on finds is missing there: `import pkg._C` fails though the
wheel installed. A `cp313-cp313` wheel holding only `_C.cpython-313t-….so`, a `py3-none` one
holding only `.cpython-311-….so` (PyPy, free-threaded builds and every other version) or only
PyPy's names, a `cp313-cp313t` one holding only `.abi3.so`. Each system the tags name is judged
apart, with its own tags: a `manylinux….win_amd64` wheel whose module is a `.so` alone fails on
Windows (abi68).

A module with a file of no ABI's name that its system loads (`_C.so`; `_C.pyd` on Windows) is
not judged there: CPython finds it everywhere, and a library loaded by `ctypes` is named so too
(PyPy, which finds no bare `.so`, is not judged for it); nor one with a source (`_C.py`,
`_C/__init__.py`), which a Python finds where it finds no extension. A file whose suffix
k3diff does not read (`_C.foo.so`) is found by no import system as the module, so it neither
counts for the module nor spares it (review67b), as is one in a case the import system does not
match (`_C.cpython-313-….SO` on Linux or macOS; left67c, abi68). A name of two suffixes is
read by its last (mpi4py's `MPI.mpich.cpython-311-….so`, which its package loads itself). A
debug build is judged only where a tag names its ABI (`cp313d`): packaging gives it the
release build's tags too, whose files it finds on Linux and macOS from 3.8 (ALT_SOABI) but not
on Windows, which is the debug build's limit, not the wheel's. The module is the installed path
up to the file name's first dot (less Windows' debug `_d`), in site-packages (purelib and
platlib alike). In an abi3 wheel, a module with a file named for one CPython version is
A123/W625's (`k3diff.wheel.abi3`).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from itertools import compress, product, repeat

from k3diff.wheel.extplatforms import AS_WRITTEN, CaseRule, System, abi_any, system_cases, systems
from k3diff.wheel.extsuffix import (
    EXTENSIONS,
    MARKS,
    FileAbi,
    Python,
    bare,
    module_abi,
    released,
)
from k3diff.wheel.installed import InstalledFile
from k3diff.wheel.requirespython import open_from, python_admits
from k3diff.wheel.tagplatforms import NEWEST

_SOURCE = ".py"  # not a sourceless `.pyc`: one version loads it
_MODULES = ("purelib", "platlib")
_PATH = operator.itemgetter(2)
_ANY_CASE = tuple(
    "".join(chars) for ext in EXTENSIONS for chars in product(*({c, c.upper()} for c in ext))
)
"""`.so`, `.pyd` in every case (`.SO`, `.Pyd`), for `str.endswith` to pick them in C."""


def version_bound(
    joined: str,
    files: Iterable[InstalledFile],
    tags: Iterable[str],
    requires_python: str | None = None,
) -> list[tuple[str, str]]:
    """W629's extensions, looked for only where a name holds an ABI's suffix in some case
    (`joined`: the wheel's entry names joined by NULs); `tags`: those pip installs it by
    (expanded); `requires_python`: its METADATA's field, as read for its identity."""
    lowered = joined.lower()
    if not any(map(str.__contains__, repeat(lowered), MARKS)):
        return []  # nearly every wheel but the native ones
    return unimportable(files, frozenset(tags), requires_python)


def unimportable(
    files: Iterable[InstalledFile], tags: frozenset[str], requires_python: str | None = None
) -> list[tuple[str, str]]:
    """(entry, why) for each extension file of a module whose every file names an ABI, where
    some Python the wheel's `tags` (narrowed by its `requires_python`) install it on, on some
    system they name, finds none of them."""
    files = list(files)  # the extensions picked in C: a wheel of twelve thousand has a few
    extensions = compress(files, map(str.endswith, map(_PATH, files), repeat(_ANY_CASE)))
    picked = [file for file in extensions if file.scheme in _MODULES]
    if not picked:
        return []
    on, stable = systems(tags), any(tag.split("-")[1:2] == ["abi3"] for tag in tags)
    said: dict[str, list[str]] = {}
    for system in on[:MAX_JUDGED_SYSTEMS]:
        judged = _judged(picked, system, stable)
        if judged:  # a module with a source is found where no extension is
            spared = _spared(files, judged, system)
            judged = {m: named for m, named in judged.items() if m not in spared}
        for entry, why in _missing(judged, system, len(on) > 1, requires_python):
            said.setdefault(entry, []).append(why)
    found = [(entry, "; ".join(whys)) for entry, whys in said.items()]
    if len(on) > MAX_JUDGED_SYSTEMS:  # never a pass for what was not judged
        names = [system.name or "other" for system in on]
        found.append((picked[0].entry, _unjudged(names)))
    return found


MAX_JUDGED_SYSTEMS = 64
"""The systems a wheel's tags name that W629 judges: a wheel's real tags name a few dozen at
most (`manylinux`, `musllinux` and `win` of each architecture, `darwin`), while a WHEEL file's
4,096 Tag lines of made-up architectures made each of its extensions judged on each (review68:
4,000 systems and 3,000 modules took 428 s and 6.2 GB); past it, the wheel fails."""


def _unjudged(names: list[str]) -> str:
    """Why a wheel whose tags name more systems than W629 judges fails."""
    shown = ", ".join(names[:3])
    return (
        f"its tags name {len(names):,} systems ({shown}, ...), more than W629 judges "
        f"({MAX_JUDGED_SYSTEMS}): on the {len(names) - MAX_JUDGED_SYSTEMS:,} past them no extension was "
        "judged, so a module no Python there imports is not ruled out"
    )


def _judged(
    picked: list[InstalledFile], system: System, stable: bool
) -> dict[str, list[tuple[InstalledFile, FileAbi]]]:
    """The modules judged on `system`, each with its files named for an ABI, as the import
    system there reads them: those with no bare file it loads, and in an abi3 wheel (`stable`)
    none with a file named for one CPython version (A123/W625's)."""
    modules: dict[str, list[tuple[InstalledFile, FileAbi]]] = {}
    plain: set[str] = set()
    stems: set[str] | None = None  # `pkg/_C` of each `pkg/_C.*`, made for a debug name alone
    for file in picked:
        head, _, name = file.path.rpartition("/")
        stem, abi = module_abi(name, system.folds)
        if abi is not None and stem != name.partition(".")[0]:  # `_C_d.…pyd`: `_C`'s debug
            stems = {_stem(p) for p in map(_PATH, picked)} if stems is None else stems
            if f"{head}/{stem}" not in stems:  # no `_C` beside it: maybe module `_C_d`'s
                stem, abi = released(name, abi)
        if abi is not None:
            modules.setdefault(f"{head}/{stem}", []).append((file, abi))
        elif (ext := bare(name, system.folds)) is not None and system.loads in (None, ext):
            plain.add(f"{head}/{stem}")  # (a suffix no Python lists, `_C.mpich.so`: none)
    return {
        module: named
        for module, named in modules.items()
        if module not in plain and not (stable and any(abi.kind in _VERSIONED for _, abi in named))
    }


def _stem(path: str) -> str:
    """The installed path up to its file name's first dot."""
    head, _, name = path.rpartition("/")
    return f"{head}/{name.partition('.')[0]}"


_VERSIONED = ("cpython", "windows", "either")
"""The kinds of a name one CPython version finds."""


def _missing(
    judged: dict[str, list[tuple[InstalledFile, FileAbi]]],
    system: System,
    several: bool,
    requires_python: str | None,
) -> list[tuple[str, str]]:
    """(entry, why) for each file of a module some Python the system's tags install the wheel
    on finds none of (`several`: the wheel's tags name other systems, which the reason says)."""
    if not judged:
        return []
    pythons, horizon, said = installs_on(system.tags, requires_python)
    from k3diff.wheel.systemtext import pythons as said_pythons

    finding = {abi: {p for p in pythons if abi.finds(p)} for abi in _abis(judged.values())}
    where = f" for {system.said()}" if several else ""
    installed = f"tags{where}{said} install it on {said_pythons(pythons, horizon)}"
    worded: dict[tuple[object, ...], str] = {}  # one wording per kind: modules share a few
    problems: list[tuple[str, str]] = []
    for module, named in judged.items():
        kept = [(file, abi) for file, abi in named if system.keeps(file.path)]
        found = set().union(*(_before(finding[abi], system.until(f.path)) for f, abi in kept))
        missing = [p for p in pythons if p not in found]
        if not missing:
            continue
        dotted = module.partition("/")[2].replace("/", ".")
        paths = [file.path for file, _ in named]
        foreign = "" if len(kept) == len(named) else system.foreign(paths, several)
        if any(system.until(file.path) is not None for file, _ in kept):
            foreign += MUSL_GNU
        abis = tuple(abi for _, abi in named)
        key = (abis, foreign, tuple(missing))
        if key not in worded:
            worded[key] = (
                f"named for {_named_text(list(abis))} alone{foreign}, while its {installed}: "
                f"on {said_pythons(missing, horizon)}"
            )
        why = f"{worded[key]} 'import {dotted}' finds no file of it"
        problems += [(file.entry, why) for file, _ in named]
    return problems


MUSL_GNU = " (as -linux-gnu, which CPython on musl names -linux-musl from 3.13)"


def _before(pythons: set[Python], until: int | None) -> set[Python]:
    """The Pythons of `pythons` older than CPython 3.`until` (None: all): other
    interpreters' names are their own."""
    if until is None:
        return pythons
    from k3diff.wheel.systems import minor_of

    return {p for p in pythons if not p[0].startswith("cp") or minor_of(p[0]) < until}


def _spared(
    files: list[InstalledFile],
    modules: dict[str, list[tuple[InstalledFile, FileAbi]]],
    system: System,
) -> set[str]:
    """Which of `modules` the import system of `system` finds a file of that W629 does not
    judge: a source (`_sourced`), under each case rule the system stands for
    (`extplatforms.system_cases`: `any`'s POSIX systems are Linux and macOS, and a source
    spares a module there only where both find it), and where Python loads `.dll` extensions
    (Cygwin, MSYS2), a `.dll` of the module (`NAME.dll`, or Cygwin's own build's
    `NAME.cpython-39-x86_64-cygwin.dll`, whose ABI k3diff does not read)."""
    rules = system_cases(system)
    spared: set[str] = set()
    if system.loads == ".dll":  # picked in C: a Cygwin wheel's extensions are `.dll`s
        paths = compress(files, map(str.endswith, map(_PATH, files), repeat(".dll")))
        spared = {_stem(f.path) for f in paths if f.scheme in _MODULES} & modules.keys()
    rest = [module for module in modules if module not in spared]
    if not rest:
        return spared
    sourced = _sourced(files, rest, rules[0])
    for rule in rules[1:]:
        sourced &= _sourced(files, rest, rule)
    return spared | sourced


def _sourced(
    files: list[InstalledFile], modules: Iterable[str], case: CaseRule = AS_WRITTEN
) -> set[str]:
    """Which of `modules` have a source file in site-packages that the import system of one
    system (`case`: its rule) finds, before or where it finds no extension: `pkg/_C` by
    `pkg/_C.py` and by the package `pkg/_C/__init__.py`; `pkg/__init__` (package `pkg`'s
    extension) by `pkg/__init__.py`, the same package's source. On Windows a source's suffix is
    matched lowered and `.pyw` is a source too (`SOURCE_SUFFIXES`: `pkg/_C.PY`, `pkg/_C.pyw`),
    and where the file system opens a path in any case (`case.path_blind`: Windows, macOS,
    Cygwin, MSYS2) a package's `__init__` is found in any case (`FileFinder` checks it by its
    path: `pkg/_C/__INIT__.py`), while the module's own name is matched as written (w629c: none
    of these spared the module; tags70: Cygwin's and MSYS2's were read as Linux's). Each
    module's paths are looked up in one C pass (of the lowered paths where case is read),
    not the module of every source derived."""
    fold = case.suffix_blind
    blind = fold or case.path_blind
    sources = _WINDOWS_SOURCES if fold else (_SOURCE,)
    wanted: dict[str, list[tuple[str, str, bool]]] = {}  # path -> (module, head, package)
    for module in modules:
        package = module.removesuffix("/__init__")
        for source in sources:
            if "/" in package:  # `site-packages/__init__` is no package's
                path = f"{package}/__init__{source}"
                wanted.setdefault(path.lower() if blind else path, []).append(
                    (module, package, True)
                )
            if package == module and module.rpartition("/")[2] != "__init__":
                path = f"{module}{source}"
                wanted.setdefault(path.lower() if blind else path, []).append(
                    (module, module.rpartition("/")[0], False)
                )
    paths = map(_PATH, files)
    picked = compress(files, map(wanted.__contains__, map(str.lower, paths) if blind else paths))
    found: set[str] = set()
    for file in picked:
        there, _, name = file.path.rpartition("/")
        for module, head, in_package in wanted[file.path.lower() if blind else file.path]:
            if in_package:  # found by its path: in any case where the file system ignores case
                stem, _, suffix = (name.lower() if blind else name).partition(".")
                ok = there == head and stem == "__init__"
            else:  # found in the directory's listing: the module as written, the suffix lowered
                stem, _, suffix = name.partition(".")
                ok = file.path[: len(file.path) - len(name)] + stem == module
                suffix = suffix.lower() if fold else suffix
            if ok and f".{suffix}" in sources and file.scheme in _MODULES:
                found.add(module)
    return found


_WINDOWS_SOURCES = (_SOURCE, ".pyw")
"""What Python on Windows loads as source (`importlib.machinery.SOURCE_SUFFIXES` there)."""


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


def installs_nowhere(tags: frozenset[str], requires_python: str | None) -> tuple[str, str] | None:
    """Where a wheel pip installs on no Python says so (`METADATA`, or `""` for its
    filename's tags) and why, else None: tags that name Pythons packaging lists none of them for (`cp313-cp313-any`: an
    interpreter's own ABI and the stable ABI go with a platform, `any` with `none` alone;
    left68: read as CPython 3.13's, and the wheel passed), or a `requires_python` that admits
    none of the Pythons they install on (`cp313-cp313` under `>=3.14`: pip refuses it on
    3.13 by the specifier, on 3.14 by the tags; left67c: it passed)."""
    from k3diff.wheel.codes import BY_TAGS_ALONE, NO_PYTHON
    from k3diff.wheel.systems import installs_on as tags_install_on
    from k3diff.wheel.systems import names_python
    from k3diff.wheel.systemtext import pythons as said_pythons

    if not requires_python and not any(map(abi_any, tags)):
        return None  # nearly every wheel: `py3-none-any`, platform tags, no Requires-Python
    shown = f"{', '.join(sorted(tags)[:3])}{', ...' if len(tags) > 3 else ''}"
    found, horizon = tags_install_on(tags)
    if not found:
        return (
            None
            if not names_python(tags)
            else ("", _NO_PYTHON.format(shown, BY_TAGS_ALONE, NO_PYTHON))
        )
    if not requires_python or installs_on(tags, requires_python)[0]:
        return None
    return "METADATA", (
        f"its tags ({shown}) install it "
        f"on {said_pythons(found, horizon)}, none of which its Requires-Python "
        f"{requires_python[:80]!r} admits: {NO_PYTHON}"
    )


_NO_PYTHON = (
    "its tags ({}) install it on no Python: packaging lists an interpreter's own ABI and the "
    "stable ABI with a platform alone, and the platform 'any' with the ABI 'none' alone "
    "('cp313-none-any', 'py3-none-any'), {} ('not a supported wheel on this platform'): {}"
)


def _named_text(abis: list[FileAbi]) -> str:
    """What the module's files are named for: `CPython 3.11-3.12`, `the stable ABI (abi3)`."""
    from k3diff.wheel.systemtext import pythons as said_pythons

    named = [abi.named() for abi in abis]
    exact = [n for n in named if isinstance(n, tuple)]
    words = sorted({n for n in named if isinstance(n, str)})
    return ", ".join(([said_pythons(exact, NEWEST + 1)] if exact else []) + words)
