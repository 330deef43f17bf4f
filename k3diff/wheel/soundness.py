"""Entries no installer should be handed, seen from the central directory alone.

A path that is absolute or climbs out with `..`, a symlink, an encrypted entry: each is a
finding for the wheel that carries it. Header-level checks (local versus central headers,
declared versus actual sizes) are `k3diff audit`'s; content is compared anyway.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Iterator

from k3diff.wheel.codes import Code
from k3diff.zip.archive import ZipArchive

_DRIVE = re.compile(r"^[A-Za-z]:")
_UNIX = 3
"""create_system of entries made on Unix, whose external attributes carry a mode."""


def is_unsafe_path(name: str) -> bool:
    """Absolute (POSIX, Windows drive or UNC) or containing a `..` component."""
    normalized = name.replace("\\", "/")
    if normalized.startswith("/") or _DRIVE.match(normalized):
        return True
    return ".." in normalized.split("/")


def soundness_findings(archive: ZipArchive, side: str) -> Iterator[tuple[Code, str, str]]:
    """(code, path, detail) for every unsafe entry of `archive`; `side` is base or patch."""
    for entry in archive.entries:
        name = entry.name
        # Cheap screens first (a wheel has thousands of entries and almost none is unsafe): a
        # path can only be unsafe if it holds "..", a colon, or starts with a (back)slash.
        if (".." in name or ":" in name or name[:1] in ("/", "\\")) and is_unsafe_path(name):
            yield Code.W601, name, f"in the {side} wheel: an installer would write outside"
        if entry.create_system == _UNIX and stat.S_ISLNK(entry.external_attr >> 16):
            yield Code.W602, name, f"in the {side} wheel: a symbolic link entry"
        if entry.flags & 0x1:
            yield Code.W603, name, f"in the {side} wheel: encrypted, content unreadable"
