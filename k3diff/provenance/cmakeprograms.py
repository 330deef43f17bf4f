"""Programs a CMake build runs (``execute_process`` at configure time, ``add_custom_command``
and ``add_custom_target`` at build time), and whether their words point them outside the
build tree.

A program writes wherever its own code decides, which k3diff does not read: only the words
the CMake gives it are. scikit-build-core configures in the project's directory, so
``execute_process`` (with no ``WORKING_DIRECTORY``) runs there: ``execute_process(COMMAND
${CMAKE_COMMAND} -E copy fixes/auth.py src/pkg/sub/auth.py)`` shipped the fix in a real build
(scikit-build-core 1.1.2, CMake 3.25), the packages' files being copied after CMake runs, and
so did ``add_custom_target(fix ALL COMMAND ${CMAKE_COMMAND} -E copy
${CMAKE_CURRENT_SOURCE_DIR}/fixes/auth.py ../wheel/platlib/pkg/sub/auth.py)`` at build time,
while k3diff compared the old file and a wheel reverting to it matched, exit 0 (stop 73's
note). A program given a place that may be outside the build tree (a ``..`` part, an absolute
path, a source directory's variable, anywhere in a word, as in a shell command line; a
relative path, or ``-P``, where it runs in the project; any word where it runs below the
project's directory) is said; a program given only build-tree places, or places under other variables (``cython
${ZMQ_PYX} --output-file ${ZMQ_C}``, pyzmq), is not: what its code writes elsewhere is seen
only by building the commit.
"""

from __future__ import annotations

import re

from k3diff.escape import shortened
from k3diff.provenance.cmakelists import Command
from k3diff.provenance.cmakenames import SOURCE_NAMES, in_source_tree, may_name
from k3diff.provenance.cmakeunread import unread_reference
from k3diff.provenance.cmakevalues import Values

PROGRAMS = frozenset({"execute_process", "add_custom_command", "add_custom_target"})
_FETCHERS = frozenset({"externalproject_add", "fetchcontent_declare", "fetchcontent_populate"})
"""Module functions fetching, building and installing another project, whose places
(``SOURCE_DIR``, ``file://…``) and commands (``DOWNLOAD_COMMAND``) are read as a build step's:
review74b, a real build: ``FetchContent_Declare(x URL file://${CMAKE_SOURCE_DIR}/fix.tar
SOURCE_DIR ${CMAKE_SOURCE_DIR}/src/pkg/sub)`` unpacked the fix over the package's file."""
PROGRAMS |= _FETCHERS
_DOWNLOADS = frozenset({"URL", "GIT_REPOSITORY", "SVN_REPOSITORY", "HG_REPOSITORY"})
_DOWNLOADS |= {"CVS_REPOSITORY", "DOWNLOAD_COMMAND", "BUILD_IN_SOURCE", "BUILD_COMMAND"}
_DOWNLOADS |= {"CONFIGURE_COMMAND", "INSTALL_COMMAND", "PATCH_COMMAND", "UPDATE_COMMAND"}
"""Keywords by which a fetcher writes into its ``SOURCE_DIR`` (or runs there); without
them, a ``SOURCE_DIR`` in the project is a vendored copy it only reads (correctionlib's
``FetchContent_Declare(pybind11 SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/pybind11)``)."""
_READ = frozenset({"DEPENDS", "MAIN_DEPENDENCY", "IMPLICIT_DEPENDS", "COMMENT", "SOURCES"})
_READ |= {"INPUT_FILE"}
"""Keywords whose values the program reads (or CMake only shows), never writes."""
_DEPENDS = frozenset({"DEPENDS", "MAIN_DEPENDENCY"})
"""Keywords naming the files a build step reads (relative ones from the source directory):
a word naming one of them is its input (scikit-build-core's ``fortran_example`` gives f2py
``${CMAKE_CURRENT_SOURCE_DIR}/fib1.f`` and ``DEPENDS fib1.f``)."""
_KEYWORDS = frozenset(
    {"COMMAND", "ARGS", "OUTPUT", "BYPRODUCTS", "WORKING_DIRECTORY", "DEPFILE", "JOB_POOL"}
    | {"OUTPUT_FILE", "ERROR_FILE", "TIMEOUT", "RESULT_VARIABLE", "RESULTS_VARIABLE"}
    | {"OUTPUT_VARIABLE", "ERROR_VARIABLE", "ENCODING", "COMMAND_ECHO", "TARGET"}
)
"""Other keywords, after which the words are places, commands or names again."""
_OUT_NAMES = frozenset({"RESULT_VARIABLE", "RESULTS_VARIABLE", "OUTPUT_VARIABLE"})
_OUT_NAMES |= {"ERROR_VARIABLE", "TARGET", "JOB_POOL", "TIMEOUT", "ENCODING", "COMMAND_ECHO"}
"""Keywords whose values name a variable, a target or a setting, never a place."""
_ONE = re.compile(r"\$\{([A-Za-z0-9_.+/-]+)\}")
"""A word that is one reference (a step's program, ``${CYTHON}``)."""


