"""The zip container's layout: record structures, the central directory and its entries.

`read_central_directory` finds the end record (ZIP64 included), checks that the directory lies
inside the file, and turns each record into a `ZipEntry`. Reading entry data is `archive`'s job.
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path
from typing import Any, NamedTuple

from k3diff.errors import ArchiveError

STORED = 0
DEFLATED = 8
METHOD_NAMES = {
    0: "stored",
    1: "shrunk",
    6: "imploded",
    8: "deflate",
    9: "deflate64",
    12: "bzip2",
    14: "lzma",
    93: "zstd",
    95: "xz",
    98: "ppmd",
}

_EOCD = struct.Struct("<4s4H2LH")
_EOCD64_LOCATOR = struct.Struct("<4sLQL")
_EOCD64 = struct.Struct("<4sQ2H2L4Q")
_CENTRAL = struct.Struct("<4s6H3L5H2L")
LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_SIG_EOCD = b"PK\x05\x06"
_SIG_EOCD64_LOCATOR = b"PK\x06\x07"
_SIG_EOCD64 = b"PK\x06\x06"
_SIG_CENTRAL = b"PK\x01\x02"
SIG_LOCAL = b"PK\x03\x04"
_ZIP64_EXTRA = 0x0001
_MAX_COMMENT = 0xFFFF
_UNIX = 3


class ZipEntry(NamedTuple):
    """One central-directory record (a named tuple: a large wheel has tens of thousands, and a
    tuple is built three times faster than a frozen dataclass)."""

    name: str
    """Archive path as stored (UTF-8 when flagged, else CP437)."""
    position: int
    """Position in the central directory."""
    method: int
    """Compression method number (0 stored, 8 deflate, ...)."""
    flags: int
    """General-purpose bit flags."""
    crc32: int
    """CRC-32 of the content as declared in the central directory."""
    compressed_size: int
    """Bytes of compressed data."""
    size: int
    """Bytes of content after inflating, as declared."""
    header_offset: int
    """Offset of the local file header."""
    external_attr: int
    """External attributes (Unix mode in the high 16 bits when made on Unix)."""
    create_system: int
    """Host system that made the entry (3 = Unix)."""
    name_bytes: bytes
    """The name's raw bytes, for soundness checks that must see exactly what is stored."""

    @property
    def is_dir(self) -> bool:
        """Directory entries end in a slash."""
        return self.name.endswith("/")

    @property
    def is_encrypted(self) -> bool:
        """Bit 0 of the flags marks traditional or strong encryption."""
        return bool(self.flags & 0x1)

    @property
    def is_symlink(self) -> bool:
        """A Unix symlink, stored as an entry whose content is the link target."""
        mode = self.external_attr >> 16
        return self.create_system == _UNIX and stat.S_ISLNK(mode)

    @property
    def method_name(self) -> str:
        """Human name of the compression method."""
        return METHOD_NAMES.get(self.method, f"method {self.method}")


def read_central_directory(path: Path, fd: int, file_size: int) -> tuple[tuple[ZipEntry, ...], int]:
    """The entries, in directory order, and the offset where the central directory starts."""
    entries, cd_offset, _ = read_shifted_directory(path, fd, file_size)
    return entries, cd_offset


def read_shifted_directory(
    path: Path, fd: int, file_size: int
) -> tuple[tuple[ZipEntry, ...], int, int]:
    """The entries, the central directory's offset, and the shift applied to every recorded
    offset: non-zero when bytes were prepended to the archive (a self-extracting stub) without
    correcting its offsets. zipfile, and so pip, reads such an archive shifted by the gap
    between the directory's recorded end and its end record (its `concat`); so does k3diff,
    when the directory is found there and not at the recorded offset."""
    eocd_pos, eocd = _find_eocd(path, fd, file_size)
    count, cd_size, cd_offset = eocd[4], eocd[5], eocd[6]
    directory_end = eocd_pos
    if count == 0xFFFF or cd_size == 0xFFFFFFFF or cd_offset == 0xFFFFFFFF:
        count, cd_size, cd_offset = _read_zip64_eocd(path, fd, eocd_pos)
        directory_end -= _EOCD64.size + _EOCD64_LOCATOR.size
    if cd_offset + cd_size > eocd_pos:
        raise ArchiveError(
            f"{path}: central directory (offset {cd_offset}, {cd_size} bytes) lies past its end "
            "record: truncated or corrupt archive"
        )
    shift = directory_end - cd_size - cd_offset
    if shift <= 0 or (count and os.pread(fd, 4, cd_offset) == _SIG_CENTRAL):
        shift = 0
    elif count and os.pread(fd, 4, cd_offset + shift) != _SIG_CENTRAL:
        shift = 0  # neither place holds it: reported as a corrupt record below
    directory = os.pread(fd, cd_size, cd_offset + shift)
    if len(directory) != cd_size:
        raise ArchiveError(f"{path}: central directory is truncated")
    entries = _parse_central_directory(path, directory, count, file_size)
    if shift:
        entries = tuple(e._replace(header_offset=e.header_offset + shift) for e in entries)
    return entries, cd_offset + shift, shift


