"""Which files a log path names and how their bytes come in: `log_files` (a file, or every
regular file under a directory), which of them are rotated pieces of one server's log
(`stream_of`, `in_stream_order`), a `.gz` log's inflated stream counted against the scan's budget
(`Inflating`), and any stream cut into blocks of whole lines, a line past `LINE_CAP` cut short
(`blocks`)."""

from __future__ import annotations

import gzip
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Protocol

from k3diff.errors import InputError
from k3diff.logs.caps import ScanBudget

LINE_CAP = 1 << 20
"""Bytes of one line that are scanned; the rest of a longer line is skipped (and counted)."""

BLOCK = 1 << 20
"""Bytes read at a time; the prefilter looks for its keywords in a whole block at once."""

GZIP_MAGIC = b"\x1f\x8b"
"""The first bytes of a gzip member: a `.gz` log is recognised by them, not by its name."""


def log_files(path: Path) -> tuple[list[tuple[Path, str]], list[str]]:
    """The regular files to read for `path` (a file, or every regular file under a directory,
    sorted), each with the name reports use; and the directory entries skipped as not regular.
    InputError for a path that is missing, not a regular file or directory, or a directory
    holding no file."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None  # as every other command says it
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if stat.S_ISREG(info.st_mode):
        return [(path, str(path))], []
    if not stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: not a regular file or directory (a FIFO or device is refused)")
    files: list[tuple[Path, str]] = []
    skipped: list[str] = []

    def unreadable(error: OSError) -> None:
        """A directory that cannot be listed is skipped and listed, never passed over (review63b:
        `os.walk` ignores it by default); the directory given itself is refused."""
        where = Path(error.filename or path)
        if where == path:
            raise InputError(f"{path}: cannot read: {error.strerror or error}")
        skipped.append(str(path / where.relative_to(path)))

    for root, dirs, names in os.walk(path, onerror=unreadable, followlinks=False):
        dirs.sort()
        # A link to a directory is not walked into: listed as skipped with the links to files
        # (review63b: it was dropped silently, the logs under it never read nor named).
        linked = [name for name in dirs if os.path.islink(os.path.join(root, name))]
        for name in sorted([*names, *linked]):
            full = Path(root, name)
            shown = str(path / full.relative_to(path))
            if stat.S_ISREG(os.lstat(full).st_mode):
                files.append((full, shown))
            else:
                skipped.append(shown)
    if not files:
        raise InputError(f"{path}: the directory holds no log file")
    return files, skipped


ROTATED = re.compile(r"(.+)\.([1-9][0-9]{0,5})(\.gz)?")
"""A rotated piece's name: NAME.N or NAME.N.gz (logrotate's and Python's RotatingFileHandler's
numbering; the higher N, the older the piece)."""


def stream_of(path: Path) -> tuple[str, int]:
    """The log stream a file belongs to (its directory and name without a rotation suffix) and
    its age in it: N for a rotated piece NAME.N[.gz], 0 for the live file NAME."""
    rotated = ROTATED.fullmatch(path.name)
    if rotated is None:
        return str(path), 0
    return str(path.with_name(rotated.group(1))), int(rotated.group(2))


def in_stream_order(files: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """`files` with each stream's pieces together, oldest first (highest N, the live file
    last), where its first piece was; files of different streams keep their order."""
    streams: dict[str, list[tuple[int, Path, str]]] = {}
    for path, shown in files:
        stream, age = stream_of(path)
        streams.setdefault(stream, []).append((age, path, shown))
    return [
        (path, shown)
        for pieces in streams.values()
        for _, path, shown in sorted(pieces, key=lambda piece: -piece[0])
    ]


class Readable(Protocol):
    """A binary stream read in sized pieces (a file, or a `.gz` log inflating)."""

    def read(self, size: int, /) -> bytes: ...


class Inflating:
    """A `.gz` log's inflated stream, every byte it produces counted against the budget, and
    its ratio taken against the compressed bytes read so far (`raw.tell()`: a bomb repeated
    in many members is caught at its first 64 MiB, not after the whole file's worth)."""

    def __init__(self, raw: BinaryIO, shown: str, budget: ScanBudget) -> None:
        self.raw, self.shown, self.budget = raw, shown, budget
        self.stream = gzip.GzipFile(fileobj=raw, mode="rb")
        self.inflated = 0

    def read(self, size: int, /) -> bytes:
        data = self.stream.read(size)
        self.inflated += len(data)
        self.budget.add_inflated(self.shown, self.inflated, self.raw.tell(), len(data))
        return data


def blocks(stream: Readable) -> Iterator[tuple[bytes, int]]:
    """The stream as blocks of whole lines, and how many lines of each were cut at LINE_CAP
    (a cut line's head is scanned, the rest of it skipped)."""
    carry = b""
    while True:
        data = stream.read(BLOCK)
        if not data:
            if carry:
                yield carry, 0
            return
        data = carry + data if carry else data
        cut = data.rfind(b"\n")
        if cut >= 0:
            carry = data[cut + 1 :]
            yield data[: cut + 1], 0
            continue
        if len(data) <= LINE_CAP:
            carry = data
            continue
        yield data[:LINE_CAP] + b"\n", 1
        carry = b""
        while True:  # skip the rest of the long line
            data = stream.read(BLOCK)
            end = data.find(b"\n")
            if not data or end >= 0:
                carry = data[end + 1 :] if data else b""
                break
