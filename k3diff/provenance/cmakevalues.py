"""The values a project's CMake gives its variables in its own words, read where a program's
words or a write's target hold a variable (``set(cmd cp fixes/auth.py src/pkg/sub/auth.py)``
then ``execute_process(COMMAND ${cmd})``: review74b, a real build, scikit-build-core 1.1.2,
CMake 3.25, shipped the fix while k3diff read ``${cmd}`` as a place it does not read, exit 0).

Every ``set()``, ``list(APPEND|PREPEND|INSERT …)``, ``string(APPEND|PREPEND|CONCAT …)``,
``get_filename_component()``, ``foreach()``, call of a ``function()`` or ``macro()`` (its
parameters, ``ARGN``, ``ARGV…``) anywhere in the project's CMake, and ``pyproject.toml``'s
``cmake.define`` and ``cmake.args`` ``-D``, count, whatever their condition, scope or order: a
reference stands for every word any of them gives it (a list, as CMake splits an unquoted
reference), so a check of each word sees the worst. A name set by a command
whose value is not evaluated (``string(REPLACE …)``, ``cmake_path()``, ``find_path()``, a
program's ``OUTPUT_VARIABLE``: `cmakeunread`) keeps its reference, whatever words other
commands give it, and a write or a program depending on it stops the check; one the project
never sets (``find_package()``'s, the builder's cache or environment) keeps its reference,
read as before (not said). References inside values are replaced a few rounds
over (``set(flags ${flags} -O2)`` stops growing there), each word and the whole check within
a budget: past it, the check stops (a hostile CMake of nested lists doubling each round).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from k3diff.escape import shortened
from k3diff.provenance.cmakelists import Command
from k3diff.provenance.cmakenames import in_source_tree
from k3diff.provenance.cmakeunread import (
    globbed_inputs,
    unread_as,
    unread_names,
    unread_reference,
)

WORD_CAP = 1 << 16
"""Characters one expanded argument may reach."""
BUDGET = 1 << 24
"""Characters all expanded arguments of one check may reach together."""
_ROUNDS = 4
_REFERENCE = re.compile(r"\$(?:CACHE|(ENV))?\{([A-Za-z0-9_.+/-]+)\}")
"""A reference: ``${X}``, ``$CACHE{X}`` (``set(X … CACHE …)``'s), ``$ENV{X}`` (``set(ENV{X}
…)``'s, the project's own, else the builder's, left as written); a name may hold ``/``
(review75a: ``set(a/b ${CMAKE_SOURCE_DIR}/src/pkg/sub)`` then ``${a/b}`` wrote there)."""
_DEFINERS = frozenset({"function", "macro"})
_SEARCHED = frozenset(
    {"ENV{PATH}", "CMAKE_PROGRAM_PATH", "CMAKE_PREFIX_PATH", "CMAKE_FIND_ROOT_PATH"}
    | {"CMAKE_SYSTEM_PROGRAM_PATH", "CMAKE_SYSTEM_PREFIX_PATH", "CMAKE_SYSROOT"}
    | {"ENV{CMAKE_PROGRAM_PATH}", "ENV{CMAKE_PREFIX_PATH}", "CMAKE_APPBUNDLE_PATH"}
)
"""Places ``find_program()`` searches that a project may set (review75a: ``list(APPEND
CMAKE_PROGRAM_PATH ${CMAKE_SOURCE_DIR}/fixes)``, or ``set(ENV{PATH} …)``, then
``find_program(P cp.sh)`` found the project's script, which wrote the fix, exit 0)."""
_IN = frozenset({"LISTS", "ITEMS", "ZIP_LISTS"})
Args = tuple[str, ...]
_LISTED = {"APPEND": 2, "PREPEND": 2, "INSERT": 3}
"""``list()`` subcommands adding the words from this index on."""


@dataclass(frozen=True)
class Values:
    """Each variable's words, as the project's commands and settings give them."""

    words: Mapping[str, tuple[str, ...]]
    fetched: frozenset[str]
    """Lower-case names ``FetchContent_Declare`` or ``ExternalProject_Add`` fetch into the
    build tree (``${bundled_libsodium_SOURCE_DIR}``, pyzmq's)."""
    entries: frozenset[str] = frozenset()
    """The names at the project's top (``src``, ``fixes``), each a place a bare word of a
    program running there may name."""
    unread: Mapping[str, str] = field(default_factory=dict)
    """Each variable a command k3diff does not evaluate sets (`unread_names`), and the first
    such command (``cmake_path(…) at CMakeLists.txt line 3``): its references are kept as
    written, never replaced by the words another command gives it."""
    globbed: frozenset[str] = frozenset()
    """The variables of `unread` only ``file(GLOB …)`` of files named as other than Python's
    sets (`globbed_inputs`), read as a build step's inputs where its ``DEPENDS`` names them."""
    programs: frozenset[str] = frozenset()
    """The variables of `unread` only ``find_program()`` sets, searching no place of the
    project: a build step running one as its program (``COMMAND ${CYTHON} …``) runs a
    program of the building machine's, whose words are read (review75a: not another
    command's, ``cmake_path(SET P ${CMAKE_SOURCE_DIR}/fixes/cp.sh)`` then ``COMMAND ${P}``
    ran the project's script, which wrote the fix into the package, exit 0)."""


def project_values(
    parsed: Mapping[str, Sequence[Command]],
    entries: frozenset[str],
    document: Mapping[str, object] | None = None,
) -> Values:
    """The `Values` of the project's parsed CMake files, whose top holds `entries`, and of
    its ``pyproject.toml`` `document`'s ``cmake.define`` (and each override's: review74b,
    ``cmake.define = {W = "src/pkg/sub"}`` reached ``WORKING_DIRECTORY ${W}`` in a real
    build)."""
    every = [command for commands in parsed.values() for command in commands]
    unread: dict[str, str] = {}
    searching: set[str] = set()  # set otherwise than by a find_program() of no project place
    other: set[str] = set()  # set otherwise than by a file(GLOB) of no Python file
    for path, commands in parsed.items():
        for command in commands:
            for variable in unread_names(command):
                shown = f"{shortened(command.name, 100)}(…) at {path} line {command.line}"
                unread.setdefault(variable, shown)
                searching |= {variable} if command.name != "find_program" else set()
                other |= {variable} if not globbed_inputs(command) else set()
    every += [Command("set", words, False, 0, True) for words in _defines(document or {})]
    defined = {c.args[0].lower(): c.args[1:] for c in every if c.name in _DEFINERS and c.args}
    words: dict[str, dict[str, None]] = {}
    fetched: set[str] = set()
    for command in every:
        name, args = command.name, command.args
        if name in {"fetchcontent_declare", "externalproject_add"} and args:
            fetched.add(args[0].lower())
        for variable, given in _named(command, defined.get(name)):
            into = words.setdefault(variable, {})
            into.update(dict.fromkeys(piece for a in given for piece in a.split(";")))
    known = {k: tuple(v) for k, v in words.items() if unread_as(k, unread) is None}
    values = Values(known, frozenset(fetched), entries, unread)
    programs = _found_programs(every, values, searching)
    # review75a: set(P ${CMAKE_SOURCE_DIR}/fixes/cp.sh) over find_program(P …) ran the script
    kept = {k: tuple(v) for k, v in words.items() if k in programs}
    globbed = frozenset(unread) - other - set(words)  # not one set() may give words too
    return replace(values, words=known | kept, programs=programs, globbed=globbed)


def _found_programs(every: list[Command], values: Values, searching: set[str]) -> frozenset[str]:
    """The variables only ``find_program()`` sets (none of `searching`), given no place of
    the project (`_in_project`: its names, ``PATHS`` and ``HINTS``, their variables replaced
    by `values`' words; past the budget, read as one), where no `_SEARCHED` variable may
    name one either."""
    expander, found = Expander(values), set()
    try:
        paths = [expander.word(w) for k in sorted(_SEARCHED) for w in values.words.get(k, ())]
    except OverBudget:
        paths = [".."]
    if any(_in_project(w, values) for w in paths) or any(k in values.unread for k in _SEARCHED):
        return frozenset()
    for command in (c for c in every if c.name == "find_program" and c.args):
        try:
            args = expander.command(command).args
        except OverBudget:
            args = ("..",)
        doc = {i + 1 for i, a in enumerate(args) if a == "DOC"}  # its text, not a place
        if any(_in_project(a, values) for i, a in enumerate(args) if i not in doc):
            searching.add(command.args[0])
        found.add(command.args[0])
    return frozenset(found - searching)


def _in_project(word: str, values: Values) -> bool:
    """Whether `word`, or a piece of it between ``:`` or ``;`` (a search path), may name a
    place of the project: under a source directory's variable, up (``..``), a relative path
    of more than one part, a name at its top (``fixes``), or under a value not evaluated."""
    if unread_reference((word,), values.unread) is not None:
        return True
    for piece in re.split("[:;]", word):
        if in_source_tree(piece) or ".." in piece.split("/") or piece in values.entries:
            return True
        if "/" in piece and not piece.startswith(("$", "/")):
            return True
    return False


def _named(command: Command, parameters: tuple[str, ...] | None) -> list[tuple[str, Args]]:
    """Each variable `command` gives words, and them: ``set()``, ``list(APPEND|PREPEND|INSERT
    …)``, ``string(APPEND|PREPEND|CONCAT …)`` (its pieces), ``get_filename_component()``
    (its path, taken from the source directory where made absolute), ``foreach()``'s loop variable
    (``IN LISTS L``: ``${L}``'s words), ``set_property(CACHE … PROPERTY VALUE …)``'s
    entries, and a call of a ``function()`` or ``macro()`` of
    these `parameters` (each, ``ARGN``, ``ARGV``, ``ARGV0`` …: review74b, ``run(cp
    fixes/auth.py src/pkg/sub/auth.py)`` of ``execute_process(COMMAND ${ARGN})``)."""
    name, args = command.name, command.args
    if parameters is not None:
        bound = [(p, args[i : i + 1]) for i, p in enumerate(parameters)]
        bound += [(f"ARGV{i}", (a,)) for i, a in enumerate(args)]
        return [*bound, ("ARGN", args[len(parameters) :]), ("ARGV", args)]
    if name == "set" and args:  # not CACHE's type and help text, nor PARENT_SCOPE
        words = args[1 : args.index("CACHE")] if "CACHE" in args[1:] else args[1:]
        return [(args[0], tuple(w for w in words if w != "PARENT_SCOPE"))]
    if name == "list" and len(args) > 1 and args[0] in _LISTED:
        return [(args[1], args[_LISTED[args[0]] :])]
    if name == "string" and len(args) > 1 and args[0] in {"APPEND", "PREPEND", "CONCAT"}:
        return [(args[1], args[2:])]
    if name == "get_filename_component" and len(args) > 2:
        # review74b: ABSOLUTE and REALPATH take a relative path from the source directory
        absolute = args[2] in {"ABSOLUTE", "REALPATH"} and not args[1].startswith(("/", "$"))
        return [(args[0], (args[1], *[f"${{CMAKE_CURRENT_SOURCE_DIR}}/{args[1]}"] * absolute))]
    if name == "foreach" and args:
        return [(args[0], args[1:] if args[1:2] != ("IN",) else _looped(args[2:]))]
    if name == "set_property" and args[:1] == ("CACHE",) and "PROPERTY" in args:
        # review75a: set_property(CACHE D PROPERTY VALUE ${CMAKE_SOURCE_DIR}/…) wrote there
        at = args.index("PROPERTY")
        named = [n for n in args[1:at] if n not in {"APPEND", "APPEND_STRING"}]
        return [(n, args[at + 2 :]) for n in named] if args[at + 1 : at + 2] == ("VALUE",) else []
    return []


def _defines(document: Mapping[str, object]) -> Iterator[Args]:
    """(name, *words) for each ``cmake.define`` entry and ``cmake.args`` ``-D`` of
    `document`'s ``[tool.scikit-build]`` and its overrides (a table's value, read from the
    builder's environment, left out)."""
    tool = document.get("tool")
    table = tool.get("scikit-build") if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        return
    overrides = table.get("overrides")
    for where in [table, *(overrides if isinstance(overrides, list) else [])]:
        cmake = where.get("cmake") if isinstance(where, dict) else None
        defined = cmake.get("define") if isinstance(cmake, dict) else None
        args = cmake.get("args") if isinstance(cmake, dict) else None
        for arg in args if isinstance(args, list) else ():  # -DW=… or -DW:PATH=…
            if isinstance(arg, str) and arg.startswith("-D") and "=" in arg:
                name, _, value = arg[2:].partition("=")
                yield name.partition(":")[0], value
        for name, value in defined.items() if isinstance(defined, dict) else ():
            if isinstance(value, bool):
                yield name, "TRUE" if value else "FALSE"
            elif isinstance(value, (str, list)):
                yield name, *(str(v) for v in ([value] if isinstance(value, str) else value))


def _looped(args: Args) -> Args:
    """The words ``foreach(V IN …)`` gives `V`: ``ITEMS``' words, ``LISTS``' references."""
    words, keyword = [], ""
    for arg in args:
        if arg in _IN:
            keyword = arg
        else:
            words.append(arg if keyword == "ITEMS" else f"${{{arg}}}")
    return tuple(words)


def _key(reference: re.Match[str]) -> str:
    """The name a reference's words are kept under (``ENV{X}`` for ``$ENV{X}``)."""
    return f"ENV{{{reference[2]}}}" if reference[1] else reference[2]


class OverBudget(Exception):
    """The project's variables expand past `WORD_CAP` or `BUDGET`."""


class Expander:
    """Replaces references to the variables `Values` holds, within `BUDGET`."""

    def __init__(self, values: Values) -> None:
        self.values = values
        self.spent = 0

    def word(self, text: str) -> str:
        """`text` with each known reference replaced by its words (``;``-joined); raises
        `OverBudget`."""
        words = self.values.words
        for _ in range(_ROUNDS):
            if "$" not in text:
                break
            done = _REFERENCE.sub(lambda m: ";".join(words.get(_key(m), (m[0],))), text)
            self.spent += len(done)
            if len(done) > WORD_CAP or self.spent > BUDGET:
                raise OverBudget(text)
            if done == text:
                break
            text = done
        return text

    def command(self, command: Command) -> Command:
        """`command` with each argument holding a known reference replaced by its words, one
        argument each (as CMake splits an unquoted list); raises `OverBudget`."""
        if not any("$" in arg for arg in command.args):
            return command
        args: list[str] = []
        for arg in command.args:
            done = self.word(arg) if "$" in arg else arg
            args += done.split(";") if done != arg else [arg]
        return replace(command, args=tuple(args))
