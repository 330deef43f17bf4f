"""Read a zip archive's entries in place: raw compressed streams and streaming inflate.

Nothing is extracted to disk and no entry is ever held whole in memory: content arrives in chunks
of at most `CHUNK` bytes. Reads use `os.pread` on one file descriptor, so any number of threads
can stream different entries of the same archive at once; where each entry's data lies, and
which entries overlap, is `recordmap`'s knowledge. Inflate uses ISA-L (`isal`) where it is
installed, which is several times faster than zlib, and zlib otherwise. Work is bounded
(`bounds`): overlapping entries and bombs are never read, and an archive's inflated bytes are
capped relative to the sizes it declares.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from k3diff.errors import ArchiveError, CapError, CorruptEntryError
from k3diff.zip.bounds import InflateBudget, is_bomb
from k3diff.zip.directory import (
    DEFLATED,
    LOCAL_HEADER,
    SIG_LOCAL,
    STORED,
    CentralDirectory,
    ZipEntry,
)
from k3diff.zip.inflate import INFLATE_LIBRARY as INFLATE_LIBRARY
from k3diff.zip.inflate import (
    SNIFF_INPUT,
    StreamProblem,
    inflate_stream,
    sniff,
    sniff_on,
    sniffable,
    whole_content,
)
from k3diff.zip.inflate import crc32 as crc32  # audit.verify reads it from here
from k3diff.zip.recordmap import RecordMap

CHUNK = 1 << 20
"""Bytes read (and inflated) per step: bounds the memory each stream uses. Each step takes and
gives back the GIL once, so with several inflating threads fewer, larger steps pay: on a
recompressed 900 MB wheel pair 1 MiB steps were 6% faster than 256 KiB ones, and 4 MiB steps,
whose output no longer stays in the CPU cache while it is compared, 4% slower."""

_INFLATE_INPUT = 512 << 10
"""Compressed bytes fed to the inflater per step (half the chunk asked for, if more); small
enough that output rarely exceeds a `CHUNK` by much (the rest waits for the next step)."""

_READABLE = (STORED, DEFLATED)  # the methods read (`_check_readable` words every other)

_LOCAL_EXTRA_GUESS = 64
"""Bytes of local extra field read along with a header in the same pread (zip tools write at
most a few dozen; a longer one costs a second read)."""


class ZipArchive(RecordMap):
    """An open zip file whose entries can be streamed, raw or inflated, from any thread."""

    def __init__(self, path: Path, fd: int, file_size: int, directory: CentralDirectory) -> None:
        super().__init__(path, fd, file_size, directory)
        self._budget: InflateBudget | None = None
        self._budget_made = threading.Lock()
        self._dist_info_files: dict[int, bytes] = {}

    def _spend(self, entry: ZipEntry, produced: int) -> None:
        """Count `produced` content bytes against the archive's inflate budget (made once, by
        whichever thread reads first: `wheels.early` inflates beside the main thread)."""
        budget = self._budget
        if budget is None:
            with self._budget_made:
                if self._budget is None:
                    self._budget = InflateBudget.deferred(self.entries, self.record_ends)
                budget = self._budget
        if not budget.spend(produced):
            raise self._corrupt(entry, f"not read to its end: {budget.describe()}")

    def raw_chunks(
        self, entry: ZipEntry, chunk: int = CHUNK, start: int = 0, stop: int | None = None
    ) -> Iterator[bytes]:
        """The entry's compressed bytes [start, stop), exactly as stored, in chunks."""
        end = entry.compressed_size if stop is None else min(stop, entry.compressed_size)
        position = self.data_offset(entry) + start
        remaining = end - start
        while remaining > 0:
            data = self.pread(min(chunk, remaining), position)
            if not data:
                raise ArchiveError(f"{self.path}: entry {entry.name!r}: unexpected end of file")
            position += len(data)
            remaining -= len(data)
            yield data

    def content_chunks(
        self, entry: ZipEntry, chunk: int = CHUNK, check_crc: bool = True
    ) -> Iterator[bytes]:
        """The entry's content (inflated when compressed), in chunks of at most `chunk` bytes.

        Raises ArchiveError for unsupported methods and encrypted entries, and CorruptEntryError
        for a stream that does not inflate or whose content fails its declared size or CRC-32
        (checked when the stream is read to its end; a consumer that stops early checks nothing).
        With `check_crc` False the CRC-32 is not computed (the size still is): for a caller
        that proves the content equal to a stream whose CRC-32 it does check.
        """
        self._check_readable(entry)
        fused = [0] if check_crc and entry.method != STORED else None
        if entry.method == STORED:
            source = self.raw_chunks(entry, chunk)
        else:
            source = self._inflated(entry, chunk, fused)
        produced = crc = 0
        for data in source:
            produced += len(data)
            self._spend(entry, len(data))
            if produced > entry.size:
                # Never trust the declared size, never inflate past it either: a bomb stops here.
                raise self._corrupt(
                    entry,
                    "content runs past its declared size (the directory declares "
                    f"{entry.size:,} bytes); inflate stopped there",
                )
            if check_crc and fused is None:
                crc = crc32(data, crc)
            yield data
        if produced != entry.size:
            raise self._corrupt(
                entry, f"content is {produced:,} bytes but the directory declares {entry.size:,}"
            )
        if fused is not None:
            crc = fused[0]  # computed while inflating (`inflate.inflate_stream`)
        if check_crc and crc != entry.crc32:
            raise self._corrupt(
                entry,
                f"content has CRC-32 {crc:08x} but the directory declares {entry.crc32:08x}",
            )

    def small_content(self, entry: ZipEntry) -> bytes | None:
        """The whole content of an entry of at most `CHUNK` bytes in one read and one inflate
        step (a known data offset read here at once: this runs for nearly every entry), or None
        when it is not that simple (larger, unreadable, a stream not ending exactly at its
        declared size): `content_chunks` then says what is wrong. The caller checks CRC-32."""
        read = self._small(entry, with_crc=False)
        return None if read is None else read[0]

    def small_content_crc(self, entry: ZipEntry) -> tuple[bytes, int] | None:
        """`small_content` and the CRC-32 of that content, computed while inflating it (not
        compared with the declared one: the caller does)."""
        read = self._small(entry, with_crc=True)
        if read is None:
            return None
        assert read[1] is not None
        return read[0], read[1]

    def _small(self, entry: ZipEntry, with_crc: bool) -> tuple[bytes, int | None] | None:
        """`small_content`, with the CRC-32 (`inflate.whole_content`) when `with_crc`."""
        size, csize, method = entry.size, entry.compressed_size, entry.method
        if size > CHUNK or csize > CHUNK or entry.flags & 0x1 or method not in _READABLE:
            return None  # larger, encrypted, or another method
        raw: bytes | memoryview | None
        offset = self._data_offsets.get(entry.position)
        if offset is None:
            raw = self._raw_with_header(entry)
            if raw is None:
                return None
        else:
            raw = os.pread(self._fd, csize, offset)
            if len(raw) != csize:
                return None
        budget = self._budget  # `_spend`, without its frame once the budget is made
        if budget is None:
            try:
                self._spend(entry, size)
            except CorruptEntryError:
                return None  # `content_chunks` says so
        elif not budget.spend(size):
            return None
        return whole_content(method, raw, size, with_crc)

    def _raw_with_header(self, entry: ZipEntry) -> memoryview | None:
        """The entry's compressed bytes, read with its local header in one pread when the data
        offset is not known yet (three reads per entry were a tenth of a recompressed proof on
        a wheel of many small files); None when the local header is not plainly valid."""
        csize = entry.compressed_size
        guess = LOCAL_HEADER.size + len(entry.name_bytes) + _LOCAL_EXTRA_GUESS
        record = memoryview(self.pread(guess + csize, entry.header_offset))
        if len(record) < LOCAL_HEADER.size or record[:4] != SIG_LOCAL:
            return None
        fields = LOCAL_HEADER.unpack_from(record)
        start = LOCAL_HEADER.size + fields[9] + fields[10]
        if entry.header_offset + start + csize > self.file_size:
            return None
        if self._overlaps(entry, entry.header_offset + start):
            return None
        self._data_offsets[entry.position] = entry.header_offset + start
        if start + csize <= len(record):
            return record[start : start + csize]
        raw = memoryview(self.pread(csize, entry.header_offset + start))  # a long extra field
        return raw if len(raw) == csize else None

    def read_content(self, entry: ZipEntry, limit: int) -> bytes:
        """The whole content of a small entry; refuses entries declared larger than `limit`."""
        if entry.size > limit:
            raise CapError(
                f"{self.path}: entry {entry.name!r} is {entry.size:,} bytes, over the "
                f"{limit:,}-byte cap for reading whole"
            )
        kept = self._dist_info_files.get(entry.position)
        if kept is not None:
            return kept
        data = b"".join(self.content_chunks(entry))
        slash = entry.name.find("/")
        if slash > 0 and entry.name.endswith(".dist-info", 0, slash):
            # METADATA, WHEEL and RECORD are read by several checks: inflate each once.
            self._dist_info_files[entry.position] = data
        return data

    def head(self, entry: ZipEntry, size: int = 64) -> bytes:
        """The first `size` bytes of content (for content-magic sniffing); b"" if unreadable."""
        if not sniffable(entry):
            return b""
        try:
            offset = self.data_offset(entry)
        except CorruptEntryError:
            return b""  # overlapping: its content is not read (W611 says so)
        raw = self.pread(min(entry.compressed_size, SNIFF_INPUT), offset)
        head = sniff(entry, raw, size)
        deflated = entry.method == DEFLATED
        if deflated and len(head) < size and len(raw) == SNIFF_INPUT < entry.compressed_size:
            # Deflated content that starts past its first SNIFF_INPUT compressed bytes (a stream
            # led by empty stored blocks, which pip inflates all the same): inflate on for it.
            with contextlib.suppress(ArchiveError):  # a short read: the head as sniffed
                head = sniff_on(self.raw_chunks(entry, SNIFF_INPUT << 4), size)
        return head

    def _check_readable(self, entry: ZipEntry) -> None:
        if is_bomb(entry):
            raise self._corrupt(
                entry,
                f"declares {entry.size:,} bytes from {entry.compressed_size:,} compressed (a bomb, "
                "W612): not inflated",
            )
        if entry.is_encrypted:
            raise ArchiveError(f"{self.path}: entry {entry.name!r} is encrypted")
        if entry.method not in (STORED, DEFLATED):
            raise ArchiveError(
                f"{self.path}: entry {entry.name!r} uses {entry.method_name} compression, "
                "which k3diff does not read (stored and deflate only)"
            )

    def _inflated(self, entry: ZipEntry, chunk: int, crc: list[int] | None) -> Iterator[bytes]:
        """`inflate.inflate_stream` of the entry's compressed bytes, its problems as
        CorruptEntryError; `crc` receives the content's CRC-32 (None: not computed)."""
        steps = functools.partial(self.raw_chunks, entry, max(_INFLATE_INPUT, chunk // 2))
        try:
            yield from inflate_stream(steps, entry.compressed_size, chunk, crc)
        except StreamProblem as exc:
            raise self._corrupt(entry, str(exc)) from exc
