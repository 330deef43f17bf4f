"""The all-at-once local-header scan (`localheaders.scan_local_headers`) reaches the verdict of
reading each header: the same header bytes, the same data offsets kept, the same layout findings
(W607-W612), record ends and inflate budget, on honest archives and on damaged or hostile ones
(headers that disagree, data descriptors, gaps, overlaps, prepended and appended bytes)."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest
import wheelkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k3diff.errors import K3diffError
from k3diff.wheel import layout
from k3diff.zip.archive import ZipArchive
from k3diff.zip.bounds import InflateBudget
from k3diff.zip.localheaders import header_data_offsets, read_local_headers

FILES = {f"pkg/m{n:02d}.py": b"value = %d\n" % n * (n + 1) for n in range(12)}


def _per_entry_verdict(path: Path) -> tuple[object, ...]:
    """What reading each header one at a time gives (the code before the scan)."""
    with ZipArchive.open(path) as archive:
        headers = read_local_headers(archive)
        ends: dict[int, int] = {}
        starts = archive.by_offset()
        for current, following in zip(starts, [*starts[1:], None], strict=True):
            end = archive.directory_offset if following is None else following.header_offset
            if end > current.header_offset:
                ends[current.position] = end
        offsets = {}
        for entry, offset in header_data_offsets(archive.entries, headers):
            record_end = ends.get(entry.position)
            data_end = offset + entry.compressed_size
            if data_end <= archive.file_size and record_end is not None and data_end <= record_end:
                offsets[entry.position] = offset
        scan = archive.header_scan()
        archive._header_scan = scan._replace(plain_end=None)  # the per-entry layout check
        findings = list(layout.layout_findings(archive, "base"))
        budget = InflateBudget.for_entries(archive.entries, lambda e: ends.get(e.position)).limit
        return headers, ends, offsets, findings, budget


def _scanned_verdict(path: Path) -> tuple[object, ...]:
    with ZipArchive.open(path) as archive:
        findings = list(layout.layout_findings(archive, "base"))
        ends = archive.record_ends()
        budget = InflateBudget.for_ends(archive.entries, ends).limit
        scan = archive.header_scan()
        return scan.headers, ends, dict(archive._data_offsets), findings, budget


def _same_verdict(path: Path) -> bool:
    """True when the scan found every header plain (its quick path was taken)."""
    try:
        expected = _per_entry_verdict(path)
    except K3diffError:
        with pytest.raises(K3diffError):
            _scanned_verdict(path)
        return False
    assert _scanned_verdict(path) == expected
    with ZipArchive.open(path) as archive:
        return archive.header_scan().plain_end is not None


def _wheel(directory: Path) -> Path:
    return wheelkit.make_wheel(directory, "pkg", "1.0", FILES, filename="base.whl")


def test_honest_wheel_takes_the_quick_path(tmp_path: Path) -> None:
    assert _same_verdict(_wheel(tmp_path))


def test_data_descriptors_take_the_per_entry_path(tmp_path: Path) -> None:
    stream = io.BytesIO()
    with zipfile.ZipFile(_Unseekable(stream), "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in FILES.items():
            archive.writestr(name, data)
    path = tmp_path / "streamed.zip"
    path.write_bytes(stream.getvalue())
    assert not _same_verdict(path)


@pytest.mark.parametrize("where", ["prepend", "append", "gap"])
def test_bytes_outside_records_are_found_alike(tmp_path: Path, where: str) -> None:
    data = _wheel(tmp_path).read_bytes()
    second = data.index(b"PK\x03\x04", 1)  # the second local record
    changed = {
        "prepend": b"#!stub\n" + data,  # offsets left uncorrected: read shifted (W610)
        "append": data + b"trailing",
        "gap": _shift_directory(data[:second] + b"\0" + data[second:], second),
    }[where]
    path = tmp_path / f"{where}.whl"
    path.write_bytes(changed)
    plain = _same_verdict(path)
    assert plain is (where != "gap")  # a gap between records: the per-entry check says where
    assert _scanned_verdict(path)[3]  # W610 each time


def _shift_directory(data: bytes, at: int) -> bytes:
    """Add one to every central-directory offset at or after `at`, and to the end record's."""
    end = data.rindex(b"PK\x05\x06")
    size, offset = struct.unpack_from("<LL", data, end + 12)
    out = bytearray(data)
    struct.pack_into("<L", out, end + 16, offset + 1)
    position = offset + 1
    while position < offset + 1 + size:
        name_len, extra_len, comment_len = struct.unpack_from("<3H", out, position + 28)
        (header,) = struct.unpack_from("<L", out, position + 42)
        if header >= at:
            struct.pack_into("<L", out, position + 42, header + 1)
        position += 46 + name_len + extra_len + comment_len
    return bytes(out)


class _Unseekable(io.RawIOBase):
    """A write-only stream zipfile cannot seek in: it writes data descriptors."""

    def __init__(self, sink: io.BytesIO) -> None:
        self.sink = sink

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        return self.sink.write(data)

    def flush(self) -> None:
        pass


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    edits=st.lists(
        st.tuples(st.floats(min_value=0, max_value=1), st.binary(min_size=1, max_size=4)),
        min_size=1,
        max_size=4,
    ),
    cut=st.one_of(st.none(), st.floats(min_value=0.5, max_value=1)),
)
def test_damaged_archives_reach_the_per_entry_verdict(
    tmp_path: Path, edits: list[tuple[float, bytes]], cut: float | None
) -> None:
    data = bytearray(_wheel(tmp_path).read_bytes())
    headers = [i for i in range(len(data)) if data[i : i + 4] == b"PK\x03\x04"]
    for where, replacement in edits:  # into a local header, where the scan must notice
        at = headers[int(where * (len(headers) - 1))] + int(where * 1000) % 40
        data[at : at + len(replacement)] = replacement
    if cut is not None:
        data = data[: int(cut * len(data))]
    path = tmp_path / "damaged.whl"
    path.write_bytes(bytes(data))
    _same_verdict(path)