def program_writes(command: Command, top: bool, values: Values) -> str | None:
    """Why the program `command` (of the project's top ``CMakeLists.txt`` where `top`, its
    known variables replaced by `values`' words) runs may write outside the build tree, as its
    words show, or None."""
    if command.name not in PROGRAMS:
        return None
    if command.name in _FETCHERS:
        args = command.args[1:]
        if not _DOWNLOADS & set(args) and "SOURCE_DIR" in args[:-1]:  # a directory it reads
            at = args.index("SOURCE_DIR")
            args = args[:at] + args[at + 2 :]
        out = next((a for a in args if points_out(a)), None)
        shown = f"{command.name}(…) fetches a project given {shortened(repr(out), 200)}"
        if out is None and (why := unread_reference(args, values.unread)) is not None:
            return f"{command.name}(…) fetches a project given {why}, not evaluated"
        return None if out is None else f"{shown}, outside the build tree"
    words: list[str] = []
    inputs: set[str] = set()
    directories: list[str | None] = []
    given: list[str] = []  # the words but each command's program, and the directories
    keyword = previous = ""
    for arg in command.args[1 if command.name == "add_custom_target" else 0 :]:
        if arg in _READ or arg in _KEYWORDS:
            keyword = arg
        elif keyword == "WORKING_DIRECTORY":
            directories.append(arg)  # more than one where a variable holds a list
        elif keyword in _DEPENDS:
            inputs |= {arg, f"${{CMAKE_CURRENT_SOURCE_DIR}}/{arg}"}
        elif keyword not in _READ:
            words.append(arg)
        found = previous == "COMMAND" and _ONE.fullmatch(arg)  # the program itself
        if keyword not in _READ and keyword not in _OUT_NAMES and arg != keyword:
            given += [] if found and found[1] in values.programs else [arg]
        previous = arg
    read = tuple(word for word in given if word in inputs)  # a step's input, as below
    given = [word for word in given if word not in inputs]
    why = unread_reference(tuple(given), values.unread)
    if (why := why or unread_reference(read, values.unread, values.globbed)) is not None:
        # cmake75: cmake_path(SET D …) then ${CMAKE_COMMAND} -E copy fixes/auth.py ${D}
        return f"{command.name}(…) runs a program given {why}, not evaluated"
    shown = f"{command.name}(…) runs a program"
    places = [(_where(command.name, d, top, values.fetched), d) for d in directories or [None]]
    place, directory = max(places, key=lambda found: _WORST.index(found[0]))
    if place == _BELOW:
        shown += f" in {shortened(repr(directory), 200)}"
        return f"{shown}, a directory below the project's or outside the build tree"
    for piece in (piece for word in words for piece in word.split(";") if piece not in inputs):
        if points_out(piece):
            return f"{shown} given {shortened(repr(piece), 200)}, outside the build tree"
        if place == _ROOT and piece == "-P":
            # In script mode CMake takes relative paths from where it runs: the project.
            return f"{shown} running a CMake script (-P) in the project's directory"
        if place == _ROOT and (_relative(piece) or piece in values.entries):
            # review74b: ``${CMAKE_COMMAND} -E copy_directory fixes src`` shipped the fix
            shown += f" in the project's directory given {shortened(repr(piece), 200)}"
            return f"{shown}, a place in the project"
    return None


