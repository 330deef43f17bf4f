"""Archive layout checks shared by `k3diff wheels` and `k3diff audit` (W607-W612).

The central directory is what zip readers trust; an installer that reads local headers instead
(streaming extractors do) can be handed a different file. These checks compare the two views and
account for every byte of the file: each local record (header, data, optional descriptor) must
start where the previous one ended, nothing may sit before the first record, between records,
after the last one or after the end record, and no two records may share bytes. Declared sizes
are only compared, never trusted: stream contents are checked by `ZipArchive.content_chunks`,
which stops inflating at the declared size (W604).

Self-contained on purpose: it only needs an open `ZipArchive` and its entries.
"""

from __future__ import annotations

import operator
import struct
from collections import Counter
from collections.abc import Iterator
from itertools import compress, repeat
from typing import NamedTuple

from k3diff.errors import ArchiveError
from k3diff.wheel.codes import Code, Finding
from k3diff.zip.archive import ZipArchive
from k3diff.zip.bounds import BOMB_MIN_SIZE, BOMB_RATIO, is_bomb
from k3diff.zip.directory import LOCAL_HEADER, SIG_LOCAL, ZipEntry

_DESCRIPTOR_SIG = b"PK\x07\x08"
_ZIP64_MARK = 0xFFFFFFFF
_ZIP64_EXTRA = 0x0001


class _Record(NamedTuple):
    """Where one entry's local record lies, as read from its local header (a tuple: one is
    built per entry, three times faster than a frozen dataclass)."""

    entry: ZipEntry
    start: int
    end: int


_SIZE = operator.itemgetter(6)
"""`ZipEntry.size`, as a C-level key."""
_NAME = operator.itemgetter(0)
"""`ZipEntry.name`, as a C-level key."""

_START = operator.itemgetter(1)
"""`_Record.start`, as a sort key (a lambda per record cost a tenth of the layout check)."""


def name_findings(archive: ZipArchive, side: str) -> Iterator[Finding]:
    """W607 for backslashes in names, W608 for names that occur more than once."""
    names = list(map(_NAME, archive.entries))
    if "\\" in "".join(names):  # one test of every name: almost no wheel has a backslash
        for name in names:
            if "\\" in name:
                yield Finding(
                    Code.W607,
                    name,
                    f"in the {side} wheel: a backslash, a directory separator on Windows only",
                )
    if len(set(names)) == len(names):
        return  # no name twice: skip counting and sorting every name
    counts = Counter(names)
    for name, count in sorted(counts.items()):
        if count > 1:
            yield Finding(
                Code.W608, name, f"in the {side} wheel: {count:,} entries share this name"
            )


def layout_findings(archive: ZipArchive, side: str) -> Iterator[Finding]:
    """W609-W612: local headers against the directory, bytes outside entries, overlaps, bombs."""
    yield from name_findings(archive, side)
    # Read once and shared with the proofs; reading them also told the archive every entry's
    # data offset (the same `data_start` as below), so no proof reads a header again.
    scan = archive.header_scan()
    if scan.plain_end is not None:
        # Nearly every wheel: every header plainly agrees with the directory and the records
        # follow each other, so the loop below would find nothing but bombs, and the coverage
        # check nothing before the last record's end.
        yield from _bombs(archive, side)
        yield from _coverage(archive, side, [], scan.plain_end)
        return
    records: list[_Record] = []
    headers = scan.headers
    unpack_from, fixed = LOCAL_HEADER.unpack_from, LOCAL_HEADER.size
    for entry in archive.entries:
        header = headers[entry.position]
        if (
            entry.size < BOMB_MIN_SIZE
            and header[:4] == SIG_LOCAL
            and len(header) == fixed + len(entry.name_bytes)
        ):  # nearly every entry: one unpack and compare, inline (the loop runs per entry)
            _, _, flags, method, _, _, crc, csize, size, name_len, extra_len = unpack_from(header)
            if (
                not flags & 0x9
                and method == entry.method
                and crc == entry.crc32
                and csize == entry.compressed_size
                and size == entry.size
                and name_len == len(entry.name_bytes)
                and header[fixed:] == entry.name_bytes
                and not entry.flags & 0x1
            ):
                start = entry.header_offset
                end = start + fixed + name_len + extra_len + entry.compressed_size
                records.append(_Record(entry, start, end))
                continue
        if is_bomb(entry):
            yield _bomb(entry, side)
        try:
            record, problems = _read_record(archive, entry, header)
        except ArchiveError as exc:
            yield Finding(Code.W609, entry.name, f"in the {side} wheel: {_strip(archive, exc)}")
            continue
        for problem in problems:
            yield Finding(Code.W609, entry.name, f"in the {side} wheel: {problem}")
        records.append(record)
    yield from _coverage(archive, side, records)


def _bomb(entry: ZipEntry, side: str) -> Finding:
    return Finding(
        Code.W612,
        entry.name,
        f"in the {side} wheel: declares {entry.size:,} bytes from "
        f"{entry.compressed_size} compressed (ratio over {BOMB_RATIO}:1); not inflated",
    )


def _bombs(archive: ZipArchive, side: str) -> Iterator[Finding]:
    """W612 for each bomb, in directory order."""
    large = map(operator.ge, map(_SIZE, archive.entries), repeat(BOMB_MIN_SIZE))
    for entry in compress(archive.entries, large):  # only these can be bombs: tested in C
        if is_bomb(entry):
            yield _bomb(entry, side)


def _strip(archive: ZipArchive, exc: Exception) -> str:
    return str(exc).removeprefix(f"{archive.path}: ")


