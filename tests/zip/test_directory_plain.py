"""The plain directory's column-wise read (`directory._plain_directory`) against the record loop
it stands in for: whenever it answers, the loop gives the same entries and no disagreement;
anything it declines (a signature inside a name, extras, ZIP64 values, odd names, damage) is
left to the loop."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.errors import ArchiveError
from k3diff.zip import directory

_RECORD = struct.Struct("<4s6H3L5H2L")
_INFO_ZIP = struct.pack("<HHBL", 0x5455, 5, 3, 7) + struct.pack(
    "<HHBBLBL", 0x7875, 11, 1, 4, 1000, 4, 1000
)
_FILE_SIZE = 1 << 20

names = st.one_of(
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=12).map(str.encode),
    st.binary(max_size=12),
    st.sampled_from([b"PK\x01\x02", b"a/PK\x01\x02b", b"a\0b", b"\xe9t\xe9", b"", b"x" * 40]),
)
extras = st.one_of(
    st.just(b""),
    st.just(_INFO_ZIP),
    st.just(_INFO_ZIP[:13] + b"\0" * 11),
    st.binary(max_size=28),
    st.just(struct.pack("<HHQ", 1, 8, 5)),
)
values = st.one_of(
    st.integers(0, 5000), st.just(0xFFFFFFFF), st.integers(0, 0xFFFFFFFF), st.just(_FILE_SIZE)
)


@st.composite
def records(draw: st.DrawFn) -> bytes:
    name = draw(names)
    extra = draw(st.one_of(st.just(b""), extras))
    comment = draw(st.one_of(st.just(b""), st.binary(max_size=6), st.just(b"PK\x01\x02")))
    made = draw(st.sampled_from([0x031E, 0x0314, 0x0014, 0x0B3F]))
    needed = draw(st.sampled_from([20, 45, 63, 64, 0x0114]))
    flags = draw(st.sampled_from([0, 0x800, 1, 8]))
    fields = (
        b"PK\x01\x02",
        made,
        needed,
        flags,
        draw(st.sampled_from([0, 8, 12])),
        draw(st.integers(0, 0xFFFF)),
        draw(st.integers(0, 0xFFFF)),
        draw(st.integers(0, 0xFFFFFFFF)),
        draw(values),
        draw(values),
        len(name),
        len(extra),
        len(comment),
        0,
        draw(st.integers(0, 3)),
        draw(st.integers(0, 0xFFFFFFFF)),
        draw(values),
    )
    return _RECORD.pack(*fields) + name + extra + comment


@st.composite
def directories(draw: st.DrawFn) -> bytes:
    data = bytearray(b"".join(draw(st.lists(records(), max_size=8))))
    for _ in range(draw(st.integers(0, 2))):  # damage: flips, cuts, stray bytes
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        how = draw(st.sampled_from(["flip", "cut", "add"]))
        if how == "flip":
            data[at] ^= draw(st.integers(1, 255))
        elif how == "cut":
            del data[at:]
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=5))
    return bytes(data)


def _loop(data: bytes, shift: int) -> tuple[tuple[directory.ZipEntry, ...], list[str]] | str:
    disagreements: list[str] = []
    try:
        entries = directory._parse_central_directory(
            Path("a.zip"), data, shift, _FILE_SIZE, disagreements
        )
    except ArchiveError as exc:
        return str(exc)
    return entries, disagreements


@settings(max_examples=1500, deadline=None)
@given(directories(), st.sampled_from([0, 0, 17, -3]))
def test_the_plain_read_answers_only_as_the_record_loop_does(data: bytes, shift: int) -> None:
    read = directory._plain_directory(data, shift, _FILE_SIZE)
    if read is not None:
        plain, fixed = read
        assert _loop(data, shift) == (plain, [])
        assert all(type(entry) is directory.ZipEntry for entry in plain)
        assert fixed == _fixed_parts(data)


def _fixed_parts(data: bytes) -> bytes:
    """Each record's bytes after its signature up to its name, joined, by `struct` (what the
    local-header scan compares its headers with: `CentralDirectory.fixed`)."""
    parts, at = [], 0
    while at < len(data):
        fields = _RECORD.unpack_from(data, at)
        parts.append(data[at + 4 : at + _RECORD.size])
        at += _RECORD.size + fields[10] + fields[11] + fields[12]
    return b"".join(parts)


@pytest.mark.parametrize(("extra", "comment", "shift"), [(b"", b"", 0), (_INFO_ZIP, b"c", 5)])
def test_a_torch_shaped_directory_takes_the_plain_read(
    extra: bytes, comment: bytes, shift: int
) -> None:
    """Not vacuous: the shapes of real wheels (no extra; `zip`'s two) take the plain read."""
    made = []
    for number in range(50):
        name = f"torch/include/h{number}.h".encode()
        lengths = (len(name), len(extra), len(comment))
        fixed = (
            0x031E,
            20,
            0,
            8,
            0,
            0,
            number,
            9,
            30,
            *lengths,
            0,
            0,
            0o100644 << 16,
            100 * number,
        )
        made.append(_RECORD.pack(b"PK\x01\x02", *fixed) + name + extra + comment)
    data = b"".join(made)
    read = directory._plain_directory(data, shift, _FILE_SIZE)
    assert read is not None
    plain, parts = read
    assert _loop(data, shift) == (plain, []) and parts == _fixed_parts(data)
    assert [entry.name for entry in plain][:2] == ["torch/include/h0.h", "torch/include/h1.h"]
