"""Where two sequences stop agreeing: the one prefix search behind every first divergence (text,
token ids, a logprob trace's sampled tokens, triage's splits)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def common_prefix_length(first: Sequence[Any], second: Sequence[Any]) -> int:
    """Length of the longest common prefix, by binary search over slice comparisons (in C)."""
    low, high = 0, min(len(first), len(second))
    while low < high:
        middle = (low + high + 1) // 2
        if first[:middle] == second[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
