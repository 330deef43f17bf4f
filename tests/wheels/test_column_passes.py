"""Passes over every pair or row done by C-level maps say what the per-item code they replace
said: `unchanged_rows` (kept here as it was), `pair_weights`."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel.record import RecordLine
from k3diff.wheels.pairing import EntryPair, pair_weights
from k3diff.wheels.recordplan import Records, unchanged_rows
from k3diff.zip.directory import ZipEntry

_PATHS = st.sampled_from(["a.py", "b.h", "c/d.so", "e", "f.dist-info/RECORD"])
_HASHES = st.sampled_from([None, "sha256=x", "sha256=y", "sha512=x", ""])
rows = st.builds(RecordLine, st.none(), st.none(), _HASHES)
records = st.one_of(st.none(), st.dictionaries(_PATHS, rows, max_size=5))


def _unchanged_rows_per_row(records: Records) -> frozenset[str]:
    """`unchanged_rows` as it was, one row at a time."""
    base_record, patch_record = records
    if patch_record is None:
        return frozenset()
    base_get = (base_record or {}).get
    return frozenset(
        path
        for path, line in patch_record.items()
        if line.hash is None
        or ((base_line := base_get(path)) is not None and base_line.hash == line.hash)
    )


@settings(max_examples=500, deadline=None)
@given(records, records)
def test_unchanged_rows_as_row_by_row(
    base: dict[str, RecordLine] | None, patch: dict[str, RecordLine] | None
) -> None:
    assert unchanged_rows((base, patch)) == _unchanged_rows_per_row((base, patch))


entries = st.builds(
    lambda name, size: ZipEntry(name, 0, 8, 0, 0, size, size, 0, 0, 3, name.encode()),
    _PATHS,
    st.integers(0, 1 << 40),
)


@given(st.lists(st.builds(EntryPair, st.none() | entries, st.none() | entries), max_size=8))
def test_pair_weights_add_both_sides(pairs: list[EntryPair]) -> None:
    expected = [
        (0 if pair.base is None else pair.base.compressed_size)
        + (0 if pair.patch is None else pair.patch.compressed_size)
        for pair in pairs
    ]
    assert pair_weights(pairs) == expected
