"""Every entry's local header, read once per archive with one `pread` per run of neighbouring
headers: the layout checks (W609-W611) compare them with the directory, and the data offsets
they give let every later read of an entry's data (proofs, spans, sniffing) skip its header.

`scan_local_headers` reads them and judges them all at once: columns of the directory against
columns of the headers, compared as tuples in C (a wheel of 12,000 entries in a few
milliseconds, where one Python step per header cost several times that). When every header
plainly agrees with its directory record and the records tile the file, the layout check has
nothing left to read; otherwise it reads each header as before."""

from __future__ import annotations

import array
import itertools
import operator
import struct
import sys
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import repeat
from operator import add, and_, sub
from typing import NamedTuple, Protocol, cast

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


class HeaderScan(NamedTuple):
    """An archive's local headers, read and judged once."""

    headers: dict[int, bytes]
    """Each entry's local header and name, by position (`read_local_headers`)."""
    data_offsets: dict[int, int]
    """Where each entry's data starts, by position, for each header with its signature
    (`header_data_offsets`)."""
    plain_end: int | None
    """Where the last record ends when every local header plainly agrees with its directory
    record (signature, no encryption, no data descriptor, the same method, CRC-32, sizes and
    name bytes) and the records, by offset, follow each other from `first` without a gap or an
    overlap; None when any does not (the layout check then reads each)."""


_NOT_PLAIN_FLAGS = 0x9
"""Local flags that make a header not plain: encrypted (bit 0), data descriptor (bit 3)."""
_PLAIN_FLAG_BYTES = bytes(value for value in range(256) if not value & _NOT_PLAIN_FLAGS)
"""Low bytes of the local flags a plain header may carry."""
_SIZES = struct.Struct("<LLLH")
"""CRC-32, compressed size, size and name length, as a local header stores them."""
_METHOD = struct.Struct("<H")
_SIGNATURE = slice(0, 4)
_FLAGS_LOW = 6
_METHOD_FIELD = slice(8, 10)
_SIZES_FIELD = slice(14, 28)
_EXTRA_FIELD = slice(28, 30)
_NAME = slice(LOCAL_HEADER.size, None)
_cut = cast("Callable[[bytes, slice], bytes]", operator.getitem)
"""`bytes[slice]` as a function for `map` (typed: `operator.getitem` is overloaded)."""
_COLUMN = [operator.itemgetter(index) for index in range(len(ZipEntry._fields))]


def scan_local_headers(archive: _Readable, ordered: Sequence[ZipEntry], first: int) -> HeaderScan:
    """Every local header of `ordered` (the entries by header offset), read in windows of
    neighbours and judged all at once; `first`: where the first record should start (the
    offset shift)."""
    if not ordered:
        return HeaderScan({}, {}, first)
    offsets, names = list(map(_COLUMN[7], ordered)), list(map(_COLUMN[10], ordered))
    fixed = LOCAL_HEADER.size
    name_ends = list(map(add, offsets, map(len, names)))
    pieces: list[bytes] = []
    count, index = len(ordered), 0
    while index < count:  # one read per window of neighbouring headers
        start = offsets[index]
        following = bisect_left(offsets, start + WINDOW, index + 1)
        window = archive.pread(max(name_ends[index:following]) + fixed - start, start)
        cuts = map(
            slice,
            map(sub, offsets[index:following], repeat(start)),
            map(sub, name_ends[index:following], repeat(start - fixed)),
        )
        pieces += map(_cut, repeat(window), cuts)
        index = following
    headers = dict(zip(map(_COLUMN[1], ordered), pieces, strict=True))
    plain = (
        sum(map(len, pieces)) == sum(name_ends) - sum(offsets) + fixed * count  # none cut short
        and _joined(pieces, _SIGNATURE) == SIG_LOCAL * count
        and not bytes(map(operator.getitem, pieces, repeat(_FLAGS_LOW))).translate(
            None, _PLAIN_FLAG_BYTES
        )
        and not any(map(and_, map(_COLUMN[3], ordered), repeat(0x1)))  # directory: encrypted
        and _joined(pieces, _METHOD_FIELD) == _packed(_METHOD, map(_COLUMN[2], ordered))
        and _joined(pieces, _SIZES_FIELD)
        == _packed(
            _SIZES,
            map(_COLUMN[4], ordered),  # CRC-32
            map(_COLUMN[5], ordered),  # compressed size
            map(_COLUMN[6], ordered),  # size
            map(len, names),
        )
        and _joined(pieces, _NAME) == b"".join(names)
    )
    if not plain:
        return HeaderScan(headers, _data_offsets(ordered, headers), None)
    extra = array.array("H", _joined(pieces, _EXTRA_FIELD))
    if sys.byteorder == "big":
        extra.byteswap()
    starts = list(map(add, name_ends, map(add, extra, repeat(fixed))))
    found = dict(zip(map(_COLUMN[1], ordered), starts, strict=True))
    record_ends = list(map(add, starts, map(_COLUMN[5], ordered)))
    if offsets[0] != first or record_ends[:-1] != offsets[1:]:
        return HeaderScan(headers, found, None)  # a gap or an overlap: W610 / W611
    return HeaderScan(headers, found, record_ends[-1])


def _data_offsets(ordered: Sequence[ZipEntry], headers: dict[int, bytes]) -> dict[int, int]:
    return {entry.position: offset for entry, offset in header_data_offsets(ordered, headers)}


def _joined(pieces: list[bytes], field: slice) -> bytes:
    return b"".join(map(_cut, pieces, repeat(field)))


def _packed(layout: struct.Struct, *columns: Iterable[int]) -> bytes | None:
    """The directory's values packed as a local header stores them; None when one does not
    fit (a ZIP64 size: never plain)."""
    try:
        return b"".join(map(layout.pack, *columns))
    except struct.error:
        return None


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
