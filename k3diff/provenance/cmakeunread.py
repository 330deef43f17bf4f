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
directory, holding a reference to one of these variables stops the check.
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
_REFERENCE = re.compile(r"\$(?:CACHE)?\{([A-Za-z0-9_.+-]+)\}")


def unread_names(command: Command) -> tuple[str, ...]:
    """The variables `command` sets to a value k3diff does not evaluate."""
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
    found = [args[at]] if at is not None and -len(args) <= at < len(args) else []
    if name in {"execute_process", "cmake_path", "get_filename_component"}:
        found += [args[i + 1] for i, a in enumerate(args[:-1]) if a in _OUTPUTS]
    return tuple(found)


def unread_reference(words: tuple[str, ...], unread: Mapping[str, str]) -> str | None:
    """Why a write or a program given `words` depends on a variable of `unread`:
    ``'${D}', which cmake_path(…) at CMakeLists.txt line 3 sets``; None where none does."""
    for word in words:
        for reference in _REFERENCE.finditer(word):
            if reference[1] in unread:
                return f"{reference[0]!r}, which {unread[reference[1]]} sets"
    return None
