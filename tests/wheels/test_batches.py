"""The task schedule `wheels` and `audit` share: largest first, small entries batched, one wheel
a batch."""

from __future__ import annotations

from k3diff.batches import BATCH_BYTES, BATCH_ITEMS, largest_first_batches


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
