"""The task schedule `wheels` and `audit` share: largest first, small entries batched, one wheel
a batch."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from k3diff.batches import (
    BATCH_BYTES,
    BATCH_ITEMS,
    ITEM_COST,
    largest_first_batches,
    largest_first_sized,
)


def test_the_largest_entry_goes_first_and_small_ones_share_tasks() -> None:
    sizes = [10, BATCH_BYTES * 3, 20, 30]
    batches = largest_first_batches(range(len(sizes)), lambda index: sizes[index])
    assert batches == [[1], [3, 2, 0]]


def test_a_batch_holds_at_most_so_many_entries() -> None:
    batches = largest_first_batches(range(BATCH_ITEMS + 1), lambda _index: 0)
    assert [len(batch) for batch in batches] == [BATCH_ITEMS, 1]


def test_a_batch_never_mixes_wheels() -> None:
    items = [("a", 5), ("b", 4), ("a", 3), ("a", 2)]
    batches = largest_first_batches(items, lambda item: item[1], group=lambda item: item[0])
    assert batches == [[("a", 5)], [("b", 4)], [("a", 3), ("a", 2)]]


@given(
    st.lists(
        st.one_of(
            st.integers(min_value=0, max_value=4096),
            st.integers(min_value=0, max_value=BATCH_BYTES * 2),
            st.sampled_from([0, 7, BATCH_BYTES, BATCH_BYTES - ITEM_COST]),
        ),
        max_size=BATCH_ITEMS * 3,
    )
)
def test_sizes_given_cut_the_same_batches(sizes: list[int]) -> None:
    """`largest_first_sized` cuts what `largest_first_batches` cuts, in the same order, ties
    (many equal sizes) included."""
    items = [f"item{index}" for index in range(len(sizes))]
    by_name = dict(zip(items, sizes, strict=True))
    assert largest_first_sized(items, sizes) == largest_first_batches(items, by_name.__getitem__)
