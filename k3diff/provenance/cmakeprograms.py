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

PROGRAMS = frozenset({"execute_process", "add_custom_command", "add_custom_target"})
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


def program_writes(command: Command, top: bool) -> str | None:
    """Why the program `command` (of the project's top ``CMakeLists.txt`` where `top`) runs
    may write outside the build tree, as its words show, or None."""
    if command.name not in PROGRAMS:
        return None
    words: list[str] = []
    inputs: set[str] = set()
    directory: str | None = None
    keyword = ""
    for arg in command.args[1 if command.name == "add_custom_target" else 0 :]:
        if arg in _READ or arg in _KEYWORDS:
            keyword = arg
        elif keyword == "WORKING_DIRECTORY":
            directory = arg
        elif keyword in _DEPENDS:
            inputs |= {arg, f"${{CMAKE_CURRENT_SOURCE_DIR}}/{arg}"}
        elif keyword not in _READ:
            words.append(arg)
    shown = f"{command.name}(…) runs a program"
    place = _where(command.name, directory, top)
    if place == _BELOW:
        shown += f" in {shortened(repr(directory), 200)}"
        return f"{shown}, a directory below the project's or outside the build tree"
    for piece in (piece for word in words for piece in word.split(";") if piece not in inputs):
        if _points_out(piece):
            return f"{shown} given {shortened(repr(piece), 200)}, outside the build tree"
        if place == _ROOT and piece == "-P":
            # In script mode CMake takes relative paths from where it runs: the project.
            return f"{shown} running a CMake script (-P) in the project's directory"
        if place == _ROOT and _relative(piece):
            shown += f" in the project's directory given {shortened(repr(piece), 200)}"
            return f"{shown}, a place in the project"
    return None


_BUILD, _ROOT, _BELOW = "build tree", "project", "below"
_ROOTS = frozenset({"${CMAKE_SOURCE_DIR}", "${CMAKE_HOME_DIRECTORY}", ".", "./"})
_A_ROOT = re.compile(r"\$\{\w*_SOURCE_DIR\}")
"""A project's root (``${PROJECT_SOURCE_DIR}``, a ``project(pkg)``'s ``${pkg_SOURCE_DIR}``), or
a fetched dependency's (pyzmq's ``${bundled_libsodium_SOURCE_DIR}``), in the build tree."""
_HERE = frozenset({"${CMAKE_CURRENT_SOURCE_DIR}", "${CMAKE_CURRENT_LIST_DIR}"})


def _where(name: str, directory: str | None, top: bool) -> str:
    """Where the program runs, as far as its relative words go: the build tree (a build
    step's default, a directory under another variable, read as not leaving it); the
    project's directory (``execute_process``'s default: where CMake runs, the project's
    directory under scikit-build-core); or below it, or outside the build tree (a ``..``
    part, an absolute path), where a bare name (``auth.py``) may be a package's file."""
    if directory is None:
        return _ROOT if name == "execute_process" else _BUILD
    base = directory.rstrip("/")
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


def _points_out(word: str) -> bool:
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
