"""Files named like a directory another entry needs on Windows or macOS (W615): `pkg/A` beside
`pkg/a/b.py`, `pkg/a.` (Windows drops the dot) or `pkg/LONGNA~1` (an 8.3 short name of
`pkg/longname/`) beside `pkg/longname/x.py`. pip's install there cannot write both: whichever
comes first, writing the other fails (a file where a directory must be, or a directory where a
file must be), so the install stops half-way, as `fileconflicts` says of the same name on every
system (names78: each passed, exit 0).

`installed._view` asks it of every view with each path's key (`installed.fold`, then
`collision.windows_keys` where a name may be read as another); the common case (no key is a
directory another key needs) is told by set operations in C, one level of directories at a
time, and a path's directories are then cut out only at the lengths of the keys found alike
(a path of 30,000 components costs its length).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from k3diff.wheel.directorytrie import Needed, needed_by
from k3diff.wheel.fileconflicts import _File


def alike_directories(
    files: Sequence[_File],
    paths: list[str],
    keys: list[str],
    needed: Needed,
    fold: Callable[[str], str],
) -> Iterable[tuple[str, str]]:
    """(installed path, reason) per file whose key (`keys`, one a path of `paths`) is the key
    of a directory another file needs, where the two paths differ (the same path is
    `fileconflicts`'s, on every system); `needed`: `directorytrie.needed` of `keys`; `fold`:
    `installed.fold`, which imports this."""
    if needed.deep:  # review78e: deep paths, numbered rather than cut out
        for index, (other, directory) in needed_by(keys, paths).items():
            if directory != paths[index]:
                yield _alike(paths[index], directory, files[other].entry, fold)
        return
    alike = needed.directories.intersection(keys)
    if not alike:
        return  # the common case
    lengths = set(map(len, alike))  # a directory's key is cut out only at one of these
    directories: dict[str, tuple[str, str]] = {}  # a directory's key: its path, who needs it
    for file, path, key in zip(files, paths, keys, strict=True):
        cut, raw = key.rfind("/"), path.rfind("/")
        while cut > 0 and raw > 0:  # keys keep a path's components: one cut each
            if cut in lengths and (head := key[:cut]) in alike and head not in directories:
                directories[head] = (path[:raw], file.entry)
            cut, raw = key.rfind("/", 0, cut), path.rfind("/", 0, raw)
    for path, key in zip(paths, keys, strict=True):
        found = directories.get(key)
        if found is not None and found[0] != path:
            yield _alike(path, *found, fold)


def _alike(path: str, directory: str, other: str, fold: Callable[[str], str]) -> tuple[str, str]:
    """(path, reason): the file `path` is named as `directory`, which the entry `other` needs."""
    from k3diff.wheel.collision import kind_of, where_one_file

    kind = kind_of({path, directory}, {fold(path), fold(directory)})
    return (
        path,
        f"installs the file {path}, where {other!r} needs the directory {directory}: one "
        f"name{where_one_file(kind)}, where pip cannot write both (its install stops "
        "half-way)",
    )
