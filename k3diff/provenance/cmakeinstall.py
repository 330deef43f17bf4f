"""The files a scikit-build-core build's CMake installs into the wheel, read from the commit's
CMake files without running CMake.

scikit-build-core runs ``cmake --install`` into the wheel's package area first, then copies the
packages' files only where CMake left no file (``packages_to_file_mapping``: ``if not
target_path.is_file()``), so a file CMake installs wins over the package's at the same path
(src72: ``install(FILES fixes/auth.py DESTINATION pkg/sub)`` shipped the fix while k3diff
compared ``src/pkg/sub/auth.py``, the old one ``wheel.packages`` names, and a wheel reverting
to it matched, exit 0). Only what CMake does the same on every build is read: an
``install(FILES …)`` or ``install(PROGRAMS …)`` in the project's top ``CMakeLists.txt``, at its
top level (in no ``if``, loop, function, macro or block, before any ``return()``), of literal
files with one literal relative ``DESTINATION`` and optionally ``RENAME``, ``PERMISSIONS``,
``COMPONENT`` or ``OPTIONAL``: each file ships at ``install-dir/DESTINATION/name``. An
``install(TARGETS|EXPORT|RUNTIME_DEPENDENCY_SET …)`` installs built binaries and CMake's own
files, no source, and an ``install(FILES …)`` of literal files none of which is a Python file
(headers) ships nothing the source check compares. Any other ``install()`` (``DIRECTORY``,
``CODE``, ``SCRIPT``, a variable, a generator expression, one in another CMake file, a
condition) may ship any file at any wheel path: `Unreadable` says which, and the source check
stops; so do commands placing a file without such an ``install()`` (`_elsewhere`:
``cmake_language``, an ``include()`` of a file not read, files attached to a target, a wheel
directory named outside ``install()``, by name or by a computed name (`cmakenames`), a write
that may leave the build tree (`cmakewrites`), a program pointed outside it (`cmakeprograms`)).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass

from k3diff.escape import shortened
from k3diff.provenance.cmakelists import NOT_LITERAL, Command, Refused, commands
from k3diff.provenance.cmakenames import WHEEL_NAMES, by_computed_name, may_name
from k3diff.provenance.cmakeprograms import PROGRAMS, program_writes
from k3diff.provenance.cmakevalues import Expander, OverBudget, project_values
from k3diff.provenance.cmakewrites import each_word_written, outside_build_tree, unread_write

BINARIES = frozenset({"TARGETS", "EXPORT", "RUNTIME_DEPENDENCY_SET"})
"""``install()`` forms that install what the build compiles or CMake's export files (review72a:
not ``IMPORTED_RUNTIME_ARTIFACTS``, whose imported target's ``IMPORTED_LOCATION`` may be any
file of the project: ``fixes/auth.py`` installed as ``pkg/sub/auth.py``). The files a target
carries (`ATTACHED`) are read where they are attached (`_elsewhere`)."""
ATTACHED = frozenset({"PUBLIC_HEADER", "PRIVATE_HEADER", "RESOURCE", "FILE_SET"})
"""Target properties and ``target_sources`` sets naming source files ``install(TARGETS …)``
installs beside the binary (review72a: ``PUBLIC_HEADER fixes/auth.py`` and
``install(TARGETS core … PUBLIC_HEADER DESTINATION pkg/sub)`` shipped the fix, exit 0)."""
_WHEEL_DIR = re.compile(r"SKBUILD_(?:\w*_DIR|\$)|CMAKE_INSTALL_PREFIX(?!\w)")
"""scikit-build-core's wheel directories (``${SKBUILD_PLATLIB_DIR}`` …) and the install
directory it sets as ``CMAKE_INSTALL_PREFIX`` at configure time, named outside an
``install()``: a ``file(COPY …)`` or ``configure_file`` into one writes a file into the wheel
at configure time, over the package's (review72a; review73b: ``file(COPY fixes/auth.py
DESTINATION ${CMAKE_INSTALL_PREFIX}/pkg/sub)`` shipped the fix in a real build, exit 0). Not
``CMAKE_INSTALL_PREFIX_INITIALIZED_TO_DEFAULT``, nor the prefix set (``set(CMAKE_INSTALL_PREFIX
…)``, which ``cmake --install --prefix`` overrides): a common project's idiom."""
_DEFINERS = frozenset({"function", "macro"})
"""Commands defining a command, which may take ``install``'s name (review73b: ``macro(install)
endmacro()`` made every ``install()`` after it do nothing in a real build, while k3diff read
``install(FILES fixes/auth.py …)`` as shipping the fix, and a wheel shipping it matched over
the package's file the build shipped, exit 0)."""
_TESTS = frozenset({"if", "elseif", "while", "message"})
"""Commands that read a variable without writing anything."""
_MODULE = re.compile(r"[A-Za-z0-9_-]+")
"""An ``include()`` of a module by name (``GNUInstallDirs``), not of a file by path."""
_VALUED = {"DESTINATION", "RENAME", "COMPONENT"}
_FLAGS = {"OPTIONAL"}
_PERMISSIONS = "PERMISSIONS"
_PYTHON = (".py", ".pyi", ".pyw", ".pyc", ".pyo")
"""Names of files the source check compares (or finds bytecode in)."""


