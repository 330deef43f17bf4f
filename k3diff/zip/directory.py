"""The zip container's layout: record structures, the central directory and its entries.

`read_central_directory` reads the directory the way CPython's `zipfile` (and so pip) reads it:
records until the directory's size is used up (not the end record's count), ZIP64 extra fields
applied as `zipfile` applies them, names decoded (UTF-8 when flagged, else CP437) and cut at the
first NUL. Every contradiction on the way (count against size, classic against ZIP64 records,
a name that newer `zipfile` releases read differently) is kept for W613. The directory is capped
in bytes and records before any entry is built. Reading entry data is `archive`'s job.
"""

from __future__ import annotations

import os
import stat
import struct
import zlib
from collections.abc import Sequence
from itertools import compress, repeat
from operator import add
from pathlib import Path
from typing import NamedTuple

from k3diff.errors import ArchiveError, CapError
from k3diff.zip.besidenames import record_names
from k3diff.zip.columns import fixed_columns
from k3diff.zip.endrecord import SIG_LOCAL as SIG_LOCAL
from k3diff.zip.endrecord import read_end_records

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

_CENTRAL = struct.Struct("<4s6H3L5H2L")
_PLAIN_FIELDS = ((1, 1), (2, 1), (4, 2), (6, 2), (12, 4), (16, 4), (20, 4), (24, 2), (26, 2),
                 (28, 2), (34, 4), (38, 4))  # fmt: skip
"""What `ZipEntry` and `_plain_directory` need of a central record's fields after its
signature (what `bytes.split` leaves of one), as (offset, width) for `fixed_columns`: the host
system (the version-made-by's high byte), the version needed's low byte, flags, method, CRC-32,
compressed size, size, name, extra and comment lengths, external attributes, header offset."""
LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_SIG_CENTRAL = b"PK\x01\x02"
CENTRAL_FIXED = _CENTRAL.size - len(_SIG_CENTRAL)
_ZIP64_EXTRA = 0x0001
_UNIX = 3
_UNICODE_PATH_EXTRA = 0x7075
_EXTRA_HEADER = struct.Struct("<HH").unpack_from
_INFO_ZIP_EXTRA = struct.Struct("<2H5x2H").unpack_from
"""The two fields Info-ZIP `zip` writes in every central record of a Unix file: extended
time (0x5455, 5 bytes) then Unix UID/GID (0x7875, 11 bytes), 24 bytes in all."""
_INFO_ZIP_FIELDS = (0x5455, 5, 0x7875, 11)
_INFO_ZIP_EXTRA_LEN = 24
_MAX_EXTRACT_VERSION = 63
"""Highest "version needed to extract" zipfile opens (it raises NotImplementedError above)."""

MAX_DIRECTORY_BYTES = 32 << 20
"""Largest central directory k3diff reads. A 12,000-entry torch wheel's is about 1.3 MB; a
directory of 2 million records (a 124 MB wheel) would cost gigabytes once parsed."""

MAX_ENTRIES = 100_000
"""Most central-directory records k3diff reads. Real wheels hold at most tens of thousands
(torch: 12,000); `wheels` on a pair of 99,000-entry wheels peaked at 230 MB."""


class ZipEntry(NamedTuple):
    """One central-directory record (a named tuple: a large wheel has tens of thousands, and a
    tuple is built three times faster than a frozen dataclass)."""

    name: str
    """Archive path as zipfile reads it: decoded (UTF-8 when flagged, else CP437) and cut at
    the first NUL."""
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
    """The name's raw bytes (NUL and all), for soundness checks that must see exactly what is
    stored."""

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


class CentralDirectory(NamedTuple):
    """The directory as `zipfile` reads it, and what contradicts it."""

    entries: tuple[ZipEntry, ...]
    """The records in directory order."""
    offset: int
    """Where the directory starts (shifted as `zipfile` shifts it)."""
    end_record_end: int
    """Where the end record (with the comment it declares) ends."""
    disagreements: tuple[str, ...]
    """Each way the end records, the directory and `zipfile` releases disagree (W613)."""
    shift: int = 0
    """Bytes `zipfile` adds to every recorded offset (a prepended stub, offsets uncorrected)."""
    fixed: bytes | None = None
    """The records' parts after their signatures up to the name, joined (when plain), or None."""


def read_central_directory(
    path: Path, fd: int, file_size: int, beside: Sequence[ZipEntry] = ()
) -> CentralDirectory:
    """The entries, in directory order, read as `zipfile` reads them; `beside`: another
    archive's entries, whose names a plain directory shares where alike (`besidenames`)."""
    end = read_end_records(path, fd, file_size)
    size = end.directory_size
    if size > MAX_DIRECTORY_BYTES:
        raise CapError(
            f"{path}: central directory of {size:,} bytes is over k3diff's cap of "
            f"{MAX_DIRECTORY_BYTES:,} bytes"
        )
    directory = os.pread(fd, size, end.directory_start)
    if len(directory) != size:
        raise ArchiveError(f"{path}: central directory is truncated")
    if size // _CENTRAL.size > MAX_ENTRIES:
        _check_record_count(path, directory)
    disagreements = list(end.disagreements)
    plain = _plain_directory(directory, end.shift, file_size, beside)
    entries, fixed = plain or (None, None)
    if entries is None:
        entries = _parse_central_directory(path, directory, end.shift, file_size, disagreements)
    if len(entries) != end.declared_count:
        disagreements.append(
            f"the end record counts {end.declared_count:,} records, the directory's "
            f"{size:,} bytes hold {len(entries):,} (zipfile reads them all)"
        )
    return CentralDirectory(
        entries, end.directory_start, end.end_record_end, tuple(disagreements), end.shift, fixed
    )


