"""The values a project's CMake gives its variables in its own words, read where a program's
words or a write's target hold a variable (``set(cmd cp fixes/auth.py src/pkg/sub/auth.py)``
then ``execute_process(COMMAND ${cmd})``: review74b, a real build, scikit-build-core 1.1.2,
CMake 3.25, shipped the fix while k3diff read ``${cmd}`` as a place it does not read, exit 0).

Every ``set()``, ``list(APPEND|PREPEND|INSERT …)`` of a name anywhere in the project's CMake
counts, whatever its condition, scope or order: a reference stands for every word any of them
gives it (a list, as CMake splits an unquoted reference), so a check of each word sees the
worst. A name written otherwise (``string()``, a loop, the cache from the command line) keeps
its reference, which is read as before. References inside values are replaced a few rounds
over (``set(flags ${flags} -O2)`` stops growing there), each word and the whole check within
a budget: past it, the check stops (a hostile CMake of nested lists doubling each round).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from k3diff.provenance.cmakelists import Command

WORD_CAP = 1 << 16
"""Characters one expanded argument may reach."""
BUDGET = 1 << 24
"""Characters all expanded arguments of one check may reach together."""
_ROUNDS = 4
_REFERENCE = re.compile(r"\$\{([A-Za-z0-9_.+-]+)\}")
_LISTED = {"APPEND": 2, "PREPEND": 2, "INSERT": 3}
"""``list()`` subcommands adding the words from this index on."""


@dataclass(frozen=True)
class Values:
    """Each variable's words, as the project's ``set()`` and ``list()`` calls give them."""

    words: Mapping[str, tuple[str, ...]]
    fetched: frozenset[str]
    """Lower-case names ``FetchContent_Declare`` or ``ExternalProject_Add`` fetch into the
    build tree (``${bundled_libsodium_SOURCE_DIR}``, pyzmq's)."""
    entries: frozenset[str] = frozenset()
    """The names at the project's top (``src``, ``fixes``), each a place a bare word of a
    program running there may name."""


def project_values(parsed: Iterable[Sequence[Command]], entries: frozenset[str]) -> Values:
    """The `Values` of the project's parsed CMake files, whose top holds `entries`."""
    words: dict[str, dict[str, None]] = {}
    fetched: set[str] = set()
    for commands in parsed:
        for command in commands:
            name, args = command.name, command.args
            if name in {"fetchcontent_declare", "externalproject_add"} and args:
                fetched.add(args[0].lower())
            if (named := _named(command)) is not None:
                into = words.setdefault(named[0], {})
                into.update(dict.fromkeys(piece for a in named[1] for piece in a.split(";")))
    return Values({k: tuple(v) for k, v in words.items()}, frozenset(fetched), entries)


def _named(command: Command) -> tuple[str, tuple[str, ...]] | None:
    """The variable a ``set()`` or ``list(APPEND|PREPEND|INSERT …)`` gives words, and them."""
    args = command.args
    if command.name == "set" and args:
        return args[0], args[1:]
    if command.name == "list" and len(args) > 1 and args[0] in _LISTED:
        return args[1], args[_LISTED[args[0]] :]
    return None


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
            if "${" not in text:
                break
            done = _REFERENCE.sub(lambda m: ";".join(words.get(m[1], (m[0],))), text)
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
        if not any("${" in arg for arg in command.args):
            return command
        args: list[str] = []
        for arg in command.args:
            done = self.word(arg) if "${" in arg else arg
            args += done.split(";") if done != arg else [arg]
        return replace(command, args=tuple(args))
