"""Where each entry of an open zip file lies: its local header, its data, the end of its record.

`RecordMap` is the open file (one descriptor, `os.pread` from any thread) and the map every read
of an entry goes through: data offsets read from the local headers once (or all at once, by
`localheaders`), and the end of each local record, so that data running into the next record
(overlapping entries, W611: the "quine" bomb) is refused before a byte of it is read.
`archive.ZipArchive` builds on it to stream the entries' content.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Self

from k3diff.bounded import open_regular
from k3diff.closeable import Closeable
from k3diff.errors import ArchiveError, CorruptEntryError
from k3diff.zip.bounds import readable_offsets, record_ends
from k3diff.zip.directory import (
    LOCAL_HEADER,
    SIG_LOCAL,
    CentralDirectory,
    ZipEntry,
    read_central_directory,
)
from k3diff.zip.localheaders import HEADER_OFFSET, HeaderScan, scan_local_headers


class RecordMap(Closeable):
    """An open zip file, its central directory, and where each entry's local record lies."""

    def __init__(self, path: Path, fd: int, file_size: int, directory: CentralDirectory) -> None:
        self.path = path
        self.file_size = file_size
        self.entries = directory.entries
        self.directory_offset = directory.offset
        self.end_record_end = directory.end_record_end
        """Where the end record, with the comment it declares, ends."""
        self.disagreements = directory.disagreements
        """How the end records, the directory and zipfile releases contradict each other."""
        self.offset_shift = directory.shift
        """Bytes added to every recorded offset, as zipfile adds them (a prepended stub)."""
        self._central_fixed = directory.fixed
        self._fd = fd
        self._data_offsets: dict[int, int] = {}
        self._record_ends: dict[int, int] | None = None
        self._by_offset: list[ZipEntry] | None = None
        self._header_scan: HeaderScan | None = None

    @classmethod
    def open(cls, path: Path, beside: Sequence[ZipEntry] = ()) -> Self:
        """Open `path` and read its central directory; raise InputError/ArchiveError if unusable.
        `beside`: another archive's entries, whose names it shares where they are alike
        (`besidenames`)."""
        fd = open_regular(path, str(path), "wheel/zip file")
        try:
            file_size = os.fstat(fd).st_size
            directory = read_central_directory(path, fd, file_size, beside)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, file_size, directory)

    def close(self) -> None:
        """Release the file descriptor."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def fileno(self) -> int:
        """The open file's descriptor (a child process comparing its bytes reads this one file,
        never the path again)."""
        return self._fd

    def pread(self, size: int, offset: int) -> bytes:
        """Read up to `size` bytes at `offset` (thread-safe)."""
        return os.pread(self._fd, size, offset)

    def local_header(self, entry: ZipEntry) -> tuple[bytes, int]:
        """The local header's name bytes and the offset where the entry's data starts."""
        header = self.pread(LOCAL_HEADER.size, entry.header_offset)
        if len(header) < LOCAL_HEADER.size or header[:4] != SIG_LOCAL:
            raise ArchiveError(
                f"{self.path}: entry {entry.name!r}: no local file header at offset "
                f"{entry.header_offset} (truncated or corrupt archive)"
            )
        fields = LOCAL_HEADER.unpack(header)
        name_len, extra_len = fields[9], fields[10]
        name = self.pread(name_len, entry.header_offset + LOCAL_HEADER.size)
        return name, entry.header_offset + LOCAL_HEADER.size + name_len + extra_len

    def data_offset(self, entry: ZipEntry) -> int:
        """Offset of the entry's compressed bytes, read from its local header once.

        Raises CorruptEntryError when the data runs into the next entry's local record (or
        the central directory): overlapping entries (W611) are never read, so an overlapping
        ("quine") bomb costs nothing. Newer zipfile releases refuse them the same way."""
        offset = self._data_offsets.get(entry.position)
        if offset is None:
            # The directory alone often proves an overlap: no need to read the local header.
            if self._overlaps(entry, entry.header_offset + LOCAL_HEADER.size):
                raise self._overlap_error(entry)
            _, offset = self.local_header(entry)
            if offset + entry.compressed_size > self.file_size:
                raise ArchiveError(
                    f"{self.path}: entry {entry.name!r} runs past the end of the file "
                    "(truncated archive)"
                )
            if self._overlaps(entry, offset):
                raise self._overlap_error(entry)
            self._data_offsets[entry.position] = offset
        return offset

    def known_data_offsets(self) -> Mapping[int, int]:
        """The data offsets `data_offset` returns without a read or a check, by position."""
        return self._data_offsets

    def _overlap_error(self, entry: ZipEntry) -> CorruptEntryError:
        return self._corrupt(
            entry, "overlaps the next entry's record (overlapping entries, W611): not read"
        )

    def _overlaps(self, entry: ZipEntry, data_offset: int) -> bool:
        end = self.record_end(entry)
        return end is None or data_offset + entry.compressed_size > end

    def _corrupt(self, entry: ZipEntry, problem: str) -> CorruptEntryError:
        return CorruptEntryError(str(self.path), entry.name, problem)

    def local_headers(self) -> Mapping[int, bytes]:
        """Every entry's local header and name bytes by position (`localheaders`), read once;
        the data offsets they give are remembered, so no proof or sniff reads a header again.
        Call it from one thread before others read entries (`wheels` does, before its pool)."""
        return self.header_scan().headers

    def header_scan(self) -> HeaderScan:
        """The local headers as `local_headers` reads them, judged against the directory once
        (`localheaders.scan_local_headers`)."""
        if self._header_scan is None:
            ordered = self.by_offset()
            central = self._central_fixed if tuple(ordered) == self.entries else None
            scan = scan_local_headers(self, ordered, self.offset_shift, central)
            end = scan.plain_end
            if end is not None and end <= min(self.directory_offset, self.file_size):
                # The records tile the file from the first offset up to the directory: each
                # entry's data ends where the next record starts (or at `end`), inside the
                # file and inside its own record, which is all `remember_data_offsets` checks.
                self._data_offsets.update(scan.data_offsets)
            else:
                self.remember_data_offsets(scan.data_offsets)
            self._header_scan = scan
        return self._header_scan

    def remember_data_offsets(self, found: dict[int, int]) -> None:
        """Record where each entry's data starts (by position), as read from its local header,
        so that `data_offset` does not read the header again. An offset whose data would run
        past the file or into another record is not kept: `data_offset` then says what is
        wrong."""
        self._data_offsets.update(
            readable_offsets(found, self.entries, self.record_ends(), self.file_size)
        )

    def record_end(self, entry: ZipEntry) -> int | None:
        """Where the entry's local record (header, data, descriptor) ends: the next record's
        offset, or the central directory's. None when another entry claims the same offset."""
        return self.record_ends().get(entry.position)

    def by_offset(self) -> list[ZipEntry]:
        """The entries in the order of their local headers in the file, sorted once."""
        if self._by_offset is None:
            self._by_offset = sorted(self.entries, key=HEADER_OFFSET)
        return self._by_offset

    def record_ends(self) -> dict[int, int]:
        """`record_end` of every entry by position (absent: None), computed once."""
        if self._record_ends is None:
            self._record_ends = record_ends(self.by_offset(), self.directory_offset)
        return self._record_ends