def _check_record_count(path: Path, directory: bytes) -> None:
    """Count the records before building any: refuse a directory of more than `MAX_ENTRIES`."""
    lengths = struct.Struct("<3H").unpack_from
    position = count = 0
    total = len(directory)
    while position < total:
        count += 1
        if count > MAX_ENTRIES:
            raise CapError(
                f"{path}: central directory holds more than k3diff's cap of {MAX_ENTRIES:,} records"
            )
        if position + _CENTRAL.size > total:
            return  # the parse says what is wrong
        name_len, extra_len, comment_len = lengths(directory, position + 28)
        position += _CENTRAL.size + name_len + extra_len + comment_len


def _plain_directory(
    directory: bytes, shift: int, file_size: int, beside: Sequence[ZipEntry] = ()
) -> tuple[tuple[ZipEntry, ...], bytes] | None:
    """`_parse_central_directory`'s entries (and the records' fixed parts, joined), column by
    column in C, for a plain directory:
    records back to back from its first byte to its last, each `bytes.split` piece one record
    (so no name or extra holds a signature), ASCII names without NUL, no extra field but the
    two Info-ZIP `zip` writes, no ZIP64 value, readable versions, offsets inside the file.
    Anything else is None, and the record loop reads it (and words what is wrong)."""
    pieces = directory.split(_SIG_CENTRAL)
    if pieces[0] or len(pieces) == 1:
        return None  # the first record is not at 0, or there is none: the loop decides
    del pieces[0]
    fixed = CENTRAL_FIXED
    if min(map(len, pieces)) < fixed:
        return None
    # Every record's fixed part, joined: each field a column read by strided slices.
    heads = b"".join(map(bytes.__getitem__, pieces, repeat(slice(fixed))))
    (system, version, flags, method, crc, csize, size, name_len, extra_len, comment_len, mode,
     offset) = fixed_columns(heads, fixed, _PLAIN_FIELDS)  # fmt: skip
    ends = list(map(add, name_len, repeat(fixed)))
    if list(map(len, pieces)) != list(map(add, map(add, ends, extra_len), comment_len)):
        return None  # a piece is not one whole record: a signature inside one, or a cut
    if max(version) > _MAX_EXTRACT_VERSION or not set(extra_len) <= {0, _INFO_ZIP_EXTRA_LEN}:
        return None
    if any(extra_len) and set(
        map(_INFO_ZIP_EXTRA, compress(pieces, extra_len), compress(ends, extra_len))
    ) != {_INFO_ZIP_FIELDS}:
        return None
    if 0xFFFFFFFF in size or 0xFFFFFFFF in csize or 0xFFFFFFFF in offset:
        return None
    if shift:
        offset = list(map(add, offset, repeat(shift)))
    if min(offset) < 0 or max(offset) >= file_size:
        return None
    name_bytes, names = record_names(pieces, fixed, name_len, beside)
    joined = b"".join(name_bytes)
    if not joined.isascii() or b"\0" in joined:
        return None
    positions = range(len(pieces))
    fields = zip(names, positions, method, flags, crc, csize, size, offset, mode, system,
                 name_bytes, strict=True)  # fmt: skip
    return tuple(map(tuple.__new__, repeat(ZipEntry), fields)), heads


