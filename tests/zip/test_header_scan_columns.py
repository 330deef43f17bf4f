"""The column-wise local-header scan (`localheaders.scan_local_headers`: fixed parts joined and
compared as strided byte columns, names tested in place) against the scan it replaced, which
joined every field of every header and packed the directory's values with `struct`: the same
headers, data offsets and plain end on honest, streamed, ZIP64-sized, stub-prefixed and
randomly damaged archives."""

from __future__ import annotations

import array
import io
import operator
import struct
import sys
import zipfile
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import add, and_
from pathlib import Path

import pytest
import wheelkit
from hypothesis import given
from wheels.damage_support import Edit, damage_edits, damage_settings, write_damaged

from k3diff.errors import K3diffError
from k3diff.zip import localheaders
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import LOCAL_HEADER, SIG_LOCAL, ZipEntry
from k3diff.zip.localheaders import WINDOW, HeaderScan, header_data_offsets, scan_local_headers

FILES = {f"pkg/m{n:02d}.py": b"value = %d\n" % n * (n + 1) for n in range(40)}
_COLUMN = [operator.itemgetter(index) for index in range(len(ZipEntry._fields))]
_FLAG_BYTES = bytes(value for value in range(256) if not value & 0x9)


def _joined(pieces: list[bytes], field: slice) -> bytes:
    return b"".join(piece[field] for piece in pieces)


def _packed(layout: struct.Struct, *columns: Iterable[int]) -> bytes | None:
    try:
        return b"".join(map(layout.pack, *columns))
    except struct.error:
        return None


def _reference(archive: ZipArchive, ordered: Sequence[ZipEntry], first: int) -> HeaderScan:
    """The scan as it was before the column-wise one (commit 8b6b478)."""
    if not ordered:
        return HeaderScan({}, {}, first)
    offsets, names = list(map(_COLUMN[7], ordered)), list(map(_COLUMN[10], ordered))
    fixed = LOCAL_HEADER.size
    name_ends = list(map(add, offsets, map(len, names)))
    pieces: list[bytes] = []
    count, index = len(ordered), 0
    while index < count:
        start = offsets[index]
        following = bisect_left(offsets, start + WINDOW, index + 1)
        window = archive.pread(max(name_ends[index:following]) + fixed - start, start)
        for offset, end in zip(offsets[index:following], name_ends[index:following], strict=True):
            pieces.append(window[offset - start : end + fixed - start])
        index = following
    headers = dict(zip(map(_COLUMN[1], ordered), pieces, strict=True))
    plain = (
        sum(map(len, pieces)) == sum(name_ends) - sum(offsets) + fixed * count
        and _joined(pieces, slice(0, 4)) == SIG_LOCAL * count
        and not bytes(piece[6] for piece in pieces).translate(None, _FLAG_BYTES)
        and not any(map(and_, map(_COLUMN[3], ordered), repeat(0x1)))
        and _joined(pieces, slice(8, 10)) == _packed(struct.Struct("<H"), map(_COLUMN[2], ordered))
        and _joined(pieces, slice(14, 28))
        == _packed(
            struct.Struct("<LLLH"),
            map(_COLUMN[4], ordered),
            map(_COLUMN[5], ordered),
            map(_COLUMN[6], ordered),
            map(len, names),
        )
        and _joined(pieces, slice(fixed, None)) == b"".join(names)
    )
    offsets_found = {entry.position: at for entry, at in header_data_offsets(ordered, headers)}
    if not plain:
        return HeaderScan(headers, offsets_found, None)
    extra = array.array("H", _joined(pieces, slice(28, 30)))
    if sys.byteorder == "big":
        extra.byteswap()
    starts = list(map(add, name_ends, map(add, extra, repeat(fixed))))
    found = dict(zip(map(_COLUMN[1], ordered), starts, strict=True))
    record_ends = list(map(add, starts, map(_COLUMN[5], ordered)))
    if offsets[0] != first or record_ends[:-1] != offsets[1:]:
        return HeaderScan(headers, found, None)
    return HeaderScan(headers, found, record_ends[-1])


