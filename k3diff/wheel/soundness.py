"""Entries no installer should be handed, seen from the central directory alone.

A path that is absolute or climbs out with `..`, a symlink, an encrypted entry: each is a
finding for the wheel that carries it. Header-level checks (local versus central headers,
declared versus actual sizes) are `k3diff audit`'s; content is compared anyway.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from k3diff.wheel.codes import Code
from k3diff.zip.archive import ZipArchive

_DRIVE = re.compile(r"^[A-Za-z]:")


def is_unsafe_path(name: str) -> bool:
    """Absolute (POSIX, Windows drive or UNC) or containing a `..` component."""
    normalized = name.replace("\\", "/")
    if normalized.startswith("/") or _DRIVE.match(normalized):
        return True
    return ".." in normalized.split("/")


def soundness_findings(archive: ZipArchive, side: str) -> Iterator[tuple[Code, str, str]]:
    """(code, path, detail) for every unsafe entry of `archive`; `side` is base or patch."""
    for entry in archive.entries:
        if is_unsafe_path(entry.name):
            yield Code.W601, entry.name, f"in the {side} wheel: an installer would write outside"
        if entry.is_symlink:
            yield Code.W602, entry.name, f"in the {side} wheel: a symbolic link entry"
        if entry.is_encrypted:
            yield Code.W603, entry.name, f"in the {side} wheel: encrypted, content unreadable"
