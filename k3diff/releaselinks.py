"""Symbolic links among a release directory's files, refused by every command that reads such a
directory (`audit DIR`, `wheels BASE_DIR PATCH_DIR`), never followed nor skipped in silence.

`dist/*` (and so `twine upload dist/*`) would take the file a link points to, which may lie
outside the directory, and which the link can name anew after the check (a manifest or a report
pins a name, not a target). The user gives the file itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from k3diff.errors import InputError


def refuse_links(candidates: Iterable[Path], command: str, work: str, advice: str) -> None:
    """Raise InputError naming the first symbolic link among `candidates` (a directory's
    files) and its target: `command` (`audit`) does not follow links there, as the link can be
    pointed elsewhere after its `work` (`audit`, `comparison`); `advice` says what to give
    instead."""
    for candidate in candidates:
        if candidate.is_symlink():
            try:
                target = os.readlink(candidate)
            except OSError as exc:
                target = f"unreadable: {exc.strerror or exc}"
            raise InputError(
                f"{candidate}: a symbolic link (to {target}) in a release directory: {command} "
                f"does not follow links there, as the link can be pointed elsewhere after the "
                f"{work}; {advice}"
            )
