"""Several entries of one wheel that end as one installed file (W615), and why they do. Apart from
`k3diff.wheel.installed`, which every run imports, as only a wheel with such entries builds
one."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from enum import StrEnum


class CollisionKind(StrEnum):
    """Why two entries are one installed file."""

    SAME_PATH = "same-path"
    """They install to the same path on every system."""
    CASE = "case"
    """Their paths differ only by case: one file on Windows and macOS (case-insensitive)."""
    NORMALIZATION = "unicode-normalization"
    """Their paths differ only by Unicode normalisation (NFC/NFD): one file on macOS."""
    WINDOWS = "windows-name"
    """Their paths differ by trailing dots or spaces of a component, or a `::$DATA` suffix
    (besides case): one file on Windows, whose Win32 calls drop them (review63)."""


def windows_fold(key: str) -> str:
    """A folded path (`installed.fold`) as Windows names its file: each component without its
    trailing dots and spaces, and `NAME::$DATA` (the unnamed data stream) as NAME."""
    if key.endswith("::$data"):
        key = key[: -len("::$data")]
    parts = [part.rstrip(". ") or part for part in key.split("/")]
    return "/".join(parts)


def kind_of(paths: set[str], folded: set[str]) -> CollisionKind:
    """Why `paths` (one group's, two or more) are one file, given each path's `installed.fold`
    (without `windows_fold`)."""
    if len(folded) > 1:
        return CollisionKind.WINDOWS
    nfc = {unicodedata.normalize("NFC", path) for path in paths}
    return CollisionKind.NORMALIZATION if len(nfc) == 1 else CollisionKind.CASE


@dataclass(frozen=True)
class Collision:
    """Several entries of one wheel that end as one installed file."""

    path: str
    """The installed path (as the winner spells it)."""
    kind: CollisionKind
    """Same path everywhere, or only on case-insensitive / normalising file systems."""
    entries: tuple[str, ...]
    """The archive paths, in pip's write order."""

    @property
    def winner(self) -> str:
        """The entry whose bytes end on disk: the last one pip writes."""
        return self.entries[-1]

    def describe(self) -> str:
        """One sentence naming every entry and the one that wins."""
        shown = ", ".join(repr(name) for name in self.entries)
        where = {
            CollisionKind.SAME_PATH: "",
            CollisionKind.CASE: " on case-insensitive file systems (Windows, macOS)",
            CollisionKind.NORMALIZATION: " on macOS (names equal after Unicode normalisation)",
            CollisionKind.WINDOWS: (
                " on Windows (which drops a name's trailing dots and spaces, and reads "
                "NAME::$DATA as NAME)"
            ),
        }[self.kind]
        return (
            f"{shown} all install to {self.path}{where}; pip writes them in this order, so "
            f"{self.winner!r} wins"
        )
