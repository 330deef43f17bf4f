"""The cycle collector's young-generation threshold for a k3diff run.

A run builds tens of thousands of small, acyclic, long-lived objects (entries, results,
records); at Python's default of 700 allocations the collector keeps re-walking them, which cost
3-4 % of a large wheel comparison. Start-up is the same pattern on a smaller scale: importing
click and the command allocates classes, functions and dataclasses that live until exit, and
at the default the collector ran about 16 times (≈ 2 ms CPU) before the first option was read.
So `k3diff.cli` raises the threshold before it imports anything else, and `run_main` again for
callers that run the group in-process.

At exit the interpreter runs the collector again over everything still alive, every module's
functions, classes and dicts included: about 30 ms CPU after an `audit`, whatever the input
(`freeze_at_exit`)."""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

GC_YOUNG_THRESHOLD = 100_000
"""Allocations between young-generation collections."""


def raise_gc_threshold() -> None:
    """Collect the young generation every `GC_YOUNG_THRESHOLD` allocations (older ones as
    they were)."""
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])


_freeze_registered = False


def freeze_at_exit() -> None:
    """At interpreter exit, move every object still alive to the collector's permanent
    generation first (`gc.freeze`), so the collections of the interpreter's shutdown walk only
    what is made after (measured on `audit`: 30-38 ms of exit CPU down to 7-10 ms). Objects are
    still freed as the modules are torn down; only cyclic garbage left at exit is not collected
    (its memory goes with the process). Registered once per process: an in-process caller (the
    tests) freezes only when it exits itself. For commands that write nothing through an object
    left in a reference cycle: `audit` closes its report and manifest explicitly."""
    global _freeze_registered
    if not _freeze_registered:
        atexit.register(gc.freeze)
        _freeze_registered = True


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cycle collection inside the block, and what it built frozen after it (`gc.freeze`).

    A wheel comparison builds its model (entries, records, results: about 100,000 tracked,
    acyclic objects on a 12k-entry wheel) and keeps every one of them until its report is
    written: a collection during the run, or at the next threshold after it, walks them all and
    frees nothing (one young collection cost ≈ 28 ms on the torch CPU pair), and so do the
    collections of interpreter shutdown. Frozen objects are still freed by reference counting;
    only reference cycles made inside the block would outlive it, until `thaw` (which
    `run_main` calls for in-process callers; a process that exits next need not)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def thaw() -> None:
    """Give what `collector_paused` froze back to the collector (the oldest generation)."""
    gc.unfreeze()
