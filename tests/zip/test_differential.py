"""Property: whenever k3diff reads an archive without finding that its records disagree (W613),
it sees exactly the entries CPython's zipfile (and so pip) sees: names, header offsets, sizes,
CRC-32s, in directory order. Archives are built record by record and then mutated where readers
have parted ways before: the end record's count, ZIP64 records, offsets shifted by prepended
bytes, names with NUL and control characters, extra fields, comments and stray bytes."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from wheelkit import RawMember, central_record, end_record, raw_member, zip64_end

from k3diff.errors import K3diffError
from k3diff.wheel.codes import Code
from k3diff.wheel.soundness import soundness_findings
from k3diff.zip.archive import ZipArchive

NAME_CHARS = st.sampled_from(["a", "b", "/", ".", "\0", "\x7f", "\x85", "é", "\\"])
ZIP64_MODES = ["none", "consistent", "saturated", "count", "size", "offset", "locator", "orphan"]


@st.composite
def extras(draw: st.DrawFn, name: bytes) -> bytes:
    """A central extra field: none, a ZIP64 field, a Unicode path field, or raw bytes."""
    kind = draw(st.sampled_from(["none"] * 5 + ["zip64", "unicode", "raw"]))
    if kind == "zip64":
        body = draw(st.binary(min_size=0, max_size=24))
        return struct.pack("<HH", 1, len(body)) + body
    if kind == "unicode":
        crc = zlib.crc32(name) if draw(st.booleans()) else 0
        other = draw(st.text(NAME_CHARS, min_size=0, max_size=6)).encode()
        body = struct.pack("<BL", draw(st.sampled_from([1, 2])), crc) + other
        return struct.pack("<HH", 0x7075, len(body)) + body
    if kind == "raw":
        return draw(st.binary(min_size=0, max_size=12))
    return b""


@st.composite
def archives(draw: st.DrawFn) -> bytes:
    members: list[RawMember] = []
    for _ in range(draw(st.integers(1, 4))):
        name = draw(st.text(NAME_CHARS, min_size=1, max_size=8)).encode()
        content = draw(st.binary(max_size=40))
        member = raw_member(name, content, method=draw(st.sampled_from([0, 8])))
        member.flags = draw(st.sampled_from([0, 0x800]))
        member.central_extra = draw(extras(name))
        members.append(member)
    prefix = draw(st.binary(max_size=24))
    offsets_count_prefix = draw(st.booleans())
    body = bytearray(prefix)
    offsets = []
    for member in members:
        offsets.append(len(body) if offsets_count_prefix else len(body) - len(prefix))
        body += struct.pack(
            "<4s5H3L2H", b"PK\x03\x04", 20, member.flags, member.method, 0, 0x21,
            member.crc, len(member.stored), member.size, len(member.name), 0,
        )  # fmt: skip
        body += member.name + member.stored
    directory = b"".join(central_record(m, o) for m, o in zip(members, offsets, strict=True))
    directory_offset = len(body) if offsets_count_prefix else len(body) - len(prefix)
    body += directory
    count = max(len(members) + draw(st.sampled_from([0] * 6 + [-2, -1, 1, 2])), 0)
    size = max(len(directory) + draw(st.sampled_from([0] * 12 + [-46, 46, 1])), 0)
    classic = (count, size, directory_offset)
    mode = draw(st.sampled_from(ZIP64_MODES[:3] * 3 + ZIP64_MODES[3:]))
    if mode != "none":
        z64 = [count, size, directory_offset]
        if mode == "saturated":
            classic = (0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF)
        elif mode in ("count", "size", "offset"):
            z64[["count", "size", "offset"].index(mode)] += draw(st.integers(1, 50))
        record = zip64_end(z64[0], z64[1], z64[2], at=len(body))
        if mode == "locator":
            record = zip64_end(
                z64[0], z64[1], z64[2], at=len(body), points_at=draw(st.integers(0, len(body)))
            )
        if mode == "orphan":
            record = record[56:]  # the locator alone
        body += record
    count16 = min(max(classic[0], 0), 0xFFFF)
    comment = draw(st.sampled_from([b"", b"hello", b"PK\x05\x06", b"x" * 3]))
    tail = end_record(count16, max(classic[1], 0), classic[2], comment)
    if draw(st.integers(0, 5)) == 0:  # a comment length that lies
        tail = tail[:20] + struct.pack("<H", draw(st.integers(0, 40))) + tail[22:]
    data = bytearray(bytes(body) + tail)
    edits = st.tuples(st.floats(0, 1), st.binary(min_size=1, max_size=4))
    for where, value in draw(st.lists(edits, max_size=1)) if draw(st.integers(0, 3)) == 0 else []:
        at = int(where * (len(data) - 1))
        data[at : at + len(value)] = value
    return bytes(data)


def _zipfile_view(path: Path) -> list[tuple[str, int, int, int, int]] | None:
    try:
        with zipfile.ZipFile(path) as archive:
            return [
                (i.filename, i.header_offset, i.compress_size, i.file_size, i.CRC)
                for i in archive.infolist()
            ]
    except Exception:  # any refusal: pip cannot install it either
        return None


@settings(
    max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=archives())
def test_k3diff_sees_what_zipfile_sees_unless_it_says_otherwise(
    tmp_path: Path, data: bytes
) -> None:
    path = tmp_path / "a.zip"
    path.write_bytes(data)
    try:
        archive = ZipArchive.open(path)
    except K3diffError as exc:
        assert "\n" not in str(exc)
        event("refused")
        return
    with archive:
        disagree = any(f.code is Code.W613 for f in soundness_findings(archive, "x"))
        ours = [
            (e.name, e.header_offset, e.compressed_size, e.size, e.crc32) for e in archive.entries
        ]
    if disagree:
        event("W613")
        return
    event("compared")
    assert ours == _zipfile_view(path)
