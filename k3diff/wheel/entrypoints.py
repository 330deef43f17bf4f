"""`entry_points.txt` parsed by `importlib.metadata`, exactly as an installed distribution's
(pip reads a wheel's entry points through it). A module of its own, imported by
`installable.parse_entry_points` only for a wheel that has the file: `importlib.metadata` and
what it imports (`zipfile`, `shutil`, `tempfile`, `importlib.resources`) cost ≈ 10 ms to load."""

from __future__ import annotations

from importlib.metadata import Distribution, EntryPoints
from os import PathLike
from typing import Any


class _TextDistribution(Distribution):
    """A distribution whose metadata files are given as text."""

    def __init__(self, files: dict[str, str]) -> None:
        self._files = files

    def read_text(self, filename: str) -> str | None:
        return self._files.get(filename)

    def locate_file(self, path: str | PathLike[str]) -> Any:
        raise NotImplementedError("a wheel's metadata read in place has no files on disk")


def parse_text(text: str) -> EntryPoints:
    """The entry points of `text`, an `entry_points.txt`."""
    return _TextDistribution({"entry_points.txt": text}).entry_points
