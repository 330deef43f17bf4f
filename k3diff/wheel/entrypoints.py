"""`entry_points.txt` read as `importlib.metadata` reads it, without importing it.

pip learns a wheel's scripts from `importlib.metadata`'s parser (`Sectioned.section_pairs`):
every line stripped, blank lines and `#` comments dropped, a `[group]` line opening a group (its
name is the line with brackets stripped from both ends), lines before the first group ignored,
and every other line split at its first `=` into a stripped name and value. Importing
`importlib.metadata` costs a run several milliseconds (it brings `zipfile`, `importlib.resources`
and `tempfile`), so the same steps run here, with the same `str` methods; a line of a group
without `=`, which the standard parser refuses, is handed to the standard parser itself, so that
its error (and so W616's words) is the standard library's own. `tests/wheel/test_entrypoints.py`
holds the two equal on random and hostile texts."""

from __future__ import annotations

from os import PathLike
from typing import Any, NamedTuple


class EntryPoint(NamedTuple):
    """One entry point: `name = value` in group `[group]` (what the checks read of
    `importlib.metadata.EntryPoint`)."""

    name: str
    """The text before the first `=`, stripped."""
    value: str
    """The text after it, stripped (`module:attr [extras]`)."""
    group: str
    """The group it is listed under (`console_scripts`)."""


def parse_entry_points(text: str | None) -> tuple[EntryPoint, ...]:
    """Entry points of an `entry_points.txt` in file order, as the standard library parses them
    (empty when absent); raises what the standard library raises on a text it refuses."""
    if text is None:
        return ()
    points: list[EntryPoint] = []
    group = None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line.strip("[]")
            continue
        if group is None:
            continue
        name, equals, value = line.partition("=")
        if not equals:
            return _standard(text)
        points.append(EntryPoint(name.strip(), value.strip(), group))
    return tuple(points)


def _standard(text: str) -> tuple[EntryPoint, ...]:
    """`importlib.metadata`'s own parse of `text`, as an installed distribution's
    `entry_points.txt` (for a text it refuses: it raises)."""
    from importlib.metadata import Distribution

    class _TextDistribution(Distribution):
        def read_text(self, filename: str) -> str | None:
            return text if filename == "entry_points.txt" else None

        def locate_file(self, path: str | PathLike[str]) -> Any:
            raise NotImplementedError("a wheel's metadata read in place has no files on disk")

    parsed = _TextDistribution().entry_points
    return tuple(EntryPoint(point.name, point.value, point.group) for point in parsed)
