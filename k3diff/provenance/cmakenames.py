"""CMake variable references whose name is itself computed (``${${X}_DIR}``), and the
variables such a name may stand for.

CMake evaluates a reference's inner references first and reads the variable the result names,
so ``set(X SKBUILD_PLATLIB)`` then ``file(COPY fixes/auth.py DESTINATION ${${X}_DIR}/pkg/sub)``
copies into the wheel's platlib directory: a real build (scikit-build-core 1.1.2, CMake 3.25)
shipped the fix while k3diff, reading the text for ``SKBUILD_PLATLIB_DIR``, compared the old
file, and a wheel reverting to it matched, exit 0 (review73b). The name is not evaluated
here: each inner reference stands for any text, and the reference may name every variable
whose name that pattern matches (``${${X}_DIR}`` any name ending in ``_DIR``;
``${${PROJECT_NAME}_VERSION}`` none of the wheel's directories).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from k3diff.escape import shortened
from k3diff.provenance.cmakelists import Command

WHEEL_NAMES = frozenset(
    {f"SKBUILD_{tree}_DIR" for tree in ("PLATLIB", "PURELIB", "DATA", "HEADERS", "SCRIPTS")}
    | {"SKBUILD_NULL_DIR", "SKBUILD_METADATA_DIR", "CMAKE_INSTALL_PREFIX"}
)
"""The variables naming the wheel's directories at configure time: scikit-build-core's wheel
trees (``prepare_wheel_dirs``) and the install prefix it sets to its install directory."""
SOURCE_NAMES = frozenset(
    {"CMAKE_SOURCE_DIR", "CMAKE_CURRENT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR"}
    | {"PROJECT_SOURCE_DIR", "CMAKE_HOME_DIRECTORY", "X_SOURCE_DIR"}
)
"""Variables naming a directory of the project (``X_SOURCE_DIR``: a ``project(X)``'s)."""
_TOKEN = re.compile(r"\$(?:CACHE|ENV)?\{|\}")


@dataclass(frozen=True)
class Computed:
    """A reference whose name holds another reference."""

    written: str
    parts: tuple[str, ...]
    """The name's literal text between its inner references (``${${X}_DIR}``: ``("",
    "_DIR")``), each of which stands for any text."""

    def may_be(self, name: str) -> bool:
        """Whether the name may be `name`: its first part leads it, its last ends it, and the
        others follow in order between, each found where it first can be (the same answer as
        trying every place, in time linear in `name`: a regex of ``.*`` for each inner
        reference took seconds for ten, ``${${a}${a}…Q}``, and doubled with each)."""
        first, *middle, last = self.parts
        if len(name) < len(first) + len(last) or not name.startswith(first):
            return False
        if not name.endswith(last):
            return False
        at, end = len(first), len(name) - len(last)
        for part in middle:
            found = name.find(part, at, end)
            if found < 0:
                return False
            at = found + len(part)
        return True


def computed(text: str) -> Iterator[Computed]:
    """Each reference of `text` whose name holds another reference; an unterminated one,
    which CMake refuses, is not yielded."""
    if "{" not in text:
        return
    starts: list[int] = []  # each open reference's start and its name's parts so far
    names: list[list[str]] = []
    at = 0
    for token in _TOKEN.finditer(text):
        if names:
            names[-1][-1] += text[at : token.start()]
        at = token.end()
        if token.group() != "}":
            starts.append(token.start())
            names.append([""])
        elif names:
            start, parts = starts.pop(), names.pop()
            if len(parts) > 1:
                yield Computed(text[start:at], tuple(parts))
            if names:
                names[-1].append("")


def may_name(text: str, names: Collection[str]) -> str | None:
    """The first reference of `text` by a computed name that may be one of `names`, as
    written, or None; not an environment variable's (``$ENV{${_optname}}``, pyzmq), which
    the builder's environment holds, not the build's variables."""
    for reference in computed(text):
        if not reference.written.startswith("$ENV{") and any(map(reference.may_be, names)):
            return reference.written
    return None


_SOURCE_TREE = re.compile(
    r"\$\{(?:CMAKE_SOURCE_DIR|CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR"
    r"|CMAKE_HOME_DIRECTORY|\w*_SOURCE_DIR)\}"
)


def in_source_tree(path: str) -> bool:
    """Whether `path` starts with a variable naming a directory of the project
    (``${pkg_SOURCE_DIR}`` a ``project(pkg)``'s), or with a reference by a computed name that
    may be one (``${${PROJECT_NAME}_SOURCE_DIR}``)."""
    if _SOURCE_TREE.match(path):
        return True
    return path.startswith("$") and may_name(path, SOURCE_NAMES) is not None


_BY_NAME = {"get_directory_property": "DEFINITION", "get_property": "CACHE"}
"""Commands reading the variable (or cache entry) named after this keyword."""


def by_computed_name(command: Command) -> str | None:
    """Why `command` may read a wheel directory's variable by a name k3diff does not evaluate
    (``get_directory_property(D DEFINITION ${N})``, ``get_property(D CACHE ${N} PROPERTY
    VALUE)``, ``get_property(D VARIABLE PROPERTY ${N})``, ``string(CONFIGURE "@${N}@" D)``),
    or None."""
    name, args = command.name, command.args
    keyed = {_BY_NAME.get(name): 1} | ({"VARIABLE": 2} if name == "get_property" else {})
    after = {
        args[i + keyed[a]] for i, a in enumerate(args) if i + keyed.get(a, len(args)) < len(args)
    }
    if name == "string" and args[:1] == ("CONFIGURE",) and len(args) > 1:
        after = {args[1]} if "${" in args[1] or "$CACHE{" in args[1] else set()
    named = next((a for a in sorted(after) if "$" in a or not a), None)
    if named is None:
        return None
    shown = shortened(repr(named), 200)
    return f"{shortened(name, 100)}(…) reads a variable by the name {shown}, not read"
