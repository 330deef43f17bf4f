"""Several entries of one wheel that end as one installed file (W615), and why they do. Apart from
`k3diff.wheel.installed`, which every run imports, as only a wheel with such entries builds
one."""

from __future__ import annotations

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
        }[self.kind]
        return (
            f"{shown} all install to {self.path}{where}; pip writes them in this order, so "
            f"{self.winner!r} wins"
        )
