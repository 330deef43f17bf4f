"""Every entry's local header, read once per archive with one `pread` per run of neighbouring
headers: the layout checks (W609-W611) compare them with the directory, and the data offsets
they give let every later read of an entry's data (proofs, spans, sniffing) skip its header."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterator, Sequence
from typing import Protocol

from k3diff.zip.directory import LOCAL_HEADER, SIG_LOCAL, ZipEntry

HEADER_OFFSET = operator.itemgetter(7)
"""`ZipEntry.header_offset` as a sort key (field 7 of the named tuple: no Python call per entry)."""

WINDOW = 64 << 10
"""Most bytes read at once to fetch the local headers of neighbouring entries. A wheel of many
small files has thousands of headers a few KiB apart; each read releases the GIL, and while
comparisons run on the pool every release is a wait to get it back (a pread per header cost
24 us instead of 1 us on torch's CPU wheel, 12k entries)."""


class _Readable(Protocol):
    entries: tuple[ZipEntry, ...]

    def pread(self, size: int, offset: int) -> bytes: ...


def read_local_headers(
    archive: _Readable, ordered: Sequence[ZipEntry] | None = None
) -> dict[int, bytes]:
    """Each entry's local header and name (as many bytes as the directory's name needs), by
    position: what `pread` would return at its header offset, fetched with one read per run of
    neighbouring headers instead of one read per entry. `ordered`: the archive's entries by
    header offset, when already sorted."""
    if ordered is None:
        ordered = sorted(archive.entries, key=HEADER_OFFSET)
    headers: dict[int, bytes] = {}
    window = b""
    window_start = window_end = 0  # the range asked for; `window` is shorter at the file's end
    fixed = LOCAL_HEADER.size
    for index, entry in enumerate(ordered):
        start = entry.header_offset
        end = start + fixed + len(entry.name_bytes)
        if start < window_start or end > window_end:
            window_start, window_end = start, end
            for following in itertools.islice(ordered, index + 1, None):
                following_end = following.header_offset + fixed + len(following.name_bytes)
                if following_end - start > WINDOW:
                    break
                window_end = max(window_end, following_end)
            window = archive.pread(window_end - window_start, window_start)
        headers[entry.position] = window[start - window_start : end - window_start]
    return headers


def header_data_offsets(
    entries: Sequence[ZipEntry], headers: dict[int, bytes]
) -> Iterator[tuple[ZipEntry, int]]:
    """(entry, where its data starts) for each entry whose local header is there (its
    signature right); the caller keeps only offsets whose data fits its record."""
    unpack_from = LOCAL_HEADER.unpack_from
    fixed = LOCAL_HEADER.size
    for entry in entries:
        header = headers.get(entry.position, b"")
        if len(header) < fixed or header[:4] != SIG_LOCAL:
            continue
        fields = unpack_from(header)
        yield entry, entry.header_offset + fixed + fields[9] + fields[10]
