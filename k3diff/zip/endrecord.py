"""Where the central directory is, found the way CPython's `zipfile` (and so pip) finds it.

`zipfile` takes the end record it meets first from the file's end: the last 22 bytes when they
are one without a comment, else the last `PK\\x05\\x06` in the final 64 KiB (its comment length
unchecked). A ZIP64 locator right before it makes `zipfile` prefer the ZIP64 end record
whenever there is one, saturated classic fields or not. Older Python releases read that record
just before the locator; releases with the 2025 ZIP64 fix read it where the locator points and
refuse a record that contradicts the locator. The directory is then taken to end where the end record (or the
ZIP64 record) starts: a directory offset that says otherwise shifts every entry offset
("concatenated" archives).

Every place where these views can differ, or where the records contradict each other, is kept
as a `disagreement`: the archive is read as `zipfile` reads it, and the report fails (W613).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import NamedTuple

from k3diff.errors import ArchiveError

EOCD = struct.Struct("<4s4H2LH")
EOCD64_LOCATOR = struct.Struct("<4sLQL")
EOCD64 = struct.Struct("<4sQ2H2L4Q")
SIG_EOCD = b"PK\x05\x06"
SIG_EOCD64_LOCATOR = b"PK\x06\x07"
SIG_EOCD64 = b"PK\x06\x06"
SIG_LOCAL = b"PK\x03\x04"
_MAX_COMMENT = 0xFFFF
_SATURATED16 = 0xFFFF
_SATURATED32 = 0xFFFFFFFF


class EndRecords(NamedTuple):
    """What the end records say, as `zipfile` reads them (a named tuple: private to the
    directory reader, defined in a tenth of a frozen dataclass's ≈ 1 ms at every start)."""

    directory_start: int
    """Where the central directory starts (the declared offset shifted as `zipfile` does)."""
    directory_size: int
    """Bytes of central directory, read until used up."""
    declared_count: int
    """Records the end record in use (ZIP64 when present) says the directory holds."""
    shift: int
    """`zipfile`'s "concat": added to every entry's declared header offset (0 when honest)."""
    end_record_offset: int
    """Where the classic end record starts."""
    end_record_end: int
    """Where the classic end record ends, with the comment it declares."""
    disagreements: tuple[str, ...]
    """How the end records, the locator and the file contradict each other (W613)."""


def read_end_records(path: Path, fd: int, file_size: int) -> EndRecords:
    """The directory's place and size as `zipfile` sees them, with every contradiction."""
    eocd_pos, fields = _find_eocd(path, fd, file_size)
    disagreements: list[str] = []
    comment_space = file_size - eocd_pos - EOCD.size
    if fields[7] > comment_space:
        disagreements.append(
            f"the end record declares a {fields[7]:,}-byte comment, only {comment_space:,} bytes "
            "follow it"
        )
    zip64 = _read_zip64(path, fd, eocd_pos, disagreements)
    this_disk, count, size, offset = fields[3], fields[4], fields[5], fields[6]
    location = eocd_pos
    if zip64 is not None:
        location, zip64_fields = zip64
        _compare_classic(fields, zip64_fields, disagreements)
        this_disk, count, size, offset = zip64_fields[6:10]
    if this_disk != count:
        disagreements.append(
            f"the end record counts {this_disk:,} records on this disk and {count:,} in all"
        )
    shift = location - size - offset
    start = offset + shift
    if start < 0:
        raise ArchiveError(
            f"{path}: central directory of {size:,} bytes does not fit before its end record "
            "(bad offset for central directory)"
        )
    if shift:
        disagreements.append(
            f"the end record puts the central directory at offset {offset}, it lies at {start}: "
            f"zipfile shifts every entry offset by {shift}"
        )
    return EndRecords(
        directory_start=start,
        directory_size=size,
        declared_count=count,
        shift=shift,
        end_record_offset=eocd_pos,
        end_record_end=eocd_pos + EOCD.size + fields[7],
        disagreements=tuple(disagreements),
    )


def _find_eocd(path: Path, fd: int, file_size: int) -> tuple[int, tuple[int, ...]]:
    if file_size < EOCD.size:
        raise ArchiveError(f"{path}: not a zip archive ({file_size:,} bytes, too short)")
    last = os.pread(fd, EOCD.size, file_size - EOCD.size)
    if last[:4] == SIG_EOCD and last[-2:] == b"\0\0":
        return file_size - EOCD.size, EOCD.unpack(last)
    tail_start = max(file_size - (1 << 16) - EOCD.size, 0)
    tail = os.pread(fd, file_size - tail_start, tail_start)
    position = tail.rfind(SIG_EOCD)
    if position >= 0 and position + EOCD.size <= len(tail):
        return tail_start + position, EOCD.unpack_from(tail, position)
    if position >= 0:
        raise ArchiveError(f"{path}: the end record is cut short (truncated or corrupt archive)")
    if os.pread(fd, 4, 0) == SIG_LOCAL:
        raise ArchiveError(f"{path}: zip archive without an end record: truncated")
    raise ArchiveError(f"{path}: not a zip archive (no end-of-central-directory record)")


def _read_zip64(
    path: Path, fd: int, eocd_pos: int, disagreements: list[str]
) -> tuple[int, tuple[int, ...]] | None:
    """(position, fields) of the ZIP64 end record `zipfile` uses, or None for the classic one."""
    if eocd_pos < EOCD64_LOCATOR.size:
        return None
    locator_pos = eocd_pos - EOCD64_LOCATOR.size
    locator = os.pread(fd, EOCD64_LOCATOR.size, locator_pos)
    if locator[:4] != SIG_EOCD64_LOCATOR:
        return None
    _, disk, pointed, disks = EOCD64_LOCATOR.unpack(locator)
    if disk != 0 or disks > 1:
        raise ArchiveError(f"{path}: archive spans several disks (not supported by zipfile)")
    # Both zipfile versions read a record without "extensible data" just before the locator.
    adjacent = locator_pos - EOCD64.size
    if adjacent < 0:
        raise ArchiveError(f"{path}: corrupt ZIP64 end of central directory locator")
    record = os.pread(fd, EOCD64.size, adjacent)
    if record[:4] != SIG_EOCD64:
        disagreements.append(
            "a ZIP64 locator without a ZIP64 end record right before it: older zipfile "
            "releases read the classic end record, newer ones look where the locator points "
            "or refuse the archive"
        )
        return None
    fields = EOCD64.unpack(record)
    if pointed != adjacent:
        disagreements.append(
            f"the ZIP64 locator points at offset {pointed}, the ZIP64 end record is at "
            f"{adjacent}: Python versions read different records"
        )
    if fields[1] != EOCD64.size - 12 or fields[8] + fields[9] != pointed:
        disagreements.append(
            "the ZIP64 end record contradicts its locator (record size or directory end): "
            "newer zipfile releases refuse the archive, older ones read it"
        )
    return adjacent, fields


def _compare_classic(
    classic: tuple[int, ...], zip64: tuple[int, ...], disagreements: list[str]
) -> None:
    """The classic fields must each be saturated or equal to their ZIP64 counterparts."""
    pairs = (
        ("records on this disk", classic[3], zip64[6], _SATURATED16),
        ("records", classic[4], zip64[7], _SATURATED16),
        ("directory size", classic[5], zip64[8], _SATURATED32),
        ("directory offset", classic[6], zip64[9], _SATURATED32),
    )
    for label, old, new, saturated in pairs:
        if old not in (new, saturated):
            disagreements.append(
                f"{label}: {old} in the classic end record, {new} in the ZIP64 end record "
                "(zipfile uses the ZIP64 one)"
            )