def _both(path: Path) -> tuple[tuple[object, ...], tuple[object, ...]] | None:
    """(column-wise, reference) scans of `path`, as plain values; None when it cannot open.
    The column-wise scan is made twice, alike: with the directory's values packed, and as the
    archive makes it (against the central records' own bytes, when the directory is plain and
    lists the entries by offset)."""
    try:
        archive = ZipArchive.open(path)
    except K3diffError:
        return None
    with archive:
        ordered = archive.by_offset()
        scans = (
            scan_local_headers(archive, ordered, archive.offset_shift),
            archive.header_scan(),
            _reference(archive, ordered, archive.offset_shift),
        )
    fast, own, slow = ((dict(scan.headers), scan.data_offsets, scan.plain_end) for scan in scans)
    assert own == fast
    return fast, slow


def _same(path: Path) -> bool:
    """The two scans agree; True when the quick (plain) verdict was reached."""
    both = _both(path)
    if both is None:
        return False
    fast, slow = both
    assert fast == slow
    return fast[2] is not None


def _wheel(directory: Path) -> Path:
    return wheelkit.make_wheel(directory, "pkg", "1.0", FILES, filename="base.whl")


def test_honest_wheel_is_plain_alike(tmp_path: Path) -> None:
    assert _same(_wheel(tmp_path))
    with ZipArchive.open(_wheel(tmp_path)) as archive:  # judged against the records' bytes
        assert archive._central_fixed is not None and tuple(archive.by_offset()) == archive.entries


@pytest.mark.parametrize(("at", "mask"), [(4, 0x01), (6, 0x08), (12, 0x01), (20, 0x01), (24, 1)])
def test_a_central_record_unlike_its_header_alike(tmp_path: Path, at: int, mask: int) -> None:
    """One central record's flags (encrypted), method, CRC-32, size or name length changed
    (bytes `at` after its signature): never plain, and judged alike."""
    data = bytearray(_wheel(tmp_path).read_bytes())
    record = data.rindex(b"PK\x01\x02") + 4
    data[record + at] ^= mask
    path = tmp_path / f"central{at}.whl"
    path.write_bytes(bytes(data))
    assert not _same(path)


def test_streamed_zip_with_data_descriptors_alike(tmp_path: Path) -> None:
    stream = io.BytesIO()
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in FILES.items():
            with archive.open(name, "w", force_zip64=True) as member:
                member.write(data)
    path = tmp_path / "streamed.zip"
    path.write_bytes(stream.getvalue())
    _same(path)


@pytest.mark.parametrize("stub", [b"", b"#!/bin/sh\nexit 0\n"])
def test_prefixed_archives_alike(tmp_path: Path, stub: bytes) -> None:
    path = tmp_path / "stub.whl"
    path.write_bytes(stub + _wheel(tmp_path).read_bytes())
    _same(path)


@pytest.mark.parametrize("field", [6, 8, 14, 18, 22, 26, 28, 31])
def test_each_field_changed_alike(tmp_path: Path, field: int) -> None:
    """One byte changed in the same field of every local header (flags, method, CRC-32, sizes,
    name length, extra length, the name): never plain, and judged alike."""
    data = bytearray(_wheel(tmp_path).read_bytes())
    directory = data.rindex(b"PK\x01\x02")  # the last directory record: headers lie before
    at = data.find(SIG_LOCAL)
    while 0 <= at < directory:
        data[at + field] ^= 0x01
        at = data.find(SIG_LOCAL, at + 4)
    path = tmp_path / f"field{field}.whl"
    path.write_bytes(bytes(data))
    assert not _same(path) or field == 28  # an extra length changed only moves the data


@damage_settings(max_examples=150)
@given(edits=damage_edits())
def test_damaged_wheels_alike(tmp_path: Path, edits: list[Edit]) -> None:
    _same(write_damaged(_wheel(tmp_path), tmp_path / "damaged.whl", edits))


def test_a_value_past_the_field_is_never_plain() -> None:
    """A ZIP64 size (the directory's value does not fit the local field) never matches."""
    header = LOCAL_HEADER.pack(SIG_LOCAL, 20, 0, 8, 0, 0, 0, 0xFFFFFFFF, 0xFFFFFFFF, 1, 0)
    assert localheaders._same_column(header, 18, "L", [0xFFFFFFFF])
    assert not localheaders._same_column(header, 18, "L", [1 << 32])
    assert not localheaders._same_column(header, 8, "H", [1 << 16])
