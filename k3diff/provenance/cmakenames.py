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
_OPEN = re.compile(r"\$(?:CACHE|ENV)?\{")


def computed(text: str) -> Iterator[tuple[str, re.Pattern[str]]]:
    """Each reference of `text` whose name holds another reference, as written, with the
    names it may read (its inner references standing for any text); an unterminated one,
    which CMake refuses, is not yielded."""
    if "{" not in text:
        return
    starts: list[int] = []  # each open reference's start, its name's pattern, whether computed
    names: list[list[str]] = []
    inner: list[bool] = []
    at = 0
    while at < len(text):
        if (opening := _OPEN.match(text, at)) is not None:
            starts.append(at)
            names.append([])
            inner.append(False)
            at = opening.end()
            continue
        char = text[at]
        if char == "}" and starts:
            start, name = starts.pop(), names.pop()
            if inner.pop():
                yield text[start : at + 1], re.compile("".join(name), re.DOTALL)
            if starts:
                names[-1].append(".*")
                inner[-1] = True
        elif starts:
            names[-1].append(re.escape(char))
        at += 1


def may_name(text: str, names: Collection[str]) -> str | None:
    """The first reference of `text` by a computed name that may be one of `names`, as
    written, or None; not an environment variable's (``$ENV{${_optname}}``, pyzmq), which
    the builder's environment holds, not the build's variables."""
    for written, pattern in computed(text):
        if not written.startswith("$ENV{") and any(pattern.fullmatch(n) for n in names):
            return written
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
