"""Paths that are a directory another path needs, told without cutting every directory out of
every path: each directory is numbered by its parent's number and its name, so a path of 30,000
components costs its length. `fileconflicts` and `alikedirectories` keep their set operations
in C where the directories they would cut out are few (`heavy`); past that, they ask `needed_by`
(review78e: both kept every directory's path, about 1 GB for one name of 32,000 components; a
wheel of ten such names took 20 s and 10 GB, one of a hundred was killed for its memory).
`installed._view` asks `needed` once of the installed paths, for both, and of their keys only
where a key is more than the path in lower case (`lowered`).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import NamedTuple

_HEAD = operator.itemgetter(0)

PREFIX_BUDGET = 1 << 26
"""Characters of directory paths the set operations may cut out (each path's slashes times its
length bounds its own); past them `needed_by` numbers the directories instead."""


def needed_directories(paths: Iterable[str]) -> set[str]:
    """Every directory some path of `paths` needs, a level at a time, in C (`fileconflicts` on
    installed paths, `alikedirectories` on their keys)."""
    needed: set[str] = set()
    level = paths
    while True:
        heads = set(map(_HEAD, map(str.rpartition, level, repeat("/"))))
        heads.discard("")  # no slash (or only a leading one): no directory needed
        heads -= needed
        if not heads:
            return needed
        needed |= heads
        level = heads


def heavy(paths: list[str]) -> bool:
    """Whether cutting every directory out of `paths` may pass `PREFIX_BUDGET` characters."""
    slashes = map(str.count, paths, repeat("/"))
    cut: int = sum(map(operator.mul, slashes, map(len, paths)))
    return cut > PREFIX_BUDGET


class Needed(NamedTuple):
    """The directories some path of a list needs, or how they are told."""

    deep: bool
    """`heavy`: cutting them out may pass `PREFIX_BUDGET`; `needed_by` numbers them instead."""
    directories: set[str]
    """`needed_directories` of the paths (empty where `deep`)."""


def needed(paths: list[str]) -> Needed:
    """Whether `paths` are `heavy`, and else the directories they need."""
    deep = heavy(paths)
    return Needed(deep, set() if deep else needed_directories(paths))


def lowered(found: Needed) -> Needed:
    """`needed` of the paths `found` was of, each in lower case, where they are ASCII (without
    a NUL): lowering keeps each path's length and slashes, so `heavy` says the same, and each
    directory needed is one needed lowered (one C call, not another walk of every path)."""
    if found.deep or not found.directories:
        return found
    return Needed(False, set("\0".join(found.directories).lower().split("\0")))


def needed_by(keys: Sequence[str], paths: Sequence[str]) -> dict[int, tuple[int, str]]:
    """{i: (j, directory)} for each key i that is the key of a directory key j needs, j the
    first such, `directory` that directory as path j names it (`paths`: each key's path, with
    its components, one by one)."""
    nodes: dict[tuple[int, str], int] = {}
    first: list[tuple[int, int]] = []  # a directory's first path, and its length there
    ends: list[tuple[int, str]] = []
    for index, (key, path) in enumerate(zip(keys, paths, strict=True)):
        *parents, name = key.split("/")
        node, end = -1, -1
        for part, raw in zip(parents, path.split("/"), strict=False):
            end += len(raw) + 1
            found = nodes.get((node, part))
            if found is None:
                found = nodes[node, part] = len(first)
                first.append((index, end))
            node = found
        ends.append((node, name))
    needed: dict[int, tuple[int, str]] = {}
    for index, end_of in enumerate(ends):
        found = nodes.get(end_of)
        if found is not None and keys[index]:
            other, length = first[found]
            needed[index] = (other, paths[other][:length])
    return needed
