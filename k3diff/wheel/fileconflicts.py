"""Files where another entry needs a directory: pip's write of one of them fails (W616).

`installed._view` asks it of every view; the common case (no path is a directory another needs)
is told by set operations in C, one level of directories at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from k3diff.wheel.directorytrie import Needed, needed_by


class _File(Protocol):
    """An installed file (`installed.InstalledFile`, which imports this module)."""

    @property
    def entry(self) -> str: ...

    @property
    def path(self) -> str: ...


def file_directory_conflicts(
    files: Sequence[_File], paths: list[str], needed: Needed
) -> Iterable[tuple[str, str]]:
    """A file where another entry needs a directory: pip's write fails (`paths`: installed;
    `needed`: `directorytrie.needed` of them)."""
    if needed.deep:  # review78e: deep paths, numbered rather than cut out
        for index, (needer, _) in needed_by(paths, paths).items():
            yield _conflict(files[index], files[needer].entry)
        return
    if needed.directories.isdisjoint(paths):
        return  # the common case: no file where a directory must be; the loop says who needs it
    directories: dict[str, str] = {}
    for file in files:
        path = file.path
        cut = path.rfind("/")
        while cut > 0:
            head = path[:cut]
            if head in directories:
                break
            directories[head] = file.entry
            cut = path.rfind("/", 0, cut)
    for file in files:
        other = directories.get(file.path)
        if other is not None:
            yield _conflict(file, other)


def _conflict(file: _File, other: str) -> tuple[str, str]:
    """(entry, reason): `file` installed where the entry `other` needs a directory."""
    return file.entry, f"installs the file {file.path}, where {other!r} needs a directory"
