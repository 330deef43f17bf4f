"""The cycle collector's young-generation threshold for a k3diff run.

A run builds tens of thousands of small, acyclic, long-lived objects (entries, results,
records); at Python's default of 700 allocations the collector keeps re-walking them, which cost
3-4 % of a large wheel comparison. Start-up is the same pattern on a smaller scale: importing
click and the command allocates classes, functions and dataclasses that live until exit, and
at the default the collector ran about 16 times (≈ 2 ms CPU) before the first option was read.
So `k3diff.cli` raises the threshold before it imports anything else, and `run_main` again for
callers that run the group in-process."""

from __future__ import annotations

import gc

GC_YOUNG_THRESHOLD = 100_000
"""Allocations between young-generation collections."""


def raise_gc_threshold() -> None:
    """Collect the young generation every `GC_YOUNG_THRESHOLD` allocations (older ones as
    they were)."""
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
