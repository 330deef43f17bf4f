"""An sdist (`NAME-VERSION.tar.gz`) read as pip reads it, never unpacked: the standard library's
`gzip` and `tarfile`, which pip unpacks sdists with, see the bytes, through a reader that caps
them.

The gzip stream is read whole, to its end, though `tarfile` stops at the tar's end-of-archive
block: a stream cut short, a failed CRC-32 or length check, and bytes after the last gzip member
are what `gzip` raises for them; bytes other than NULs after the tar's end (a second archive
hidden past where `tarfile` stops) are found by the same read. Every member header is read, its
data skipped; only a `PKG-INFO` (and `pyproject.toml`, `setup.py`, `setup.cfg`) at the depth
of a top directory is read (the last of its name,
as extraction leaves it), at most `METADATA_LIMIT` bytes.

Caps: `MAX_MEMBERS` members, `MAX_HEADER_READ` bytes for one header (a pax header or GNU long
name, which `tarfile` reads whole), `MAX_NAME_BYTES` of names and link targets in all, and
`MAX_INFLATED` bytes of tar: past one, `CapError` (exit 2). A pax extended header is checked
before `tarfile` parses it (`_check_pax`): the regular expressions `tarfile` of Python before
3.11.10 and 3.12.6 parses one with take time quadratic in its size (CVE-2024-6232: a 1 KB sdist
holding a 1 MiB pax header of digits took half an hour), so one whose records are not
`LENGTH KEYWORD=VALUE\n` end to end, or with a run of more than `MAX_DIGIT_RUN` digits, is
refused (exit 2), and `MAX_PAX_BYTES` of them in all. A stream inflating past
`BOMB_RATIO` times its compressed size (from `BOMB_MIN_SIZE`) is a compression bomb, as an
entry of a wheel is: a problem (A002), read no further.

`gzip` reads a member header's file name and comment (FNAME, FCOMMENT) and the NULs it skips
after a member one byte at a time, in Python: a 20 MB comment took 3 s of `gzip`'s loop, in
pip's read as in this one (sdist76). No gzip writer puts more than a file name there (FEXTRA,
read at once, holds at most 64 KiB by its format), so past `MAX_GZIP_FIELD` bytes read one at a
time the read stops: a problem (A002), as a bomb is, the members after it unchecked. Fields
under that cap, or members that inflate to nothing, in their thousands, cost the same (18 MB
of 60 KiB comments: 12 s; a million empty members: 8 s; review76b), so the bytes of gzip file
read are capped too, by the tar they inflate to (`MAX_GZIP_OVERHEAD`): past it, A002 likewise.
"""

from __future__ import annotations

import gzip
import os
import posixpath
import re
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from k3diff.errors import ArchiveError, CapError, InputError
from k3diff.wheel.installed import fold
from k3diff.wheel.metadata import METADATA_LIMIT
from k3diff.zip.bounds import BOMB_MIN_SIZE, BOMB_RATIO
from k3diff.zip.directory import MAX_DIRECTORY_BYTES, MAX_ENTRIES

