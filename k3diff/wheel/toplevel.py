"""The top-level names a wheel installs into site-packages (what `import NAME` finds), each with
the first file, in pip's order, giving it: one kind of execution surface (`wheel.surfaces`)."""

from __future__ import annotations

import operator
from itertools import compress, count, repeat

_TOP_AND_SLASH = operator.itemgetter(0, 1)
_SITE = "\0site-packages/"
"""Where a site-packages path starts in NUL-joined paths."""
_FEW_TOPS = 64
"""Distinct first components found group by group in the joined paths (more: per path)."""
_FEW_STEPS = 256
"""Paths stepped through one by one (more: per path, in C)."""


def top_level_names(paths: list[str], joined: str) -> dict[str, int]:
    """Each top-level name of site-packages and the index of the first path giving it;
    `paths`: installed paths in pip's order; `joined`: `"\\0" + "\\0".join(paths) + "\\0"` (no
    path holds a NUL)."""
    names: dict[str, int] = {}
    for (top, slash), index in _first_tops(paths, joined).items():
        if top.endswith((".dist-info", ".pth")) or top == "__pycache__":
            continue
        if slash and top.endswith(".libs"):
            continue  # auditwheel's vendored libraries (NAME.libs/): a folder no import finds
        name = top if slash else top.split(".", 1)[0]
        if index < names.get(name, len(paths)):
            names[name] = index
    return names


def _first_tops(paths: list[str], joined: str) -> dict[tuple[str, str], int]:
    """The index of the first path giving each (top, slash) of `site-packages/top[/...]`.

    A wheel lists most of a top-level directory's files together: such a group is passed over
    whole after a few searches of `joined` (the last path of that top, or the one before it,
    and two counts saying that every site-packages path up to there has that top), so the work
    grows with the groups, not the paths (a partition of every path, `_first_tops_per_path`,
    costs several times the instructions on a wheel of twelve thousand files). Where that
    fails, the paths are stepped through one by one until the top changes. More than
    `_FEW_TOPS` tops, checks that would read `joined` more than 16 times over (searches of a
    long needle: a fraction of the per-path way's cost), or more than
    `_FEW_STEPS` steps take the per-path way."""
    first: dict[tuple[str, str], int] = {}
    failed: tuple[str, str] | None = None  # the top whose check failed, while it lasts
    budget = 16 * len(joined)  # characters the checks may read
    steps = 0
    index = counted = 0  # index: the paths whose NUL lies before `counted`
    at = joined.find(_SITE)
    while at >= 0:
        start = at + len(_SITE)
        end = joined.find("\0", start)  # every path ends at a NUL
        cut = joined.find("/", start, end)
        key = (joined[start:cut], "/") if cut >= 0 else (joined[start:end], "")
        if key not in first:
            if len(first) >= _FEW_TOPS:
                return _first_tops_per_path(paths)
            index += joined.count("\0", counted, at)
            counted = at
            first[key] = index
        last = -1  # the last path passed over with this one, if any
        if key != failed:
            # Paths of this top start with `group`: the whole name, with its NUL, for a file.
            group = joined[at : cut + 1] if cut >= 0 else joined[at : end + 1]
            final = joined.rfind(group)
            before = joined.rfind(group, at, final)  # for a stray last path: the one before it
            for candidate in (final, before):
                stop = candidate + len(group)
                budget -= len(joined) - candidate + 2 * (stop - at)
                if budget < 0:
                    return _first_tops_per_path(paths)
                same = joined.count(_SITE, at, stop) == joined.count(group, at, stop)
                if candidate >= at and same:
                    last = candidate  # every site-packages path up to it has this top
                    break
        if last < 0:  # not passed over: the next path
            failed = key
            steps += 1
            if steps > _FEW_STEPS:
                return _first_tops_per_path(paths)
            last = at
        else:
            failed = None
        at = joined.find(_SITE, last + 1)
    return first


def _first_tops_per_path(paths: list[str]) -> dict[tuple[str, str], int]:
    """`_first_tops` by one partition of each path (a wheel with many top-level names)."""
    prefix = "site-packages/"
    inside = list(compress(count(), map(str.startswith, paths, repeat(prefix))))
    inside.reverse()  # the dict below keeps the last write: the first file in pip's order
    inners = map(str.__getitem__, map(paths.__getitem__, inside), repeat(slice(len(prefix), None)))
    keys = map(_TOP_AND_SLASH, map(str.partition, inners, repeat("/")))
    # Each (top, slash) once, with the first file giving it; streamed, so that only one tuple
    # per distinct key is kept (twelve thousand kept tuples cost the garbage collector more).
    return dict(zip(keys, inside, strict=True))