_BUILD, _ROOT, _BELOW = "build tree", "project", "below"
_WORST = (_BUILD, _ROOT, _BELOW)
_ROOTS = frozenset({"${CMAKE_SOURCE_DIR}", "${CMAKE_HOME_DIRECTORY}", ".", "./"})
_A_ROOT = re.compile(r"\$\{(\w*)_SOURCE_DIR\}")
"""A project's root (``${PROJECT_SOURCE_DIR}``, a ``project(pkg)``'s ``${pkg_SOURCE_DIR}``), or
a fetched dependency's (pyzmq's ``${bundled_libsodium_SOURCE_DIR}``), in the build tree."""
_HERE = frozenset({"${CMAKE_CURRENT_SOURCE_DIR}", "${CMAKE_CURRENT_LIST_DIR}"})


def _where(name: str, directory: str | None, top: bool, fetched: frozenset[str]) -> str:
    """Where the program runs, as far as its relative words go: the build tree (a build
    step's default, a directory under another variable, read as not leaving it); the
    project's directory (``execute_process``'s default: where CMake runs, the project's
    directory under scikit-build-core); or below it, or outside the build tree (a ``..``
    part, an absolute path), where a bare name (``auth.py``) may be a package's file."""
    if directory is None:
        return _ROOT if name == "execute_process" else _BUILD
    base = directory.rstrip("/")
    if (root := _A_ROOT.fullmatch(base)) and root[1].lower() in fetched:
        return _BUILD  # a fetched project's, its own place checked where it is fetched
    if base in _ROOTS or _A_ROOT.fullmatch(base) or (top and base in _HERE):
        return _ROOT
    if _away(directory) or in_source_tree(directory):
        return _BELOW
    relative = not directory.startswith("$")
    return _BELOW if relative and name == "execute_process" else _BUILD


def _away(word: str) -> bool:
    """Whether `word`, as a path, may lead away from where it is taken: a ``..`` part, or an
    absolute path (of two parts or more: not an option such as ``/m``)."""
    parts = word.split("/")
    return ".." in parts or (word.startswith("/") and len(parts) > 2)


_WORD_START = r"(?:^|(?<=[\s=:'\"]))"
_UP = re.compile(r"(?:^|(?<=[\s=:'\"/]))\.\.(?:[/\s'\"]|$)")
_ABSOLUTE = re.compile(_WORD_START + r"/[^/\s]+/")
_SOURCE_VARIABLE = re.compile(
    r"\$\{(?:CMAKE_SOURCE_DIR|CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR"
    r"|CMAKE_HOME_DIRECTORY|\w*_SOURCE_DIR)\}"
)


def points_out(word: str) -> bool:
    """Whether a program's `word` names, anywhere in it (``--prefix=…``, a shell command line
    ``cp fixes/auth.py ${CMAKE_SOURCE_DIR}/src/pkg/sub/``), a path with a ``..`` part, an
    absolute path of two parts or more (not an option such as ``/m``), or a source
    directory's variable, by name or by a computed name."""
    if _UP.search(word) or _ABSOLUTE.search(word) or _SOURCE_VARIABLE.search(word):
        return True
    return "${" in word and may_name(word, SOURCE_NAMES) is not None


def _relative(word: str) -> bool:
    """Whether `word` may be a relative path of more than one part (``src/pkg/x.py``), not an
    option, a variable's value or a URL."""
    return "/" in word and not word.startswith(("$", "-")) and "://" not in word