MAX_MEMBERS = MAX_ENTRIES
"""Members one sdist may hold (as many as a wheel's entries)."""
MAX_HEADER_READ = 1 << 20
"""Bytes `tarfile` may read at once for one header: a pax header or GNU long name past it is
refused, as tarfile itself would hold it whole in memory."""
MAX_NAME_BYTES = MAX_DIRECTORY_BYTES
"""Bytes of member names and link targets in all (as a wheel's central directory)."""
MAX_PAX_BYTES = MAX_DIRECTORY_BYTES
"""Bytes of pax records in all, padding aside (each one's regular expressions cost up to
`MAX_DIGIT_RUN` steps a byte: 32 MiB of the worst took 8 s)."""
MAX_DIGIT_RUN = 32
"""Digits in a row a pax extended header may hold (a path's, an mtime's: far fewer)."""
MAX_INFLATED = 8 << 30
"""Bytes of tar one sdist may inflate to."""
MAX_GZIP_FIELD = 1 << 16
"""Bytes `gzip` may read one at a time in a row: a header's file name or comment (as FEXTRA's
format caps that field), or the NULs after a member."""
MAX_GZIP_OVERHEAD = 1 << 20
"""Bytes of gzip file one sdist may hold past the tar it inflates to and a 16th of that (more
than any deflate writer's blocks add: stored blocks add 5 bytes in 65,535): members that
inflate to nothing, header fields, NUL padding, which `gzip` reads slowly, a member's header a
byte at a time (review76b: 18 MB of 60 KiB comments, each under `MAX_GZIP_FIELD`, took 12 s)."""
_CHUNK = 1 << 20
_PAX_TYPES = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)
_PAX_RECORD_LENGTH = re.compile(rb"([0-9]{1,20}) ")
_DIGIT_RUN = re.compile(rb"[0-9]{%d}" % (MAX_DIGIT_RUN + 1))


@dataclass(frozen=True)
class SdistRead:
    """What one read of an sdist saw."""

    members: tuple[tarfile.TarInfo, ...]
    """Every member header, in archive order (those read before a problem stopped the read)."""
    problem: str | None
    """Why the file is not a sound gzip-compressed tar (A002), or None."""
    top_files: dict[str, bytes]
    """Content of `TOP/PKG-INFO`, `TOP/setup.py`, `TOP/setup.cfg` and `TOP/pyproject.toml` (or a
    name alike but for case: see `is_pyproject`; TOP: the first member's top directory) by
    normalised name, each where the last member of that name is a regular file
    of at most `METADATA_LIMIT` bytes."""


class _Bomb(Exception):
    """The stream inflates past the bomb ratio."""


class _LongField(Exception):
    """`gzip` read past `MAX_GZIP_FIELD` bytes one at a time (see the module)."""

    def __init__(self, padding: bool) -> None:
        super().__init__(padding)
        self.padding = padding
        """NULs after a member, not a header's file name or comment."""


class _Uninflated(Exception):
    """The gzip file holds more than `MAX_GZIP_OVERHEAD` bytes past what it inflates to."""