@dataclass(frozen=True)
class Unreadable:
    """An ``install()`` of the project's CMake files that k3diff does not read."""

    reason: str
    """``CMakeLists.txt line 4: install(DIRECTORY …), which k3diff does not read``."""


def cmake_installs(
    files: Mapping[str, bytes],
    top: str,
    install_dir: str,
    entries: frozenset[str] = frozenset(),
    document: Mapping[str, object] | None = None,
) -> list[tuple[str, str, str]] | Unreadable:
    """(wheel path, project path, as shown) for each file CMake installs, by the project's CMake
    `files` (project path -> content; `top` the top ``CMakeLists.txt``'s path), under
    `install_dir` ('' or ending in '/', ``wheel.install-dir``; `entries` the names at the
    project's top, `document` its ``pyproject.toml``); or the first ``install()`` not read."""
    installs: list[tuple[str, str, str]] = []
    returning: str | None = None  # where a macro's return() is, if any
    every = {path: commands(files[path]) for path in sorted(files)}
    parsed_ok = {p: c for p, c in every.items() if not isinstance(c, Refused)}
    expander = Expander(project_values(parsed_ok, entries, document))
    for path, parsed in every.items():
        if isinstance(parsed, Refused):
            return Unreadable(
                f"{path} line {parsed.line}: {parsed.why}: no build of this commit configures"
            )
        macros = 0
        for command in parsed:
            where = f"{path} line {command.line}"
            macros += {"macro": 1, "endmacro": -1}.get(command.name, 0)
            if command.name == "return" and macros > 0 and returning is None:
                returning = where
            if command.name.lstrip("_") != "install":  # ``_install``: the original, redefined
                try:
                    why = _elsewhere(command, path == top, expander)
                except OverBudget:
                    why = f"{command.name}(…): its variables expand past what k3diff reads"
                if why is not None:
                    return Unreadable(f"{where}: {why}")
                continue
            form = command.args[0].upper() if command.args else ""
            if form in BINARIES or _no_python(command.args):
                continue
            if path != top or not command.top or not command.literal:
                shown = f"install({form} …)" if form else "install(…)"
                return Unreadable(f"{where}: {shown}, which k3diff does not read")
            read = _files(command.args, posixpath.dirname(path), install_dir, where)
            if isinstance(read, Unreadable):
                return read
            installs += read
    if installs and returning is not None:
        # review73b: a macro's return() returns from where it is called, and a real build
        # calling one before install(FILES fixes/auth.py …) installed nothing (exit 0).
        return Unreadable(f"{returning}: return() in a macro, which may end the file calling it")
    return installs


def _files(
    args: tuple[str, ...], directory: str, install_dir: str, where: str
) -> list[tuple[str, str, str]] | Unreadable:
    """The files an ``install(FILES|PROGRAMS …)`` whose arguments are `args` ships."""
    form, rest = args[0].upper(), list(args[1:])
    sources: list[str] = []
    options: dict[str, str] = {}
    while rest and rest[0] not in _VALUED | _FLAGS | {_PERMISSIONS}:
        sources.append(rest.pop(0))
    while rest:
        key = rest.pop(0)
        if key in _VALUED and rest:
            options[key] = rest.pop(0)
        elif key == _PERMISSIONS:
            while rest and rest[0] not in _VALUED | _FLAGS:
                rest.pop(0)
        elif key not in _FLAGS:
            return Unreadable(f"{where}: install({form} … {shortened(key, 100)} …), not read")
    destination = options.get("DESTINATION")
    if form not in {"FILES", "PROGRAMS"} or destination is None or not sources:
        return Unreadable(f"{where}: install({form} …), which k3diff does not read")
    if "RENAME" in options and len(sources) != 1:
        return Unreadable(f"{where}: install({form} …) renames more than one file, not read")
    if posixpath.basename(options.get("RENAME", "x")) in {"", ".", ".."}:
        # review73b: CMake installs `RENAME ""` under the file's own name, and `RENAME .`
        # nothing, where k3diff placed the file at DESTINATION itself (exit 0).
        return Unreadable(f"{where}: install({form} …) renames to no file name, not read")
    found = []
    for source in sources:
        name = options.get("RENAME", posixpath.basename(source))
        wheel = _inside(install_dir + destination + "/" + name)
        project = _inside(posixpath.join(directory, source))
        if wheel is None or project is None:
            shown = shortened(f"{source!r} to {destination!r}", 300)
            return Unreadable(f"{where}: install({form} …) of {shown}, outside the project")
        found.append((wheel, project, f"{where}: install({form} {shortened(source, 200)})"))
    return found