def _parse_central_directory(
    path: Path, directory: bytes, shift: int, file_size: int, disagreements: list[str]
) -> tuple[ZipEntry, ...]:
    # The per-record work is kept inline (one unpack, one slice, an ASCII fast path for the
    # name, a positional tuple): a 12,000-entry wheel parses in a few milliseconds per side.
    entries: list[ZipEntry] = []
    append = entries.append
    new = tuple.__new__
    unpack_from = _CENTRAL.unpack_from
    fixed = _CENTRAL.size
    total = len(directory)
    position = index = 0
    while position < total:  # as zipfile: until the directory's size is used up
        if position + fixed > total or directory[position : position + 4] != _SIG_CENTRAL:
            raise ArchiveError(f"{path}: central directory record {index} is corrupt")
        fields = unpack_from(directory, position)
        name_len, extra_len, comment_len = fields[10], fields[11], fields[12]
        start = position + fixed
        name_bytes = directory[start : start + name_len]
        position = start + name_len + extra_len + comment_len
        if position > total:
            raise ArchiveError(f"{path}: central directory record {index} is truncated")
        if fields[2] & 0xFF > _MAX_EXTRACT_VERSION:  # the high byte is reserved
            raise ArchiveError(
                f"{path}: entry {index} needs zip version {(fields[2] & 0xFF) / 10:.1f} to extract, "
                "which zipfile does not read"
            )
        name = (
            name_bytes.decode("ascii")
            if name_bytes.isascii()
            else _decode_name(path, index, fields[3], name_bytes)
        )
        if "\0" in name:
            name = name[: name.index("\0")]  # zipfile cuts names at the first NUL
        size, csize, offset = fields[9], fields[8], fields[16]
        if extra_len == _INFO_ZIP_EXTRA_LEN and (
            _INFO_ZIP_EXTRA(directory, start + name_len) == _INFO_ZIP_FIELDS
        ):
            # Every record of a wheel built with `zip` (the torch CUDA wheels): two fields that
            # fill the extra exactly and change nothing, what `_apply_extra` finds in them.
            if 0xFFFFFFFF in (size, csize, offset):
                raise ArchiveError(f"{path}: entry {index} needs a ZIP64 extra field and has none")
        elif extra_len:
            extra = directory[start + name_len : start + name_len + extra_len]
            size, csize, offset, renamed = _apply_extra(
                path, index, name_bytes, extra, (size, csize, offset)
            )
            if renamed is not None and renamed != name:
                disagreements.append(
                    f"entry {index} ({name!r}) carries a Unicode path field naming it "
                    f"{renamed!r}: newer zipfile releases use that name, older ones do not"
                )
        elif 0xFFFFFFFF in (size, csize, offset):
            raise ArchiveError(f"{path}: entry {name!r} needs a ZIP64 extra field and has none")
        offset += shift
        if not 0 <= offset < file_size:
            raise ArchiveError(
                f"{path}: entry {name!r} starts outside the file (truncated archive)"
            )
        # tuple.__new__ directly: ZipEntry's own __new__ is a Python function, a third of
        # the loop's time.
        append(
            new(
                ZipEntry,
                (
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
                ),
            )
        )
        index += 1
    return tuple(entries)


def _decode_name(path: Path, index: int, flags: int, name_bytes: bytes) -> str:
    encoding = "utf-8" if flags & 0x800 else "cp437"
    try:
        return name_bytes.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ArchiveError(f"{path}: entry {index} has a name that is not valid UTF-8") from exc


def _apply_extra(
    path: Path, index: int, name_bytes: bytes, extra: bytes, values: tuple[int, int, int]
) -> tuple[int, int, int, str | None]:
    """(size, compressed size, offset, Unicode path name or None) after the extra fields, read
    as zipfile reads them: every field must fit, each ZIP64 field fills what is still
    saturated, and a valid Info-ZIP Unicode path field renames the entry in newer releases."""
    size, csize, offset = values
    renamed: str | None = None
    zip64 = False
    position = 0
    total = len(extra)
    while total - position >= 4:
        tag, length = _EXTRA_HEADER(extra, position)
        end = position + 4 + length
        if end > total:
            raise ArchiveError(
                f"{path}: entry {index} has a corrupt extra field {tag:04x} (size={length})"
            )
        if tag == _ZIP64_EXTRA:
            zip64 = True
            body = extra[position + 4 : end]
            size, csize, offset = _zip64_values(path, index, body, size, csize, offset)
        elif tag == _UNICODE_PATH_EXTRA:
            body = extra[position + 4 : end]
            unicode_name = _unicode_path(path, index, name_bytes, body)
            if unicode_name is not None:
                renamed = unicode_name
        position = end
    if not zip64 and 0xFFFFFFFF in (size, csize, offset):
        raise ArchiveError(f"{path}: entry {index} needs a ZIP64 extra field and has none")
    return size, csize, offset, renamed


def _zip64_values(
    path: Path, index: int, body: bytes, size: int, csize: int, offset: int
) -> tuple[int, int, int]:
    values = [
        struct.unpack_from("<Q", body, at)[0] for at in range(0, len(body) - len(body) % 8, 8)
    ]
    try:
        if size in (0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF):  # as zipfile tests it
            size = values.pop(0)
        if csize == 0xFFFFFFFF:
            csize = values.pop(0)
        if offset == 0xFFFFFFFF:
            offset = values.pop(0)
    except IndexError as exc:
        raise ArchiveError(f"{path}: entry {index} has a short ZIP64 extra field") from exc
    return size, csize, offset


def _unicode_path(path: Path, index: int, name_bytes: bytes, body: bytes) -> str | None:
    """The name an Info-ZIP Unicode path field gives (as zipfile 3.12+ reads it), or None."""
    if len(body) < 5:
        raise ArchiveError(f"{path}: entry {index} has a corrupt Unicode path extra field")
    version, name_crc = struct.unpack_from("<BL", body)
    if version != 1 or name_crc != zlib.crc32(name_bytes):
        return None
    try:
        name = body[5:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArchiveError(f"{path}: entry {index} has a Unicode path that is not UTF-8") from exc
    if not name:
        return None  # zipfile warns and keeps the stored name
    return name.split("\0", 1)[0]