class _CappedGzipInput:
    """The compressed file as `gzip` reads it, its runs of one-byte reads capped, and its bytes
    read to what the tar they inflate to may take (see `MAX_GZIP_OVERHEAD`)."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._run = 0
        self._read = 0
        self.inflating_to = 0
        """Bytes of tar the read under way may reach, set by the reader of the tar."""

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self._read += len(data)
        if self._read > self.inflating_to + self.inflating_to // 16 + MAX_GZIP_OVERHEAD:
            raise _Uninflated
        if size != 1:
            self._run = 0
            return data
        self._run += 1
        if self._run > MAX_GZIP_FIELD:
            raise _LongField(data == b"\0")
        return data

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        self._run = 0
        return self._raw.seek(offset, whence)


class _CappedTar:
    """The inflated tar stream as `tarfile` reads it (read, forward seek, tell), capped."""

    def __init__(self, source: _CappedGzipInput, gz: gzip.GzipFile, path: str, size: int) -> None:
        self._gz = gz
        self._source = source
        self._path = path
        self.bomb_limit = max(BOMB_MIN_SIZE, BOMB_RATIO * size)
        self._pax_next = False
        self._last_read = b""
        self._pax_bytes = 0

    def tell(self) -> int:
        return self._gz.tell()

    def close(self) -> None:
        """The gzip file and the file under it are closed by their owner."""

    def write(self, data: bytes) -> int:
        raise ArchiveError(f"{self._path}: the sdist is read, never written")

    def read(self, size: int = -1) -> bytes:
        if size < 0 or size > MAX_HEADER_READ:
            raise CapError(
                f"{self._path}: a tar header of {size:,} bytes (pax or GNU long name), over "
                f"k3diff's cap of {MAX_HEADER_READ:,}"
            )
        data = self.read_data(size)
        if self._pax_next:  # tarfile reads a pax header's records right after its header
            self._pax_bytes = _check_pax(data, self._path, self._pax_bytes)
            self._pax_next = False
        else:
            self._pax_next = size == tarfile.BLOCKSIZE and data[156:157] in _PAX_TYPES
        self._last_read = data
        return data

    def read_data(self, size: int) -> bytes:
        self._check(self._gz.tell() + size)
        return self._gz.read(size)

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if whence != os.SEEK_SET or offset < self._gz.tell():
            raise ArchiveError(f"{self._path}: tarfile sought back in the stream")
        self._check(offset)
        return self._gz.seek(offset)

    def _check(self, position: int) -> None:
        self._source.inflating_to = position
        if position > MAX_INFLATED:
            raise CapError(f"{self._path}: inflates past k3diff's cap of {MAX_INFLATED:,} bytes")
        if position > self.bomb_limit:
            raise _Bomb

    def rest_is_zeros(self) -> bool:
        """Read the stream to its end (so gzip checks every member's CRC-32 and length, and
        the bytes after the last); whether every byte left is a NUL, from the block `tarfile`
        stopped at: a header it cannot read (a bad checksum, cut short) ends its read as an
        end-of-archive block does, unseen by pip, where another tool may read one."""
        zeros = self._last_read.count(0) == len(self._last_read)
        while True:
            self._check(self._gz.tell() + _CHUNK)
            chunk = self._gz.read(_CHUNK)
            if not chunk:
                return zeros
            zeros = zeros and chunk.count(0) == len(chunk)


def _check_pax(data: bytes, path: str, total: int) -> int:
    """CapError unless the pax extended header `data` (its records, then NUL padding) is one
    that `tarfile` parses in linear time (see the module); `total`: bytes of records read
    before it. The bytes of records read with it."""
    end = len(data.rstrip(b"\0"))
    if total + end > MAX_PAX_BYTES:
        raise CapError(f"{path}: over {MAX_PAX_BYTES:,} bytes of pax headers, k3diff's cap")
    position = 0
    while position < end:
        match = _PAX_RECORD_LENGTH.match(data, position)
        length = int(match.group(1)) if match else 0
        record = data[position : position + length]
        if length <= len(match.group(0) if match else b"") or not record.endswith(b"\n"):
            raise CapError(f"{path}: a pax header whose records do not parse, refused unread")
        if b"=" not in record:
            raise CapError(f"{path}: a pax record without '=', refused unread")
        position += length
    if _DIGIT_RUN.search(data, 0, end):
        raise CapError(
            f"{path}: a pax header with over {MAX_DIGIT_RUN} digits in a row, k3diff's cap "
            "(tarfile of this Python parses it in quadratic time)"
        )
    return total + end


_GZIP_PROBLEMS = (gzip.BadGzipFile, EOFError, zlib.error, tarfile.TarError)


def read_sdist(path: Path) -> SdistRead:
    """Read the sdist at `path` (see the module); InputError when the file cannot be read,
    CapError past a cap."""
    name = str(path)
    members: list[tarfile.TarInfo] = []
    top_files: dict[str, bytes] = {}
    try:
        with open(path, "rb") as raw:
            source = _CappedGzipInput(raw)
            with gzip.GzipFile(fileobj=source, mode="rb") as gz:
                stream = _CappedTar(source, gz, name, os.fstat(raw.fileno()).st_size)
                problem = _read_all(stream, name, members, top_files)
    except (CapError, InputError):
        raise
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from exc
    return SdistRead(tuple(members), problem, top_files)


def _read_all(
    stream: _CappedTar, name: str, members: list[tarfile.TarInfo], top_files: dict[str, bytes]
) -> str | None:
    """Read every member into `members` (see `_read_members`), then the stream to its end: why
    the file is not a sound gzip-compressed tar, or None."""
    try:
        _read_members(stream, name, members, top_files)
        if stream.rest_is_zeros():
            return None
        return (
            "bytes other than NULs after the tar's end-of-archive block (tarfile, and so pip, "
            "stops before them; another tool may read them)"
        )
    except _Bomb:
        return (
            f"inflates past {BOMB_RATIO}:1 its compressed size (a compression bomb): not read "
            "further"
        )
    except _LongField as exc:
        return _long_field_wording(exc)
    except _Uninflated:
        return (
            f"over {MAX_GZIP_OVERHEAD:,} bytes of the gzip file past what its tar inflates to: "
            "members that inflate to nothing, header fields or NUL padding, which no gzip writer "
            "puts there and pip reads slowly (a header a byte at a time); k3diff reads no "
            "further (the members after are unchecked)"
        )
    except _GZIP_PROBLEMS as exc:
        return _wording(exc)


def _read_members(
    stream: _CappedTar, name: str, members: list[tarfile.TarInfo], top_files: dict[str, bytes]
) -> None:
    # tarfile.open(mode="r:") opens it so; pip opens sdists with encoding="utf-8"
    with tarfile.TarFile(fileobj=stream, mode="r", encoding="utf-8") as tar:
        names = 0
        member = tar.next()  # the first member (read when opened), then each in turn
        top = "" if member is None else posixpath.normpath(member.name).partition("/")[0]
        while member is not None:
            members.append(member)
            if member.size < 0:  # a base-256 size field: tarfile reads it, then cannot extract
                raise tarfile.ReadError(f"member {member.name!r} of negative size {member.size}")
            if len(members) > MAX_MEMBERS:
                raise CapError(f"{name}: more than {MAX_MEMBERS:,} tar members, k3diff's cap")
            names += len(member.name) + len(member.linkname)
            if names > MAX_NAME_BYTES:
                raise CapError(
                    f"{name}: over {MAX_NAME_BYTES:,} bytes of member names, k3diff's cap"
                )
            path = posixpath.normpath(member.name)
            if path in (f"{top}/PKG-INFO", f"{top}/setup.py", f"{top}/setup.cfg") or is_pyproject(
                path, top
            ):
                top_files.pop(path, None)  # the last of the name is the one extraction leaves
                _read_top_file(stream, member, path, top_files)
            member = tar.next()


def last_of(read: SdistRead, path: str) -> tarfile.TarInfo | None:
    """The last member whose normalised name is `path`: the one extraction leaves."""
    return next((m for m in reversed(read.members) if posixpath.normpath(m.name) == path), None)


def is_pyproject(path: str, top: str) -> bool:
    """Whether pip finds the member at (normalised) `path` as `TOP/pyproject.toml`: where it
    runs on macOS or Windows, a name alike but for case (`PyProject.toml`) too (review76b)."""
    head, _, tail = path.rpartition("/")
    return head == top and fold(tail) == "pyproject.toml"


def _read_top_file(
    stream: _CappedTar, member: tarfile.TarInfo, path: str, top_files: dict[str, bytes]
) -> None:
    """The member's content, read where `tarfile` left the stream: at its data."""
    readable = member.isreg() and not member.issparse() and member.size <= METADATA_LIMIT
    if readable and stream.tell() == member.offset_data:
        top_files[path] = stream.read_data(member.size)


def _long_field_wording(exc: _LongField) -> str:
    if exc.padding:
        what = "NULs after a gzip member"
    else:
        what = "a gzip header's file name or comment (FNAME, FCOMMENT)"
    return (
        f"over {MAX_GZIP_FIELD:,} bytes of {what}: no gzip writer puts them there, pip reads "
        "past them a byte at a time, and k3diff reads no further (the members after are "
        "unchecked)"
    )


def _wording(exc: BaseException) -> str:
    if isinstance(exc, EOFError):
        return "the gzip stream ends before its end-of-stream marker (the file is cut short)"
    if isinstance(exc, zlib.error):
        return f"the gzip stream does not inflate ({exc})"
    if isinstance(exc, gzip.BadGzipFile):
        return f"gzip refuses it: {exc}"
    return f"tarfile refuses it: {exc}"
