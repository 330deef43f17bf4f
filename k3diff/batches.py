"""Work cut into thread-pool tasks, as `wheels` and `audit` schedule their entries: largest first
(a huge library must not finish last) and small ones batched (task overhead stays small)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")

BATCH_BYTES = 8 << 20
"""A batch holds about this many (compressed) bytes..."""
BATCH_ITEMS = 256
"""...or this many items, whichever comes first."""
ITEM_COST = 4096
"""What an item costs beyond its bytes (its stream opened, its result made), in bytes."""


def largest_first_batches(
    items: Iterable[T],
    size: Callable[[T], int],
    group: Callable[[T], object] = lambda _item: None,
) -> list[list[T]]:
    """ITEMS sorted by SIZE, largest first (stable), cut into batches of about `BATCH_BYTES`;
    a batch never mixes items whose GROUP differs (compared by identity: one wheel a batch)."""
    batches: list[list[T]] = []
    current: list[T] = []
    volume = 0
    current_group: object = None
    for item in sorted(items, key=lambda item: -size(item)):
        if current and (
            group(item) is not current_group or volume >= BATCH_BYTES or len(current) >= BATCH_ITEMS
        ):
            batches.append(current)
            current, volume = [], 0
        current_group = group(item)
        current.append(item)
        volume += size(item) + ITEM_COST
    if current:
        batches.append(current)
    return batches


def largest_first_sized(items: Sequence[T], sizes: Sequence[int]) -> list[list[T]]:
    """`largest_first_batches(items, size)` with every item's size given (`sizes[i]` the size
    of `items[i]`) and one group: the same batches in the same order, cut by C-level sorts
    and slices (a wheel's 12,000 pairs through Python keys, each size asked twice, cost
    ≈ 30 ms of the main thread before its pool could start)."""
    return [batch for batch, _ in _costed_batches(items, sizes)]


def mixed_sized(items: Sequence[T], sizes: Sequence[int]) -> list[list[T]]:
    """`largest_first_sized`'s batches, the small ones taken among the large: the next batch
    from the large end while the large batches taken cost no more than the small ones (a
    batch's cost: its sizes plus `ITEM_COST` an item), else from the small end, until they
    meet. The largest still goes first and the last are of middle size; a batch of many small
    items, whose per-item Python holds the GIL, runs beside a large one, whose inflates let
    it go, instead of after every large one, where two workers contending for the GIL kept
    little more than one core busy."""
    batches = _costed_batches(items, sizes)
    order: list[list[T]] = []
    low, high = 0, len(batches) - 1
    large = small = 0
    while low <= high:
        if large <= small:
            batch, cost = batches[low]
            low += 1
            large += cost
        else:
            batch, cost = batches[high]
            high -= 1
            small += cost
        order.append(batch)
    return order


def _costed_batches(items: Sequence[T], sizes: Sequence[int]) -> list[tuple[list[T], int]]:
    """`largest_first_sized`'s batches, each with its cost (its sizes plus `ITEM_COST` an
    item)."""
    order = sorted(range(len(items)), key=sizes.__getitem__, reverse=True)  # reverse: stable
    batches: list[tuple[list[T], int]] = []
    start = volume = 0
    for index, size in enumerate(map(sizes.__getitem__, order)):
        if index > start and (volume >= BATCH_BYTES or index - start >= BATCH_ITEMS):
            batches.append(([items[k] for k in order[start:index]], volume))
            start, volume = index, 0
        volume += size + ITEM_COST
    if order:
        batches.append(([items[k] for k in order[start:]], volume))
    return batches
