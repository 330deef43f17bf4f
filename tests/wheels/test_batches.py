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
    mixed_sized,
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


@given(
    st.lists(
        st.one_of(
            st.integers(min_value=0, max_value=4096),
            st.integers(min_value=0, max_value=BATCH_BYTES * 2),
        ),
        max_size=BATCH_ITEMS * 4,
    )
)
def test_mixed_batches_are_the_same_batches_largest_first(sizes: list[int]) -> None:
    """`mixed_sized` hands out `largest_first_sized`'s batches, each once, the largest first."""
    items = list(range(len(sizes)))
    mixed = mixed_sized(items, sizes)
    plain = largest_first_sized(items, sizes)
    assert sorted(mixed) == sorted(plain)
    assert mixed[:1] == plain[:1]


def test_batches_of_many_small_entries_run_among_the_large_ones() -> None:
    """Each large batch is followed by small ones of about its cost before the next large one:
    the small entries' batches do not wait until every large one is done."""
    large = [BATCH_BYTES] * 4
    small = [100] * (BATCH_ITEMS * 40)
    sizes = large + small
    mixed = mixed_sized(range(len(sizes)), sizes)
    kinds = ["large" if batch[0] < len(large) else "small" for batch in mixed]
    assert kinds[0] == "large"
    first_small = kinds.index("small")
    assert first_small == 1 and kinds[-1] == "small" and "large" in kinds[first_small:]
    cost = BATCH_ITEMS * (100 + ITEM_COST)
    between = kinds[1 : kinds.index("large", 1)]
    assert len(between) == -(-(BATCH_BYTES + ITEM_COST) // cost)  # about one large one's cost
