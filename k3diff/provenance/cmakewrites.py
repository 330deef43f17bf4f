"""CMake commands that write a file at configure time, and whether k3diff can tell the file
stays in the build tree.

scikit-build-core configures with the build tree beside the wheel's staging directory and the
project's own files, which it copies into the wheel after CMake runs: a file written into the
project (``file(WRITE src/pkg/sub/auth.py …)``, relative to the source directory) or up out of
the build tree (``file(COPY fixes/auth.py DESTINATION ../wheel/platlib/pkg/sub)``) shipped in a
real build (scikit-build-core 1.1.2, CMake 3.25) while k3diff compared the commit's file, and a
wheel holding the commit's matched, exit 0 (review73b); so did one removed (``file(REMOVE
src/pkg/sub/auth.py)``, the wheel lacked it). A write (or removal) whose target's text may lead
out of the build tree (`_leaves`) is said, and so is a command (but a test) naming a build
tree variable (``CMAKE_CURRENT_BINARY_DIR`` …), which it may set over CMake's. A target led
by a source directory's variable by a computed name (``${${PROJECT_NAME}_SOURCE_DIR}``:
`cmakenames`) is read as one, and a generator expression's (``$<1:${CMAKE_SOURCE_DIR}>/…``)
as a program's word (`cmakeprograms`). A target under another variable, and a module's function, are not
read (programs the build runs are read by `cmakeprograms`): a hostile commit's CMake is checked
only by building it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from k3diff.escape import shortened
from k3diff.provenance.cmakelists import NOT_LITERAL, Command
from k3diff.provenance.cmakenames import in_source_tree
from k3diff.provenance.cmakeprograms import points_out
from k3diff.provenance.cmakeunread import unread_reference

_NAMES = frozenset({"CMAKE_CURRENT_BINARY_DIR", "CMAKE_BINARY_DIR", "PROJECT_BINARY_DIR"})
"""The build tree's variables, which a project may set over CMake's."""
_TESTS = frozenset({"if", "elseif", "while", "message"})
"""Commands that may name a build tree variable without setting it."""
_TARGET_AT = {"WRITE": 1, "APPEND": 1, "DOWNLOAD": 2, "COPY_FILE": 2, "CREATE_LINK": 2}
"""``file()`` subcommands writing the file their argument at this index names."""
_TARGETS_AFTER = {"TOUCH": 1, "TOUCH_NOCREATE": 1, "REMOVE": 1, "REMOVE_RECURSE": 1}
"""Subcommands writing (or removing) every file from this index on (review73b:
``file(REMOVE src/pkg/sub/auth.py)`` left the module out of a real build's wheel)."""
_TARGETS_AT = {"RENAME": slice(1, 3)}
"""Subcommands writing or removing the files these arguments name."""
_KEYED = {"GENERATE": "OUTPUT", "CONFIGURE": "OUTPUT", "COPY": "DESTINATION"}
_KEYED |= {"INSTALL": "DESTINATION", "ARCHIVE_EXTRACT": "DESTINATION"}
"""Subcommands writing where this keyword's value names."""
_RELATIVE_IN_BUILD = frozenset({"COPY", "INSTALL", "CONFIGURE"})
"""Subcommands taking a relative destination from the build tree (``configure_file`` too).
Not ``GENERATE``, whose ``OUTPUT`` policy CMP0070 takes from the project's directory where
the project asks for CMake before 3.10 (review73b: ``file(GENERATE OUTPUT
src/pkg/sub/auth.py …)`` under ``cmake_minimum_required(VERSION 3.5)`` shipped it)."""


def outside_build_tree(command: Command, *, expanded: bool = False) -> str | None:
    """Why `command` may write a file outside the build tree, or None; where its variables
    were `expanded` (`cmakevalues`), not a file named as other than Python's (pyzmq writes
    ``${LICENSE_DIR}/LICENSE.libsodium.txt`` into its source tree)."""
    name, args = command.name, command.args
    if name not in _TESTS and _NAMES & set(args):
        return f"{shortened(name, 100)}(…) may set a build tree variable, which k3diff reads"
    written = write_targets(command)
    if written is None:
        return None
    targets, relative_ok = written
    for target in targets:
        if expanded and _plain(target):
            continue
        if _leaves(target, relative_ok):
            shown = shortened(repr(target), 200)
            return f"{name}(…) writes {shown}, which may be outside the build tree"
    return None


def unread_write(command: Command, unread: Mapping[str, str]) -> str | None:
    """Why `command` (its known variables replaced) writes where a variable of `unread`
    (`cmakeunread`) or a generator expression decides, other than a file named as other than
    Python's; or None."""
    written = write_targets(command)
    return _unread_target(written[0] if written is not None else [], unread, command.name)


def each_word_written(
    command: Command, expand: Callable[[str], str], unread: Mapping[str, str]
) -> str | None:
    """Why the write `command` may leave the build tree, or write where a value not evaluated
    decides, each target read as every word its references may hold (`expand`:
    `Expander.word`): review75a, ``set(D build)`` and ``set(D ${CMAKE_SOURCE_DIR}/src/pkg/sub)``
    in an ``if()``'s two branches, then ``DESTINATION ${D}``, was read as ``build`` alone (the
    other word fell past ``DESTINATION``), and a real configure wrote the fix into the
    package, exit 0. None where neither."""
    written = write_targets(command)
    if written is None:
        return None
    targets, relative_ok = written
    words = [word for t in targets for word in (expand(t).split(";") if "$" in t else [t])]
    for word in (word for word in words if not _plain(word)):
        if _leaves(word, relative_ok):
            shown = shortened(repr(word), 200)
            return f"{command.name}(…) writes {shown}, which may be outside the build tree"
    return _unread_target(words, unread, command.name)


def _unread_target(targets: list[str], unread: Mapping[str, str], name: str) -> str | None:
    """Why the command `name`, writing `targets`, writes where a variable of `unread` or a
    generator expression decides, other than a file named as other than Python's; or None."""
    targets = [t for t in targets if not _plain(t)]
    why = unread_reference(tuple(targets), unread)
    if why is None and (genex := next((t for t in targets if _GENEX.search(t)), None)):
        why = f"{shortened(repr(genex), 200)}, a generator expression"
    return None if why is None else f"{name}(…) writes under {why}, not evaluated"


def write_targets(command: Command) -> tuple[list[str], bool] | None:
    """The places a ``file()`` or ``configure_file()`` `command` writes (or removes), and
    whether CMake takes a relative one from the build tree; None for another command."""
    name, args = command.name, command.args
    if name == "configure_file":
        targets, relative_ok = list(args[1:2]), True
    elif name == "file" and args:
        sub = args[0].upper()
        relative_ok = sub in _RELATIVE_IN_BUILD
        if sub in _TARGET_AT:
            targets = list(args[_TARGET_AT[sub] : _TARGET_AT[sub] + 1])
        elif sub in _TARGETS_AFTER:
            targets = list(args[_TARGETS_AFTER[sub] :])
        elif sub in _TARGETS_AT:
            targets = list(args[_TARGETS_AT[sub]])
        elif sub in _KEYED:
            key = _KEYED[sub]
            targets = [args[i + 1] for i, a in enumerate(args[:-1]) if a == key] or [""]
        else:
            return None
    else:
        return None
    return targets, relative_ok


def _leaves(target: str, relative_in_build: bool) -> bool:
    """Whether `target` may name a place outside the build tree, as its text shows: a ``..``
    part, an absolute path, a source directory's variable, or a relative path where CMake takes
    it from the source directory (``file(WRITE src/pkg/x.py …)``). A path under another
    variable (``${out_file}``, ``${CMAKE_CURRENT_BINARY_DIR}/…``) is not read: its value may
    lead anywhere (review73b: stopping on it stopped scikit-build-core's own test projects)."""
    if ".." in target.split("/") or target.startswith("/") or in_source_tree(target):
        return True
    if "$<" in target:
        # review74b: file(GENERATE OUTPUT $<1:${CMAKE_SOURCE_DIR}>/src/pkg/sub/auth.py …)
        # shipped the fix in a real build; a generator expression's value is read anywhere.
        return points_out(target)
    return not target.startswith("$") and not relative_in_build


_PYTHON = (".py", ".pyi", ".pyw", ".pyc", ".pyo", ".pth")
_GENEX = re.compile(r"\$<(?!(?:CONFIG|CONFIGURATION)>)")
"""A generator expression but the build's configuration's name: review75a, ``file(GENERATE
OUTPUT $<TARGET_PROPERTY:core,SOURCE_DIR>/src/pkg/sub/auth.py …)`` wrote the fix into the
package in a real configure, exit 0 (its value names the project's directory)."""


def _plain(target: str) -> bool:
    """Whether `target` names a file, as a literal, with a suffix other than Python's."""
    name = target.rpartition("/")[2]
    return "." in name.strip(".") and not set(name) & NOT_LITERAL and not name.endswith(_PYTHON)
