"""Entry points in another distribution's metadata that a wheel installs.

`importlib.metadata` takes every directory at the top of site-packages whose name ends in
`.dist-info` or `.egg-info`, in any case (`Lookup` lower-cases the names it scans), for a
distribution, and a plugin host loads its group from all of them: pytest's `pytest11`, vLLM's
`vllm.general_plugins`. pip generates scripts from the wheel's own `.dist-info` alone, but it
installs such a directory like any other (`other-1.0.DIST-INFO/`, `other.egg-info/`, or
`NAME.data/purelib/other-1.0.dist-info/`), so each entry point in it is code the wheel makes
run: an execution surface like the wheel's own (`wheel.surfaces` makes one of each point found
here), keyed by where the directory lies and its project (`site-packages/other:pytest11:evil`).
`importlib.metadata` opens `DIRECTORY/entry_points.txt` by its path (`PathDistribution.read_text`),
which Windows and macOS find in any case: there `ENTRY_POINTS.TXT` is read too, the wheel's own
`.dist-info`'s included (pip, reading the archive, generates no script from it; surf68).
A directory deeper down is a distribution once its parent is on `sys.path` (a `.pth` path line,
or the package's own code: ray adds `ray/thirdparty_files`), so those count too. Imported by
`scan_surfaces` only for a wheel that installs an `entry_points.txt` outside its own
`.dist-info`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import compress, repeat
from typing import NamedTuple

from k3diff.wheel.installable import parse_entry_points
from k3diff.wheel.installed import InstalledFile

SITE = "site-packages/"
_FILE = "/entry_points.txt"
_METADATA_SUFFIXES = (".dist-info", ".egg-info")
_SEPARATORS = re.compile(r"[-_.]+")
_ANY_CASE = re.compile(r"(?i:entry_points\.txt)")
"""The file's name as NTFS and APFS find it (`re`'s case rule takes `ſ` for `s` and `ı` for
`i`, as NTFS's upper-case table does)."""


class ForeignPoint(NamedTuple):
    """One entry point of a foreign metadata directory, as an execution surface's fields."""

    key: str
    """`PARENT/PROJECT:GROUP:NAME` (`site-packages/other:pytest11:evil`: the directory's
    version left out), or `PARENT/PROJECT:entry_points.txt` for a file not read whole."""
    entry: str
    """The archive path of the `entry_points.txt`."""
    summary: str
    """One line: what runs, and where it is declared."""
    group: str | None
    """The entry point's group (None for a file not read whole)."""
    value: str | None
    """Its object reference (None for a file not read whole)."""


def foreign_directory(
    path: str, own: str | None, blind: bool = False, entry: str | None = None
) -> str | None:
    """The metadata directory an installed `entry_points.txt` at `path` lies in (its installed
    path) when it is a distribution's to `importlib.metadata` and not the wheel's own
    `.dist-info` (`own`). At any depth: a directory becomes a `sys.path` entry by a `.pth`
    path line, or by the package's own code (ray puts `ray/thirdparty_files` there), and a
    data file may land in site-packages by another spelling. `blind`: the file in any case
    (`extplatforms.CaseRule.path_blind`), the wheel's own `.dist-info`'s too but pip's;
    `entry`: the file's archive path. pip generates scripts from `OWN/entry_points.txt` of the
    archive alone, so one a `.data/purelib/` or `.data/platlib/` file writes into the own
    `.dist-info` is read by `importlib.metadata` only (review68c: its `pytest11` plugin passed,
    exit 0)."""
    directory, _, name = path.rpartition("/")
    exact = name == _FILE[1:]
    if not exact and not (blind and _ANY_CASE.fullmatch(name)):
        return None
    if exact and directory == f"{SITE}{own}" and entry in (None, f"{own}{_FILE}"):
        return None
    return directory if directory.lower().endswith(_METADATA_SUFFIXES) else None


def _location(directory: str) -> str:
    """The key part of a metadata directory: its parent and normalised project name, so that
    one project's directory of another version (a vendored copy upgraded) pairs with it."""
    parent, _, name = directory.rpartition("/")
    project = _SEPARATORS.sub("-", name.rpartition(".")[0].partition("-")[0]).lower()
    return f"{parent}/{project}" if parent else project


def foreign_entry_points(
    files: Sequence[InstalledFile],
    paths: Sequence[str],
    own: str | None,
    read: Callable[[Iterable[str]], Mapping[str, tuple[str | None, bool]]],
    blind: bool = False,
) -> Iterator[ForeignPoint]:
    """A surface for each entry point of each `entry_points.txt` installed in a foreign
    metadata directory; one for the file itself when it cannot be read whole or does not parse
    (what the host would load is then unknown). `paths`: each file's installed path; `read`:
    for the archive paths given, each one's text (None when unreadable) and whether it was cut
    at the cap; `blind`: as `foreign_directory`'s."""
    named = files if blind else compress(files, map(str.endswith, paths, repeat(_FILE)))
    foreign = [
        (f, d) for f in named if (d := foreign_directory(f.path, own, blind, f.entry)) is not None
    ]
    if not foreign:
        return
    texts = read(file.entry for file, _ in foreign)
    for file, directory in foreign:
        whose = (  # a `.data` file, or one in another case: no script of pip's, loaded still
            "the wheel's own (pip generates no script from it)"
            if directory == f"{SITE}{own}"
            else "another distribution's"
        )
        text, truncated = texts[file.entry]
        try:
            points = parse_entry_points(text) if text is not None else None
        except (ValueError, TypeError, IndexError, AttributeError):  # hostile text
            points = None
        if points is None or truncated:
            yield ForeignPoint(
                f"{_location(directory)}:entry_points.txt", file.entry,
                f"entry points of another distribution ({directory}) that k3diff cannot read "
                "whole: importlib.metadata loads them",
                None, None,
            )  # fmt: skip
        for point in points or ():
            yield ForeignPoint(
                f"{_location(directory)}:{point.group}:{point.name}", file.entry,
                f"entry point {point.name} in group {point.group} -> {point.value}, in "
                f"{directory}: importlib.metadata reads it as {whose}",
                point.group, point.value,
            )  # fmt: skip