def _elsewhere(command: Command, top: bool, expander: Expander) -> str | None:
    """Why a command other than ``install()`` may place a file in the wheel k3diff does not
    read (review72a: each shipped ``fixes/auth.py`` over ``pkg/sub/auth.py`` in a real build
    while k3diff compared the package's old file, exit 0), or None."""
    name, args = command.name, command.args
    shown = f"{shortened(name, 100)}(…)"
    if name == "cmake_language":
        return f"{shown}, which may call install() or run code k3diff does not read"
    first = args[0] if args else ""
    if name in _DEFINERS and _may_be_install(first):
        return f"{shown} defines {shortened(first, 100)}, which may stand for install()"
    if name == "include" and not _MODULE.fullmatch(first) and not _cmake_file(first):
        return f"include({shortened(first, 200)}), a file k3diff does not read"
    if name == "add_subdirectory" and not _cmake_file(first + "/CMakeLists.txt"):
        return f"add_subdirectory({shortened(first, 200)}), outside the project"
    named = args[1:] if name == "set" and first == "CMAKE_INSTALL_PREFIX" else args
    if name != "message" and any(_WHEEL_DIR.search(arg) for arg in named):
        return f"{shown} names a wheel directory (SKBUILD_…_DIR) outside install()"
    computed = next((c for arg in named if (c := may_name(arg, WHEEL_NAMES)) is not None), None)
    if name not in _TESTS and computed is not None:
        # stop 73's note: set(X SKBUILD_PLATLIB) then file(COPY … DESTINATION ${${X}_DIR}/…)
        # shipped the fix in a real build while k3diff compared the old file, exit 0.
        shown += f" names {shortened(computed, 200)}, a variable by a computed name"
        return f"{shown} that may be a wheel directory"
    if (why := by_computed_name(command) or outside_build_tree(command)) is not None:
        return why
    written = expander.command(command) if name in {"file", "configure_file"} else None
    unread = expander.values.unread
    if written is not None and (why := outside_build_tree(written, expanded=True)) is not None:
        return why  # review74b: set(D ${CMAKE_SOURCE_DIR}/…) then file(COPY … DESTINATION ${D})
    if written is not None and (why := unread_write(written, unread)):
        return why  # cmake75: cmake_path(SET D …) then file(COPY … DESTINATION ${D})
    if written is not None and (why := each_word_written(command, expander.word, unread)):
        return why  # review75a: D set to build, or to ${CMAKE_SOURCE_DIR}/…, in two branches
    program = expander.command(command) if name in PROGRAMS else command  # set(cmd …), ${cmd}
    if (why := program_writes(program, top, expander.values)) is not None:
        return why
    pieces = [piece for arg in args for piece in arg.split(";")]
    if ATTACHED & set(args) and any(_not_plain(piece) for piece in pieces):
        return f"{shown} attaches files to a target, which install(TARGETS …) ships"
    return None


_SOURCE_DIRS: tuple[str, ...] = ("${CMAKE_CURRENT_LIST_DIR}/", "${CMAKE_CURRENT_SOURCE_DIR}/")
_SOURCE_DIRS += ("${CMAKE_SOURCE_DIR}/", "${PROJECT_SOURCE_DIR}/", "${CMAKE_ROOT}/")


def _cmake_file(path: str) -> bool:
    """Whether `path` (an ``include()``'s) names a ``.cmake`` file within the project, as far
    as its text shows (every one of those is read), or one of CMake's own: relative, or under
    a source directory's variable; not one the configure step writes (review72a:
    ``configure_file(rules.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/rules.cmake)`` then its
    ``include()``, a file k3diff never sees)."""
    place = next((path[len(d) :] for d in _SOURCE_DIRS if path.startswith(d)), path)
    parts = place.split("/")
    return (
        place.endswith((".cmake", "/CMakeLists.txt"))
        and not set(place) & NOT_LITERAL
        and ".." not in parts
        and parts[0] != ""
    )


def _no_python(args: tuple[str, ...]) -> bool:
    """Whether an ``install(FILES|PROGRAMS …)`` names its files, and any ``RENAME``, as literals
    none of which is a Python file: headers and data, which the source check never compares,
    wherever and whenever it installs them (a vendored library's rules under an ``if``)."""
    if not args or args[0].upper() not in {"FILES", "PROGRAMS"}:
        return False
    rest, names = list(args[1:]), []
    while rest and rest[0] not in _VALUED | _FLAGS | {_PERMISSIONS}:
        names.append(rest.pop(0))
    if "RENAME" in rest and rest.index("RENAME") + 1 < len(rest):
        names.append(rest[rest.index("RENAME") + 1])
    return bool(names) and not any(_not_plain(name) for name in names)


def _not_plain(name: str) -> bool:
    """Whether `name` may be a Python file: not a literal, or named as one."""
    return bool(set(name) & NOT_LITERAL) or name.lower().endswith(_PYTHON)


def _may_be_install(name: str) -> bool:
    """Whether the command name a ``function()`` or ``macro()`` defines (as `Command.args`
    holds it) may be ``install`` or ``_install``: so named, or not a literal."""
    return name.lower().lstrip("_") == "install" or not name or bool(set(name) & NOT_LITERAL)


def _inside(path: str) -> str | None:
    """`path` normalised, or None for an absolute path or one leaving its root."""
    if path.startswith("/") or "\\" in path or "\0" in path:
        return None
    cleaned = posixpath.normpath(path)
    return None if cleaned in {".", ".."} or cleaned.startswith("../") else cleaned
