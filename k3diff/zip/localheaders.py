"""Every entry's local header, read once per archive with one `pread` per run of neighbouring
headers: the layout checks (W609-W611) compare them with the directory, and the data offsets
they give let every later read of an entry's data (proofs, spans, sniffing) skip its header.

`scan_local_headers` reads them and judges them all at once: columns of the directory against
columns of the headers, compared in C: the fixed parts of the headers, joined, are records of
one size, so each field is a strided slice of the joined bytes, compared with the directory's
values packed by `array` (no slice, `struct` call or join per entry and field; the headers
themselves are joined with their names only if someone asks). When every header
plainly agrees with its directory record and the records tile the file, the layout check has
nothing left to read; otherwise it reads each header as before."""

from __future__ import annotations

import array
import itertools
import operator
import sys
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import repeat
from operator import add, and_, sub
from typing import NamedTuple, Protocol, cast

from k3diff.zip.directory import CENTRAL_FIXED, LOCAL_HEADER, SIG_LOCAL, ZipEntry

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

    headers: Mapping[int, bytes]
    """Each entry's local header and name, by position (`read_local_headers`); joined on first
    use when every header is plain."""
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
_FLAGS_LOW = 6
_METHOD_AT = 8
_CRC_AT = 14
_COMPRESSED_AT = 18
_SIZE_AT = 22
_NAME_LENGTH_AT = 26
"""Where each field starts in a local header (`LOCAL_HEADER`, little-endian)."""
_cut = cast("Callable[[bytes, slice], bytes]", operator.getitem)
"""`bytes[slice]` as a function for `map` (typed: `operator.getitem` is overloaded)."""
_COLUMN = [operator.itemgetter(index) for index in range(len(ZipEntry._fields))]


