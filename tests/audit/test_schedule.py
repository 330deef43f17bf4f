"""The audit's own batching (`audit.schedule`) cuts exactly the batches the shared
`largest_first_batches` cuts, in the same order, ties included, and splits them where the old
schedule did: at the first batch whose largest entry fits one chunk."""

from __future__ import annotations

import operator

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.audit.schedule import batches, largest_first, to_verify
from k3diff.batches import BATCH_BYTES, BATCH_ITEMS, largest_first_batches
from k3diff.zip.archive import CHUNK
from k3diff.zip.directory import ZipEntry

_SIZES = st.one_of(
    st.integers(0, 4096),
    st.sampled_from([0, 1, CHUNK - 1, CHUNK, CHUNK + 1, BATCH_BYTES - 4096, BATCH_BYTES]),
    st.integers(0, 3 * BATCH_BYTES),
)


def _entry(index: int, compressed: int, name: str | None = None) -> ZipEntry:
    name = name if name is not None else f"pkg/m{index}.py"
    return ZipEntry(name, index, 8, 0, 0, compressed, compressed * 3, 0, 0, 3, name.encode())


@settings(max_examples=300, deadline=None)
@given(st.lists(_SIZES, max_size=3 * BATCH_ITEMS))
def test_the_same_batches_as_the_shared_function(sizes: list[int]) -> None:
    entries = [_entry(i, size) for i, size in enumerate(sizes)]
    expected = largest_first_batches(entries, size=operator.attrgetter("compressed_size"))
    assert largest_first(entries) == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(_SIZES, max_size=BATCH_ITEMS + 5), max_size=4))
def test_the_same_split_as_the_old_schedule(wheels: list[list[int]]) -> None:
    work = [
        (f"w{n}", [_entry(i, size) for i, size in enumerate(sizes)])
        for n, sizes in enumerate(wheels)
    ]
    size = operator.attrgetter("compressed_size")
    old = [(w, b) for w, entries in work for b in largest_first_batches(entries, size=size)]
    old.sort(key=lambda item: -item[1][0].compressed_size)
    cut = next((i for i, (_, b) in enumerate(old) if b[0].compressed_size <= CHUNK), len(old))
    assert batches(work) == (old[:cut], old[cut:])


def test_empty_directories_are_not_read() -> None:
    kept = [_entry(0, 10, "pkg/a.py"), _entry(1, 2, "pkg/full/")]
    empty = ZipEntry("pkg/", 2, 0, 0, 0, 0, 0, 0, 0, 3, b"pkg/")
    # a directory entry with content is a file in hiding: it is read like any other
    assert to_verify([kept[0], empty, kept[1]]) == kept
