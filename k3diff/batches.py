"""Work cut into thread-pool tasks, as `wheels` and `audit` schedule their entries: largest first
(a huge library must not finish last) and small ones batched (task overhead stays small)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