def _read_record(archive: ZipArchive, entry: ZipEntry, header: bytes) -> tuple[_Record, list[str]]:
    # `header`: the local header and name when the name has the directory's length, as it should.
    if len(header) < LOCAL_HEADER.size or header[:4] != SIG_LOCAL:
        raise ArchiveError(f"no local header at offset {entry.header_offset}")
    _, _, flags, method, _, _, crc, csize, size, name_len, extra_len = LOCAL_HEADER.unpack_from(
        header
    )
    if name_len == len(entry.name_bytes):
        name = header[LOCAL_HEADER.size :]
    else:
        name = archive.pread(name_len, entry.header_offset + LOCAL_HEADER.size)
    data_start = entry.header_offset + LOCAL_HEADER.size + name_len + extra_len
    end = data_start + entry.compressed_size
    if (
        not flags & 0x9
        and method == entry.method
        and crc == entry.crc32
        and csize == entry.compressed_size
        and size == entry.size
        and name == entry.name_bytes
        and not entry.flags & 0x1
    ):  # the common case, kept cheap: a wheel may hold tens of thousands of entries
        return _Record(entry, entry.header_offset, end), []
    problems: list[str] = []
    if name != entry.name_bytes:
        shown = name.decode("utf-8", errors="replace")
        problems.append(f"the local header names {shown!r}, the central directory {entry.name!r}")
    if method != entry.method:
        problems.append(f"compression method {method} locally, {entry.method} in the directory")
    if (flags ^ entry.flags) & 0x1:
        problems.append("encrypted in one header and not in the other")
    if flags & 0x8:
        extra = archive.pread(extra_len, entry.header_offset + LOCAL_HEADER.size + name_len)
        crc, csize, size, end = _descriptor(archive, end, entry, _has_zip64_extra(extra))
    for label, local, central in (
        ("CRC-32", crc, entry.crc32),
        ("compressed size", csize, entry.compressed_size),
        ("size", size, entry.size),
    ):
        if local != central and local != _ZIP64_MARK:
            if label == "CRC-32":  # in hex, as W604 words a CRC-32
                problems.append(f"{label} {local:08x} locally, {central:08x} in the directory")
            else:
                problems.append(f"{label} {local} locally, {central} in the directory")
    return _Record(entry, entry.header_offset, end), problems


def _has_zip64_extra(extra: bytes) -> bool:
    """Whether a local header's extra fields hold a ZIP64 one (tag 0x0001)."""
    position = 0
    while len(extra) - position >= 4:
        tag, length = struct.unpack_from("<HH", extra, position)
        if tag == _ZIP64_EXTRA:
            return True
        position += 4 + length
    return False


def _descriptor(
    archive: ZipArchive, data_end: int, entry: ZipEntry, zip64: bool
) -> tuple[int, int, int, int]:
    """(crc, compressed size, size, record end) from the data descriptor after the data. Its
    sizes are 8 bytes each when the local header has a ZIP64 extra field (APPNOTE 4.3.9.2;
    CPython's zipfile writes a streamed entry so whatever its size) or the sizes need them."""
    wide = zip64 or entry.compressed_size >= _ZIP64_MARK or entry.size >= _ZIP64_MARK
    layout = struct.Struct("<LQQ" if wide else "<LLL")
    raw = archive.pread(4 + layout.size, data_end)
    skip = 4 if raw[:4] == _DESCRIPTOR_SIG else 0
    if len(raw) < skip + layout.size:
        raise ArchiveError("data descriptor runs past the end of the file")
    crc, csize, size = layout.unpack_from(raw, skip)
    return crc, csize, size, data_end + skip + layout.size


def _coverage(
    archive: ZipArchive, side: str, records: list[_Record], end: int | None = None
) -> Iterator[Finding]:
    """W610 for bytes no record accounts for, W611 for records that share bytes. `end`: where
    the last record ends, when the records are known to follow each other from the first
    (`HeaderScan.plain_end`): only what lies before and after them is left to check."""
    # By start, then position: the records come in directory order and the sort is stable.
    records.sort(key=_START)
    position = 0
    if archive.offset_shift:
        yield Finding(
            Code.W610,
            "",
            f"in the {side} wheel: {archive.offset_shift:,} bytes were prepended without "
            f"correcting the archive's offsets (every one is {archive.offset_shift:,} bytes short); "
            "read shifted, as zipfile and pip read it",
        )
        position = archive.offset_shift  # the prepended bytes: said once, above
    if end is not None:
        position = end
    previous: _Record | None = None
    for record in records:
        if record.start > position:
            where = (
                "before the first entry" if previous is None else f"after {previous.entry.name!r}"
            )
            yield Finding(
                Code.W610,
                "" if previous is None else previous.entry.name,
                f"in the {side} wheel: {record.start - position:,} bytes {where} belong to no entry",
            )
        elif record.start < position and previous is not None:
            yield Finding(
                Code.W611,
                record.entry.name,
                f"in the {side} wheel: its record starts inside {previous.entry.name!r}'s",
            )
        if record.end >= position:
            position, previous = record.end, record
    if archive.directory_offset > position:
        yield Finding(
            Code.W610,
            "",
            f"in the {side} wheel: {archive.directory_offset - position:,} bytes between the last "
            "entry and the central directory belong to no entry",
        )
    elif archive.directory_offset < position:
        yield Finding(
            Code.W611, "", f"in the {side} wheel: the last entry runs into the central directory"
        )
    # The directory ends where its end record starts (zipfile reads it so; an offset that
    # says otherwise is W613). Only bytes after the end record's comment are left to check.
    if archive.end_record_end < archive.file_size:
        yield Finding(
            Code.W610,
            "",
            f"in the {side} wheel: {archive.file_size - archive.end_record_end:,} bytes appended "
            "after the end record",
        )
