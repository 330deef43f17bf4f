"""`columns.fixed_columns` (every record's field at once, from strided slices) reads what
`struct` reads of each record."""

from __future__ import annotations

import struct

from hypothesis import given
from hypothesis import strategies as st

from k3diff.zip.columns import fixed_columns

_FORMATS = {1: "<B", 2: "<H", 4: "<L"}


@st.composite
def layouts(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]], bytes]:
    """A record size, fields anywhere in it (overlapping or not), and records of it."""
    stride = draw(st.integers(1, 48))
    widths = [width for width in (1, 2, 4) if width <= stride]
    fields = draw(
        st.lists(
            st.sampled_from(widths).flatmap(
                lambda width: st.tuples(st.integers(0, stride - width), st.just(width))
            ),
            max_size=8,
        )
    )
    records = draw(st.integers(0, 40))
    return stride, fields, draw(st.binary(min_size=stride * records, max_size=stride * records))


@given(layouts())
def test_each_column_is_what_struct_reads_of_each_record(
    layout: tuple[int, list[tuple[int, int]], bytes],
) -> None:
    stride, fields, blob = layout
    expected = [
        [
            struct.unpack_from(_FORMATS[width], blob, start + offset)[0]
            for start in range(0, len(blob), stride)
        ]
        for offset, width in fields
    ]
    assert fixed_columns(blob, stride, fields) == expected


def test_a_central_record_s_fields() -> None:
    """The widest values of each width, little-endian."""
    blob = bytes([0x03, 0xFF]) + (0xFFFF).to_bytes(2, "little") + (0x89ABCDEF).to_bytes(4, "little")
    assert fixed_columns(blob * 3, 8, [(0, 1), (1, 1), (2, 2), (4, 4)]) == [
        [3, 3, 3],
        [255, 255, 255],
        [0xFFFF] * 3,
        [0x89ABCDEF] * 3,
    ]
