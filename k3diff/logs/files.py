"""Which files a log path names and how their bytes come in: `log_files` (a file, or every
regular file under a directory; a link under it to what it reads anyway is named, any other
entry not read is named with why), which of them are rotated pieces of one server's log
(`stream_of`, `in_stream_order`), a `.gz` log's inflated stream counted against the scan's budget
(`Inflating`), and any stream cut into blocks of whole lines, a line past `LINE_CAP` cut short
(`blocks`)."""

from __future__ import annotations

import gzip
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from k3diff.errors import InputError
from k3diff.logs.caps import ScanBudget
from k3diff.logs.model import Link, Skipped

LINE_CAP = 1 << 20
"""Bytes of one line that are scanned as it; the rest of a longer line is counted, and searched
only for a match that makes the file not read whole (`blocks`)."""

BLOCK = 1 << 20
"""Bytes read at a time; the prefilter looks for its keywords in a whole block at once."""

GZIP_MAGIC = b"\x1f\x8b"
"""The first bytes of a gzip member: a `.gz` log is recognised by them, not by its name."""


@dataclass(frozen=True)
class Listing:
    """What a log path names: the files to read, and the entries under it that are not."""

    files: list[tuple[Path, str]]
    """The regular files to read, each with the name reports use."""
    skipped: list[Skipped]
    """Entries not read, each with why."""
    links: list[Link]
    """Links to a file or directory under the same directory, read anyway (not twice)."""


def log_files(path: Path) -> Listing:
    """The regular files to read for `path` (a file, or every regular file under a directory,
    sorted), the entries under it not read, and the links under it to what is read anyway.
    InputError for a path that is missing, not a regular file or directory, or a directory
    holding no file."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None  # as every other command says it
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if stat.S_ISREG(info.st_mode):
        return Listing([(path, str(path))], [], [])
    if not stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: not a regular file or directory (a FIFO or device is refused)")
    files: list[tuple[Path, str]] = []
    skipped: list[Skipped] = []
    links: list[tuple[Path, str]] = []
    walked: set[str] = set()

    def unreadable(error: OSError) -> None:
        """A directory that cannot be listed is skipped and listed, never passed over (review63b:
        `os.walk` ignores it by default); the directory given itself is refused."""
        where = Path(error.filename or path)
        if where == path:
            raise InputError(f"{path}: cannot read: {error.strerror or error}")
        why = f"a directory that cannot be listed: {error.strerror or error}"
        skipped.append(Skipped(str(path / where.relative_to(path)), why))

    for root, dirs, names in os.walk(path, onerror=unreadable, followlinks=False):
        walked.add(os.path.realpath(root))
        dirs.sort()
        # A link to a directory is not walked into (review63b: it was dropped silently); it is
        # judged with the links to files once every file is known.
        linked = [name for name in dirs if os.path.islink(os.path.join(root, name))]
        for name in sorted([*names, *linked]):
            full = Path(root, name)
            shown = str(path / full.relative_to(path))
            try:
                mode = os.lstat(full).st_mode
            except OSError as exc:  # gone since the listing
                skipped.append(Skipped(shown, f"cannot be read: {exc.strerror or exc}"))
                continue
            if stat.S_ISREG(mode):
                files.append((full, shown))
            elif stat.S_ISLNK(mode):
                links.append((full, shown))
            else:
                skipped.append(Skipped(shown, _kind(mode)))
    if not files:
        raise InputError(f"{path}: the directory holds no log file")
    read = {os.path.realpath(full): full for full, _ in files}
    found = [_link(path, full, shown, read, walked) for full, shown in links]
    skipped += [f for f in found if isinstance(f, Skipped)]
    return Listing(files, skipped, [f for f in found if isinstance(f, Link)])


def _kind(mode: int) -> str:
    """Why an entry that is neither a regular file, a directory nor a link is not read."""
    if stat.S_ISFIFO(mode):
        return "a FIFO: never opened"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _link(
    directory: Path, link: Path, shown: str, read: dict[str, Path], walked: set[str]
) -> Link | Skipped:
    """A link under `directory`: a `Link` where it resolves to a file read or a directory
    walked under the same directory (read anyway), else why it is not read. Resolved by name
    only (`realpath`: no file is opened, a FIFO never waited on); never followed out of it."""
    try:
        target = os.readlink(link)
    except OSError as exc:
        return Skipped(shown, f"a link that cannot be read: {exc.strerror or exc}")
    real = os.path.realpath(link)
    base = os.path.realpath(directory)
    if os.path.commonpath([base, real]) != base:
        return Skipped(shown, f"a link to {target}, outside the directory: not followed")
    name = link.relative_to(directory).as_posix()
    if real in read:
        return Link(name, read[real].relative_to(directory).as_posix())
    if real in walked:
        return Link(name, Path(os.path.relpath(real, base)).as_posix())
    if not os.path.lexists(real):
        return Skipped(shown, f"a broken link to {target}")
    return Skipped(shown, f"a link to {target}, which is not read")


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


WHOLE, CUT, TAIL, LAST = 0, 1, 2, 3
"""What each piece `blocks` yields is: whole lines; the first `LINE_CAP` bytes of a longer line
(its head, scanned as the line, a newline added); a further piece of that line (its tail),
led by the `OVERLAP` bytes before it, which counts as no line; the last such piece, which ends
where the line does (what a rule's `$` holds at)."""

OVERLAP = 4096
"""Bytes of a long line before a tail piece that lead it, so that a match across two pieces
is whole in the later one."""


def blocks(stream: Readable) -> Iterator[tuple[bytes, int]]:
    """The stream as pieces, each with what it is (`WHOLE`, `CUT` or `TAIL`): blocks of whole
    lines, and of a line past LINE_CAP its head, then the rest of it in tail pieces, which the
    scanner searches for what its head alone would hide (hunt71: they were skipped unread)."""
    carry = b""
    while True:
        data = stream.read(BLOCK)
        if not data:
            if carry:
                yield carry, WHOLE
            return
        data = carry + data if carry else data
        cut = data.rfind(b"\n")
        if cut >= 0:
            carry = data[cut + 1 :]
            yield data[: cut + 1], WHOLE
            continue
        if len(data) <= LINE_CAP:
            carry = data
            continue
        yield data[:LINE_CAP] + b"\n", CUT
        before = data[LINE_CAP - OVERLAP :]
        while True:  # the rest of the long line, piece by piece
            data = stream.read(BLOCK)
            end = data.find(b"\n")
            piece = before + (data if end < 0 else data[:end])
            last = not data or end >= 0
            if len(piece) > OVERLAP or last:
                yield piece, LAST if last else TAIL
            if last:
                carry = data[end + 1 :] if data else b""
                break
            before = piece[-OVERLAP:]
