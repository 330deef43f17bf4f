"""Working objects a run may leave to the operating system instead of freeing (issue 41).

When `compare_wheels` returns, its working set (both archives' entry lists, both parsed
RECORDs, the installability views, the pairs: ≈ 100,000 small objects on the torch CPU pair)
is freed object by object, 30 ms and more of cache misses on case e, in a process that exits
as soon as the report is written (`cli.quickexit`). Library code hands such objects to `keep`;
they are kept only after `start`, which the command line calls for a single comparison in a
process that ends with it, never for a loop of comparisons (a release set: what each pair
built would add up) and never in-process.
"""

from __future__ import annotations

_kept: list[object] | None = None
"""What `keep` was given since `start`; None: `keep` keeps nothing."""


def start() -> None:
    """From now on, `keep` keeps what it is given until the process ends."""
    global _kept
    if _kept is None:
        _kept = []


def keep(*objects: object) -> None:
    """Keep `objects` alive until the process ends, if `start` was called; else nothing."""
    if _kept is not None:
        _kept.extend(objects)
