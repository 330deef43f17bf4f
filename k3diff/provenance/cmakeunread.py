"""Variables a project's CMake sets by commands whose value k3diff does not evaluate, and the
references to them a write or a program depends on.

``cmake_path(SET D ${CMAKE_SOURCE_DIR}/src/pkg/sub)``, ``string(TOLOWER …)``,
``file(REAL_PATH src/pkg/sub D)``, ``find_path(D auth.py PATHS …)``, ``execute_process(…
OUTPUT_VARIABLE D)`` each give ``D`` a value made by CMake (or by a program, or by the files
of the machine building it); a ``file(COPY fixes/auth.py DESTINATION ${D})`` then wrote into
the project's package in a real build (``cmake`` 3.25.1 configuring the commit, as
scikit-build-core does before copying the packages' files), while k3diff read ``${D}`` as a
place under a variable it does not read and compared the old file: a wheel reverting to it
matched, exit 0 (cmake75). Such a value is not computed here (CMake's own string, path and
regex rules, and the machine's files, decide it): a write's target, or a program's word or
directory, holding a reference to one of these variables stops the check. So do the values
``list(GET|JOIN|POP_FRONT|TRANSFORM …)``, ``cmake_parse_arguments()``, ``get_…property()``,
``separate_arguments()``, ``include(… RESULT_VARIABLE …)`` and a regular expression's match
(``${CMAKE_MATCH_1}``) give: each reached the package's directory in a real configure while
k3diff read it as another variable's, exit 0 (review75a).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from k3diff.provenance.cmakelists import Command

_STRING_OUT = {"REPLACE": 3, "TOLOWER": 2, "TOUPPER": 2, "SUBSTRING": 4, "JOIN": 2}
_STRING_OUT |= {"STRIP": 2, "GENEX_STRIP": 2, "REPEAT": 3, "CONFIGURE": 2, "JSON": 1}
_STRING_OUT |= {"MAKE_C_IDENTIFIER": 2, "ASCII": -1, "HEX": 2, "LENGTH": 2, "FIND": 3}
_STRING_OUT |= {"TIMESTAMP": 1, "UUID": 1, "RANDOM": -1}
"""``string()`` subcommands and the index of the variable each sets (-1: the last argument);
not ``APPEND``, ``PREPEND`` or ``CONCAT``, whose pieces `cmakevalues` reads as words."""
_REGEX_OUT = {"MATCH": 3, "MATCHALL": 3, "REPLACE": 4}
"""``string(REGEX …)`` subcommands and the index of the variable each sets."""
_FILE_OUT = {"READ": 2, "STRINGS": 2, "GLOB": 1, "GLOB_RECURSE": 1, "REAL_PATH": 2}
_FILE_OUT |= {"RELATIVE_PATH": 1, "TO_CMAKE_PATH": 2, "TO_NATIVE_PATH": 2, "SIZE": 2}
_FILE_OUT |= {"READ_SYMLINK": 2, "TIMESTAMP": 2}
_FILE_OUT |= {h: 2 for h in ("MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512")}
"""``file()`` subcommands reading a value and the index of the variable each sets."""
_PATH_SET = frozenset(
    {"SET", "APPEND", "APPEND_STRING", "REMOVE_FILENAME", "REPLACE_FILENAME", "NORMAL_PATH"}
    | {"REMOVE_EXTENSION", "REPLACE_EXTENSION", "RELATIVE_PATH", "ABSOLUTE_PATH"}
)
"""``cmake_path()`` subcommands changing the path variable they are given (or setting the
``OUTPUT_VARIABLE`` instead)."""
_FINDERS = frozenset({"find_file", "find_path", "find_program", "find_library"})
_OUTPUTS = frozenset({"OUTPUT_VARIABLE", "ERROR_VARIABLE", "RESULT_VARIABLE", "PROGRAM_ARGS"})
"""Keywords naming a variable set (``include(… RESULT_VARIABLE R)``: the file's full path,
review75a: ``src/pkg/sub/x.cmake``'s directory took the fix in a real configure, exit 0)."""
_LIST_OUT = {"GET": -1, "JOIN": -1, "SUBLIST": -1, "FIND": -1, "LENGTH": -1, "TRANSFORM": 1}
"""``list()`` subcommands and the index of the variable each sets (``TRANSFORM``: its list,
or its ``OUTPUT_VARIABLE``; ``POP_BACK`` and ``POP_FRONT``: every one after the list)."""
_FIRST = frozenset(
    {"get_property", "get_directory_property", "get_target_property", "get_cmake_property"}
    | {"get_source_file_property", "get_test_property", "separate_arguments", "site_name"}
)
"""Commands setting their first argument: a property (``get_directory_property(D
SOURCE_DIR)``: the project's directory), a command line split, the host's name."""
_MATCHES = (*(f"CMAKE_MATCH_{n}" for n in range(10)), "CMAKE_MATCH_COUNT")
"""What a regular expression's match sets (``string(REGEX …)``, ``if(… MATCHES …)``)."""
_PARSED = "_*"
"""A key of `unread` ending so stands for every variable its prefix and ``_`` start:
``cmake_parse_arguments(ARG …)`` sets ``ARG_DEST`` …, whose keywords a variable may hold."""
_PREFIX_CAP = 64
"""Characters of such a prefix looked up; a longer one (``_LONG``) stands for every name its
first ones start (each lookup then takes a bounded time, whatever a hostile name's length)."""
_LONG = "*"
_REFERENCE = re.compile(r"\$(?:CACHE)?\{([A-Za-z0-9_.+/-]+)\}")
"""A reference (CMake's names may hold ``/``: review75a, ``${a/b}``)."""


def unread_names(command: Command) -> tuple[str, ...]:
    """The variables `command` sets to a value k3diff does not evaluate (a name ending in
    `_PARSED`: each its prefix starts)."""
    name, args = command.name, command.args
    sub = args[0].upper() if args else ""
    at: int | None = None
    if name == "string" and sub == "REGEX" and len(args) > 1:
        at = _REGEX_OUT.get(args[1].upper())
    elif name == "string":
        at = _STRING_OUT.get(sub)
    elif name == "file":
        at = _FILE_OUT.get(sub)
    elif name in _FINDERS or (name == "get_filename_component" and "PROGRAM" in args[2:3]):
        at = 0  # a found file, or a program's path (``PROGRAM_ARGS``' variable too, below)
    elif name == "cmake_path" and sub in _PATH_SET:
        at = 1
    elif name == "cmake_path" and args:
        at = -1
    elif name == "list":
        at = _LIST_OUT.get(sub)
    elif name in _FIRST or (name == "math" and sub == "EXPR"):
        at = 1 if name == "math" else 0
    found = [args[at]] if at is not None and -len(args) <= at < len(args) else []
    if name in {"execute_process", "cmake_path", "get_filename_component", "list", "include"}:
        found += [args[i + 1] for i, a in enumerate(args[:-1]) if a in _OUTPUTS]
    if name == "list" and sub in {"POP_BACK", "POP_FRONT"}:
        found += args[2:]  # review75a: list(POP_FRONT L D) gave D a word of L's, unread
    if name == "cmake_parse_arguments" and len(args) > (2 if sub == "PARSE_ARGV" else 0):
        prefix = args[2 if sub == "PARSE_ARGV" else 0]  # review75a: ${ARG_DEST} wrote there
        short = len(prefix) <= _PREFIX_CAP
        found.append(prefix + _PARSED if short else prefix[:_PREFIX_CAP] + _LONG)
    if "REGEX" in args or "MATCHES" in args:
        found += _MATCHES  # review75a: ${CMAKE_MATCH_1} named the package's directory
    return tuple(found)


def unread_as(variable: str, unread: Mapping[str, str]) -> str | None:
    """The command `unread` says sets `variable` (by its name, or by a prefix of it and
    ``_`` where `_PARSED` ends a key, or its first `_PREFIX_CAP` characters `_LONG`), or
    None."""
    if variable in unread:
        return unread[variable]
    head = variable[: _PREFIX_CAP + 1]
    for at, char in enumerate(head):
        if char == "_" and (shown := unread.get(head[:at] + _PARSED)) is not None:
            return shown
    return unread.get(head[:_PREFIX_CAP] + _LONG) if len(head) > _PREFIX_CAP else None


def unread_reference(
    words: tuple[str, ...], unread: Mapping[str, str], but: frozenset[str] = frozenset()
) -> str | None:
    """Why a write or a program given `words` depends on a variable of `unread` (not one of
    `but`): ``'${D}', which cmake_path(…) at CMakeLists.txt line 3 sets``; None where none
    does."""
    for word in words:
        for reference in _REFERENCE.finditer(word):
            if reference[1] in but:
                continue
            if (shown := unread_as(reference[1], unread)) is not None:
                return f"{reference[0]!r}, which {shown} sets"
    return None


_GLOBS = frozenset({"GLOB", "GLOB_RECURSE"})
_GLOB_WORDS = frozenset({"LIST_DIRECTORIES", "true", "false", "CONFIGURE_DEPENDS"})
_GLOB_WORDS |= {"FOLLOW_SYMLINKS"}
_PYTHON = (".py", ".pyi", ".pyw", ".pyc", ".pyo", ".pth")


def globbed_inputs(command: Command) -> bool:
    """Whether `command` is a ``file(GLOB|GLOB_RECURSE V …)`` each of whose patterns ends in
    a literal suffix other than Python's (``${CMAKE_CURRENT_SOURCE_DIR}/*.pyx``): its files,
    named as a build step's ``DEPENDS``, are read as that step's inputs (review75a: the
    step's other values not evaluated, ``cmake_path(SET D …/src/pkg/sub/auth.py)`` named in
    ``DEPENDS ${D}`` too, stop it; its ``-E copy … ${D}`` wrote the fix, exit 0)."""
    args = command.args
    if command.name != "file" or not args or args[0] not in _GLOBS or len(args) < 3:
        return False
    patterns, skip = [], False
    for arg in args[2:]:
        if not skip and arg not in _GLOB_WORDS and arg != "RELATIVE":
            patterns.append(arg)
        skip = arg == "RELATIVE"
    suffixes = [p.rpartition("/")[2].rpartition(".") for p in patterns]
    return bool(patterns) and all(
        dot and suffix and not set(suffix) & set('$;*?[]\\{}<>@"') and f".{suffix}" not in _PYTHON
        for _, dot, suffix in suffixes
    )
