"""A plain `entry_points.txt` read without loading `importlib.metadata` (issue 41).

pip reads a wheel's entry points through `importlib.metadata`, whose parse k3diff runs too
(`wheel.entrypoints`); but loading it (with the `zipfile`, `lzma`, `shutil`, `tempfile` and
`importlib.resources` it imports) costs ≈ 7.5 ms of the main thread on every wheel that ships
the file (torch's: three entry points), more than the parse. Its parse is short
(`Sectioned.read`, `Pair.parse`, `EntryPoints._from_text`): each line of `str.splitlines`,
`str.strip`-ped; empty lines and lines starting with `#` skipped; a line starting with `[` and
ending with `]` names the group that follows (`strip("[]")`); any other line, once a group is
named, split at its first `=`, both sides stripped (before any group: skipped).

`plain_entry_points` runs those same steps, with the same string methods, on a text they
cannot read otherwise than the standard library does: printable ASCII, tabs and line feeds
only (so `splitlines` splits exactly at the line feeds) and a `=` in every line that would be
split. Any other text (another line break, a line the standard library fails on, whose error
message the finding quotes) gives None, and the standard library parses it.
"""

from __future__ import annotations

from typing import NamedTuple

_PLAIN = frozenset(map(chr, (*range(0x20, 0x7F), 0x09, 0x0A)))
"""Printable ASCII, tab, line feed: characters at which `str.splitlines` does not split but at
the line feed, and that `str.strip` treats as the standard library's parse does (it is the same
method)."""


class PlainEntryPoint(NamedTuple):
    """One entry point as `importlib.metadata.EntryPoint` gives its name, value and group."""

    name: str
    value: str
    group: str


def plain_entry_points(text: str) -> tuple[PlainEntryPoint, ...] | None:
    """The entry points of `text`, in file order, as `importlib.metadata` reads them; None
    when `text` is not plain (module docstring): then let the standard library parse it."""
    if not _PLAIN.issuperset(text):
        return None
    points = []
    group: str | None = None
    for line in map(str.strip, text.split("\n")):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line.strip("[]")
            continue
        if group is None:
            continue  # before any group: the standard library skips it unparsed
        if "=" not in line:
            return None  # the standard library fails on it: its error is the finding
        name, value = line.split("=", 1)
        points.append(PlainEntryPoint(name.strip(), value.strip(), group))
    return tuple(points)
