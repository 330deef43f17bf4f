"""Several entries of one wheel that end as one installed file (W615), and why they do. Apart from
`k3diff.wheel.installed`, which every run imports, as only a wheel with such entries builds
one."""

from __future__ import annotations

import re
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
    """Their paths differ by trailing dots or spaces of a component, a `::$DATA` suffix, a
    directory's `::$INDEX_ALLOCATION`, or an 8.3 short name for a long one (besides case): one
    file on Windows, whose Win32 calls drop the first three and resolve the last (review63,
    review64)."""
    WINDOWS_SCRIPT = "windows-script"
    """Scripts whose names differ by a `.py…` extension (besides case): one file on Windows,
    where pip writes a script it generates as NAME.exe, that extension dropped (review65b)."""


def windows_keys(folded: list[str]) -> list[str]:
    """Each folded path (`installed.fold`) as Windows names its file: `windows_fold`, then an
    8.3 short name component (`mypack~1`) as the long name beside it that it may abbreviate."""
    keys = [windows_fold(key) for key in folded]
    if not any("~" in key for key in keys):
        return keys
    from k3diff.wheel.shortnames import short_names  # only when a name may be one

    return short_names(keys)


_DIRECTORY_STREAM = re.compile(r":(?:\$i30)?:\$index_allocation$")
"""A directory named by its index stream (folded): `pkg::$INDEX_ALLOCATION` and
`pkg:$I30:$INDEX_ALLOCATION` are the directory `pkg` to Win32 (Git's CVE-2019-1352 wrote into
`.git/` so)."""


def windows_fold(key: str) -> str:
    """A folded path (`installed.fold`) as Windows names its file: each component without its
    trailing dots and spaces, `NAME::$DATA` (the unnamed data stream) as NAME, and a directory
    component `NAME::$INDEX_ALLOCATION` or `NAME:$I30:$INDEX_ALLOCATION` (its index stream) as
    NAME (review64: `demo::$INDEX_ALLOCATION/util.py` replaced `demo/util.py`, exit 0)."""
    stripped = key.rstrip(". ")  # Win32 drops them before it reads a stream's name
    if stripped.endswith("::$data"):
        key = stripped[: -len("::$data")]
    parts = key.split("/")
    if ":" in key:
        parts[:-1] = [_DIRECTORY_STREAM.sub("", part) or part for part in parts[:-1]]
    return "/".join(part.rstrip(". ") or part for part in parts)


def kind_of(paths: set[str], folded: set[str]) -> CollisionKind:
    """Why `paths` (one group's, two or more) are one file, given each path's `installed.fold`
    (without `windows_fold`)."""
    if len(folded) > 1:
        return CollisionKind.WINDOWS
    nfc = {unicodedata.normalize("NFC", path) for path in paths}
    return CollisionKind.NORMALIZATION if len(nfc) == 1 else CollisionKind.CASE


def where_one_file(kind: CollisionKind) -> str:
    """Where paths of a collision of `kind` are one file: '' for the same path everywhere, else
    the file systems, as a clause to follow "one file" (an sdist's members too)."""
    return {
        CollisionKind.SAME_PATH: "",
        CollisionKind.CASE: " on case-insensitive file systems (Windows, macOS)",
        CollisionKind.NORMALIZATION: " on macOS (names equal after Unicode normalisation)",
        CollisionKind.WINDOWS: (
            " on Windows (which drops a name's trailing dots and spaces, reads "
            "NAME::$DATA and a directory's NAME::$INDEX_ALLOCATION as NAME, and an 8.3 "
            "short name such as LONGMO~1.PY as the long name it abbreviates)"
        ),
        CollisionKind.WINDOWS_SCRIPT: (
            " on Windows (where pip writes a script it generates as NAME.exe, a .py… "
            "extension of the name dropped)"
        ),
    }[kind]


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
        where = where_one_file(self.kind)
        return (
            f"{shown} all install to {self.path}{where}; pip writes them in this order, so "
            f"{self.winner!r} wins"
        )
