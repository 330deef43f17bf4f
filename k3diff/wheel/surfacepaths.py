"""Which installed files of a wheel may be execution surfaces, told from their paths alone.

`wheel.surfaces` reads the files found here (a few in a wheel of twelve thousand): the ones a
`.pth`, bytecode, a customize module, a script or a file in a command directory may be, those
named `entry_points.txt` (another distribution's, maybe), each top-level name of site-packages
with the first file giving it, and the first file that may be a tool's. Each is found by substring
searches of the paths joined by NULs, so that no Python step runs per file.

Every one of these is a property of one file's installed path and scheme alone, or the first
file in pip's order with such a property. So a patch whose first k files are its base's own
`InstalledFile` objects (`wheel.installedbeside` shares them, same path, scheme and place) has,
among those k, exactly the base's: only its other files are searched (`surface_paths` with
`beside`). Identity is tested file by file, never assumed.
"""

from __future__ import annotations

import operator
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate, compress, count, repeat
from operator import add, eq
from typing import NamedTuple

from k3diff.lazyre import lazy
from k3diff.wheel.installed import InstalledFile, on_command_path
from k3diff.wheel.toolfiles import first_tool_file
from k3diff.wheel.toplevel import top_level_names

_PATH = operator.itemgetter(2)
_SCHEME = operator.itemgetter(1)
# One search, not one per suffix (≈ 0.3 ms each); bytecode in any case (`casereads.read_blind`).
_SUFFIX = lazy(r"\.(?:p(?:th|yo)|(?i:pyc))\x00")
_COMMAND_DIRECTORY = lazy(r"\0(?i:bin|scripts)/")  # `on_command_path`, any case
"""What `may_be_surface` looks for in a path, as found in the paths joined by NULs (and
`customize` anywhere)."""
_POINTS = lazy(r"/(?i:entry_points\.txt)\x00")
"""A path `foreignpoints` reads, as found in the paths joined by NULs: in any case, as
Windows and macOS open it (`foreignpoints`)."""


class SurfacePaths(NamedTuple):
    """What the installed paths of one wheel's files say of its execution surfaces."""

    files: Sequence[InstalledFile]
    """The files scanned, in pip's order (the wheel's own: no generated script)."""
    surfaced: list[int]
    """The index of each file `may_be_surface` is true of, in order."""
    points: list[int]
    """The index of each file whose path ends in `/entry_points.txt` in any case, in order."""
    tops: dict[str, int]
    """Each top-level name of site-packages and the index of the first file giving it
    (`toplevel.top_level_names`)."""
    tool: int | None
    """The index of the first file that may be a tool's (`toolfiles.first_tool_file`), None
    when none may be."""


def surface_paths(
    files: Sequence[InstalledFile], beside: SurfacePaths | None = None
) -> SurfacePaths:
    """`SurfacePaths` of `files`; `beside`: another wheel's, whose answers are taken for the
    first files of `files` that are its own objects in the same places (module docstring)."""
    shared = 0 if beside is None else _shared(files, beside.files)
    rest = files[shared:] if shared else files
    paths = list(map(_PATH, rest))
    joined = "\0" + "\0".join(paths) + "\0"  # no path holds a NUL: zipfile cuts names there
    surfaced = _surface_indices(rest, paths, joined)
    points = _indices(paths, [found.start() for found in _POINTS.finditer(joined)])
    tops = top_level_names(paths, joined)
    at = first_tool_file(joined)
    tool = None if at is None else _indices(paths, [at])[0]
    if not shared:
        return SurfacePaths(files, surfaced, points, tops, tool)
    assert beside is not None
    first = {name: index for name, index in beside.tops.items() if index < shared}
    for name, index in tops.items():
        first.setdefault(name, index + shared)
    return SurfacePaths(
        files,
        [*_below(beside.surfaced, shared), *map(add, surfaced, repeat(shared))],
        [*_below(beside.points, shared), *map(add, points, repeat(shared))],
        first,
        beside.tool if beside.tool is not None and beside.tool < shared
        else None if tool is None else tool + shared,
    )  # fmt: skip


def may_be_surface(file: InstalledFile) -> bool:
    """False for a file `surfaces` finds nothing in, told by a few string tests (a generator
    per file cost a tenth of the comparison on a wheel of twelve thousand files)."""
    path = file.path
    return (
        path.endswith((".pth", ".pyo"))
        or path[-4:].lower() == ".pyc"  # `casereads.read_blind` says which are bytecode
        or file.scheme == "scripts"
        or on_command_path(path)
        or "customize" in path
    )


def _shared(files: Sequence[InstalledFile], others: Sequence[InstalledFile]) -> int:
    """How many files of `files`, from the first, are the objects of `others` in their places."""
    if not files or not others or files[0] is not others[0]:
        return 0  # nearly every pair but a patch's view built beside its base's
    same = list(map(operator.is_, files, others))
    return same.index(False) if False in same else len(same)


def _below(indices: list[int], limit: int) -> list[int]:
    """The indices (ascending) below `limit`."""
    return indices[: bisect_left(indices, limit)]


def _found(joined: str, needle: str) -> list[int]:
    """Every position of `needle` in `joined`."""
    hits = []
    at = joined.find(needle)
    while at >= 0:
        hits.append(at)
        at = joined.find(needle, at + 1)
    return hits


def _indices(paths: list[str], hits: list[int]) -> list[int]:
    """The index of the path of `"\\0" + "\\0".join(paths) + "\\0"` each position of `hits`
    lies in (a position on a NUL: the path after it), once each, in order."""
    if not hits:
        return []
    # starts[i]: the NUL before path i, so path i's positions are starts[i] onwards.
    starts = list(map(add, accumulate(map(len, paths), initial=0), count()))
    return sorted(set(map(add, map(bisect_right, repeat(starts), hits), repeat(-1))))


def _surface_indices(files: Sequence[InstalledFile], paths: list[str], joined: str) -> list[int]:
    """The index of each file `may_be_surface` is true of, in order. `paths`: each file's
    installed path; `joined`: them between NULs. The candidates are found by substring searches
    of `joined` (a wheel of twelve thousand files has a few: no Python step per file), then
    each is tested on its own."""
    hits = [found.start() for found in _COMMAND_DIRECTORY.finditer(joined)]  # the NUL before
    hits += [found.start() for found in _SUFFIX.finditer(joined)]
    hits += _found(joined, "customize")
    candidates = set(_indices(paths, hits))
    schemes = list(map(_SCHEME, files))
    if "scripts" in schemes:
        candidates.update(compress(count(), map(eq, schemes, repeat("scripts"))))
    return [index for index in sorted(candidates) if may_be_surface(files[index])]
