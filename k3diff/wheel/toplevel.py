"""The top-level names a wheel installs into site-packages (what `import NAME` finds), each with
the first file, in pip's order, giving it: one kind of execution surface (`wheel.surfaces`)."""

from __future__ import annotations

import operator
from itertools import compress, count, repeat

from k3diff.lazyre import lazy

_TOP_AND_SLASH = operator.itemgetter(0, 1)
_SITE_TOP = lazy("\0site-packages/([^\0/]*/?)")
"""The first component of a site-packages path in NUL-joined paths, with its slash if any."""
_FEW_TOPS = 64
"""Distinct first components looked up one by one in the joined paths (more: a dict of all)."""


def top_level_names(paths: list[str], joined: str) -> dict[str, int]:
    """Each top-level name of site-packages and the index of the first path giving it;
    `paths`: installed paths in pip's order; `joined`: them between NULs (none holds one)."""
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
    """The index of the first path giving each (top, slash) of `site-packages/top[/...]`: a
    wheel has a few, found by one regular-expression pass over `joined` and each looked up
    there (a partition of every path, `_first_tops_per_path`, cost ≈ 40 % more instructions
    on a wheel of twelve thousand files)."""
    tops = dict.fromkeys(_SITE_TOP.findall(joined))
    if len(tops) > _FEW_TOPS:
        return _first_tops_per_path(paths)
    first: dict[tuple[str, str], int] = {}
    for top in tops:
        slash = top.endswith("/")
        at = joined.find(f"\0site-packages/{top}" if slash else f"\0site-packages/{top}\0")
        # `at` is the NUL before that path: each NUL ahead of it starts one earlier path.
        first[(top[:-1], "/") if slash else (top, "")] = joined.count("\0", 0, at)
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
