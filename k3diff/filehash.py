"""The SHA-256 of a whole input file: the artifact digest every report and manifest shows."""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable
from pathlib import Path

from k3diff import bounded
from k3diff.errors import InputError


class _Counted:
    """The reader `hashlib.file_digest` pulls from: counts every chunk and reports it."""

    def __init__(self, raw: io.FileIO | _Pread, advance: Callable[[int], None] | None) -> None:
        self._raw = raw
        self._advance = advance
        self.size = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray, /) -> int:
        count = self._raw.readinto(buffer)
        self.size += count
        if self._advance is not None and count:
            self._advance(count)
        return count


def file_sha256(path: Path, advance: Callable[[int], None] | None = None) -> tuple[str, int]:
    """(hex SHA-256, size in bytes) of the file at PATH, as `hashlib.file_digest` reads it,
    each chunk's size passed to `advance` (progress). The size is what was hashed, not what
    a stat said before. An unreadable file, or one that is not a regular file (a FIFO would
    never end), is an `InputError` naming it."""
    try:
        with open(bounded.open_regular(path, str(path)), "rb", buffering=0) as handle:
            counted = _Counted(handle, advance)
            digest = hashlib.file_digest(counted, "sha256")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return digest.hexdigest(), counted.size


class _Pread:
    """An open file read from its start by `os.preadv`: the descriptor's offset, which the
    children that inherited it share (`wheels.children`), is never moved."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._at = 0

    def readinto(self, buffer: bytearray, /) -> int:
        count = os.preadv(self._fd, [buffer], self._at)
        self._at += count
        return count


def open_file_sha256(
    fd: int, display: str, advance: Callable[[int], None] | None = None
) -> tuple[str, int]:
    """`file_sha256` of a file already open as `fd` (named `display` in messages): the bytes
    that were compared, not those a path names by the time it is hashed (a file replaced on
    disk after it was opened was hashed in its replacement's place)."""
    counted = _Counted(_Pread(fd), advance)
    try:
        digest = hashlib.file_digest(counted, "sha256")
    except OSError as exc:
        raise InputError(f"{display}: cannot read: {exc.strerror or exc}") from exc
    return digest.hexdigest(), counted.size