def scan_local_headers(
    archive: _Readable, ordered: Sequence[ZipEntry], first: int, central: bytes | None = None
) -> HeaderScan:
    """Every local header of `ordered` (the entries by header offset), read in windows of
    neighbours and judged all at once; `first`: where the first record should start (the
    offset shift); `central`: the central records' fixed parts, joined in the order of
    `ordered` (`CentralDirectory.fixed`, when the directory lists the entries by offset).

    Only each header's fixed part is cut from the window (its name is tested in place with
    `startswith`); the fixed parts, joined, are records of one size, so every field is a
    strided slice of the joined bytes (`blob[k::30]`, one C call for every entry), compared
    with the directory's values packed by `array`. When any header is not plain, the headers
    are read again whole (`read_local_headers`) for the layout check to judge one by one."""
    if not ordered:
        return HeaderScan({}, {}, first)
    offsets, names = list(map(_COLUMN[7], ordered)), list(map(_COLUMN[10], ordered))
    fixed = LOCAL_HEADER.size
    name_ends = list(map(add, offsets, map(len, names)))
    heads: list[bytes] = []  # each header's fixed part (shorter at the file's end)
    named = True  # every name follows its fixed part, as the directory spells it
    count, index = len(ordered), 0
    while index < count:  # one read per window of neighbouring headers
        start = offsets[index]
        following = bisect_left(offsets, start + WINDOW, index + 1)
        window = archive.pread(max(name_ends[index:following]) + fixed - start, start)
        head_starts = list(map(sub, offsets[index:following], repeat(start)))
        name_starts = list(map(add, head_starts, repeat(fixed)))
        heads += map(_cut, repeat(window), map(slice, head_starts, name_starts))
        named = named and all(map(window.startswith, names[index:following], name_starts))
        index = following
    blob = b"".join(heads)
    if not (named and len(blob) == fixed * count and _plain(blob, ordered, names, central)):
        headers = read_local_headers(archive, ordered)  # rare: judged header by header
        return HeaderScan(headers, _data_offsets(ordered, headers), None)
    positions = list(map(_COLUMN[1], ordered))
    joined = _JoinedHeaders(positions, heads, names)
    extra = array.array("H", blob)
    if sys.byteorder == "big":
        extra.byteswap()
    starts = list(map(add, name_ends, map(add, extra[14 :: fixed // 2], repeat(fixed))))
    found = dict(zip(positions, starts, strict=True))
    record_ends = list(map(add, starts, map(_COLUMN[5], ordered)))
    if offsets[0] != first or record_ends[:-1] != offsets[1:]:
        return HeaderScan(joined, found, None)  # a gap or an overlap: W610 / W611
    return HeaderScan(joined, found, record_ends[-1])


class _JoinedHeaders(Mapping[int, bytes]):
    """Each header (fixed part and name) by position, joined only when first asked for: the
    layout check reads them one by one only when a header is not plain or the records do not
    tile the file, so on nearly every wheel no one does."""

    def __init__(self, positions: list[int], heads: list[bytes], names: list[bytes]) -> None:
        self._parts = (positions, heads, names)
        self._joined: dict[int, bytes] | None = None

    def _headers(self) -> dict[int, bytes]:
        if self._joined is None:
            positions, heads, names = self._parts
            self._joined = dict(zip(positions, map(add, heads, names), strict=True))
        return self._joined

    def __getitem__(self, position: int) -> bytes:
        return self._headers()[position]

    def __iter__(self) -> Iterator[int]:
        return iter(self._headers())

    def __len__(self) -> int:
        return len(self._parts[0])


def _plain(
    blob: bytes, ordered: Sequence[ZipEntry], names: list[bytes], central: bytes | None = None
) -> bool:
    """Whether every fixed part of `blob` (whole local headers, one after another) plainly
    agrees with its directory record: signature, no encryption, no data descriptor, the same
    method, CRC-32, sizes and name length. Each field is compared one byte column at a time
    (`blob[k::30]` is byte k of every header) with the directory's values, little-endian:
    with the records' own bytes when `central` holds them in this order (the same fields,
    little-endian too), else packed from `ordered`."""
    count, stride = len(ordered), LOCAL_HEADER.size
    if any(blob[at::stride] != bytes((byte,)) * count for at, byte in enumerate(SIG_LOCAL)):
        return False
    if blob[_FLAGS_LOW::stride].translate(None, _PLAIN_FLAG_BYTES):
        return False  # encrypted or with a data descriptor
    if central is not None and len(central) == CENTRAL_FIXED * count:
        return _same_as_central(blob, central)
    if any(map(and_, map(_COLUMN[3], ordered), repeat(0x1))):  # directory: encrypted
        return False
    columns = (
        (_METHOD_AT, "H", map(_COLUMN[2], ordered)),
        (_CRC_AT, "L", map(_COLUMN[4], ordered)),
        (_COMPRESSED_AT, "L", map(_COLUMN[5], ordered)),
        (_SIZE_AT, "L", map(_COLUMN[6], ordered)),
        (_NAME_LENGTH_AT, "H", map(len, names)),
    )
    return all(_same_column(blob, at, code, values) for at, code, values in columns)


def _same_as_central(blob: bytes, central: bytes) -> bool:
    """`_plain`'s directory tests against the central records' bytes, a byte column at a time:
    no encryption flag, then the method (the record's bytes 6-7 after its signature, the
    header's 8-9) and the CRC-32, sizes and name length (12-25 there, 14-27 here)."""
    if central[_CENTRAL_FLAGS_LOW::CENTRAL_FIXED].translate(None, _UNENCRYPTED_FLAG_BYTES):
        return False  # the directory says encrypted
    stride = LOCAL_HEADER.size
    return all(
        blob[local + k :: stride] == central[record + k :: CENTRAL_FIXED]
        for local, record, width in _CENTRAL_TWINS
        for k in range(width)
    )


_CENTRAL_FLAGS_LOW = 4
"""Where a central record's flags start, after its signature."""
_UNENCRYPTED_FLAG_BYTES = bytes(value for value in range(256) if not value & 0x1)
"""Low bytes of the flags of an entry the directory does not call encrypted."""
_CENTRAL_TWINS = ((_METHOD_AT, 6, 2), (_CRC_AT, 12, 14))
"""(where in a local header, where in a central record after its signature, bytes): the
method, then CRC-32, compressed size, size and name length, in the same order in both."""


def _same_column(blob: bytes, at: int, code: str, values: Iterable[int]) -> bool:
    """Whether the little-endian field at `at` of every header in `blob` holds `values`
    (`code`: "H", two bytes, or "L", four; a value that does not fit never matches)."""
    try:
        packed = _unsigned(code, values)
    except OverflowError:  # a ZIP64 size: never plain
        return False
    width = packed.itemsize
    if sys.byteorder == "big":
        packed.byteswap()
    expected = packed.tobytes()
    stride = LOCAL_HEADER.size
    return all(blob[at + k :: stride] == expected[k::width] for k in range(width))


def _unsigned(code: str, values: Iterable[int]) -> array.array[int]:
    """`values` as an array of 2-byte ("H") or 4-byte ("L") unsigned integers, whatever the
    platform's sizes of its C types ("L" is 8 bytes on 64-bit Linux)."""
    width = 2 if code == "H" else 4
    for candidate in ("H", "I", "L"):
        if array.array(candidate).itemsize == width:
            return array.array(candidate, values)
    raise OverflowError(code)  # no C type of that width: judged per entry


def _data_offsets(ordered: Sequence[ZipEntry], headers: Mapping[int, bytes]) -> dict[int, int]:
    return {entry.position: offset for entry, offset in header_data_offsets(ordered, headers)}


def header_data_offsets(
    entries: Sequence[ZipEntry], headers: Mapping[int, bytes]
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