def _find_eocd(path: Path, fd: int, file_size: int) -> tuple[int, tuple[Any, ...]]:
    if file_size < _EOCD.size:
        raise ArchiveError(f"{path}: not a zip archive ({file_size} bytes, too short)")
    tail_size = min(file_size, _EOCD.size + _MAX_COMMENT)
    tail = os.pread(fd, tail_size, file_size - tail_size)
    position = tail.rfind(_SIG_EOCD)
    while position >= 0:
        if position + _EOCD.size <= len(tail):
            fields = _EOCD.unpack_from(tail, position)
            if position + _EOCD.size + fields[7] <= len(tail):
                return file_size - tail_size + position, fields
        position = tail.rfind(_SIG_EOCD, 0, position)
    if os.pread(fd, 4, 0) == SIG_LOCAL:
        raise ArchiveError(f"{path}: zip archive without an end record: truncated")
    raise ArchiveError(f"{path}: not a zip archive (no end-of-central-directory record)")


def _read_zip64_eocd(path: Path, fd: int, eocd_pos: int) -> tuple[int, int, int]:
    if eocd_pos < _EOCD64_LOCATOR.size:
        raise ArchiveError(f"{path}: ZIP64 archive without a ZIP64 locator: corrupt")
    locator = os.pread(fd, _EOCD64_LOCATOR.size, eocd_pos - _EOCD64_LOCATOR.size)
    if len(locator) < _EOCD64_LOCATOR.size or locator[:4] != _SIG_EOCD64_LOCATOR:
        raise ArchiveError(f"{path}: ZIP64 archive without a ZIP64 locator: corrupt")
    record_offset = _EOCD64_LOCATOR.unpack(locator)[2]
    record = os.pread(fd, _EOCD64.size, record_offset)
    if len(record) < _EOCD64.size or record[:4] != _SIG_EOCD64:
        raise ArchiveError(f"{path}: ZIP64 end record missing at offset {record_offset}: corrupt")
    fields = _EOCD64.unpack(record)
    return fields[7], fields[8], fields[9]


def _parse_central_directory(
    path: Path, directory: bytes, count: int, file_size: int
) -> tuple[ZipEntry, ...]:
    # The per-record work is kept inline (one unpack, one slice, an ASCII fast path for the
    # name, a positional tuple): a 12,000-entry wheel parses in a few milliseconds per side.
    entries: list[ZipEntry] = []
    append = entries.append
    unpack_from = _CENTRAL.unpack_from
    fixed = _CENTRAL.size
    total = len(directory)
    position = 0
    for index in range(count):
        if position + fixed > total or directory[position : position + 4] != _SIG_CENTRAL:
            raise ArchiveError(f"{path}: central directory record {index} is corrupt")
        fields = unpack_from(directory, position)
        name_len, extra_len, comment_len = fields[10], fields[11], fields[12]
        start = position + fixed
        name_bytes = directory[start : start + name_len]
        position = start + name_len + extra_len + comment_len
        if position > total:
            raise ArchiveError(f"{path}: central directory record {index} is truncated")
        size, csize, offset = fields[9], fields[8], fields[16]
        if 0xFFFFFFFF in (size, csize, offset):
            extra = directory[start + name_len : start + name_len + extra_len]
            size, csize, offset = _apply_zip64_extra(path, name_bytes, extra, size, csize, offset)
        if offset >= file_size:
            raise ArchiveError(
                f"{path}: entry {_decode_name(path, index, fields[3], name_bytes)!r} starts past "
                "the end of the file (truncated archive)"
            )
        name = (
            name_bytes.decode("ascii")
            if name_bytes.isascii()
            else _decode_name(path, index, fields[3], name_bytes)
        )
        append(
            ZipEntry(
                name,
                index,
                fields[4],
                fields[3],
                fields[7],
                csize,
                size,
                offset,
                fields[15],
                fields[1] >> 8,
                name_bytes,
            )
        )
    return tuple(entries)


def _decode_name(path: Path, index: int, flags: int, name_bytes: bytes) -> str:
    encoding = "utf-8" if flags & 0x800 else "cp437"
    try:
        return name_bytes.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ArchiveError(f"{path}: entry {index} has a name that is not valid UTF-8") from exc


def _apply_zip64_extra(
    path: Path, name: bytes, extra: bytes, size: int, csize: int, offset: int
) -> tuple[int, int, int]:
    position = 0
    while position + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, position)
        body = extra[position + 4 : position + 4 + length]
        position += 4 + length
        if tag != _ZIP64_EXTRA:
            continue
        values = list(struct.unpack_from(f"<{len(body) // 8}Q", body))
        try:
            if size == 0xFFFFFFFF:
                size = values.pop(0)
            if csize == 0xFFFFFFFF:
                csize = values.pop(0)
            if offset == 0xFFFFFFFF:
                offset = values.pop(0)
        except IndexError as exc:
            raise ArchiveError(f"{path}: entry {name!r} has a short ZIP64 extra field") from exc
        return size, csize, offset
    raise ArchiveError(f"{path}: entry {name!r} needs a ZIP64 extra field and has none")
