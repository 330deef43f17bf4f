"""Phase collect of `compare_wheels`: the tasks' results in pair order, as they arrive."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, as_completed
from itertools import chain
from operator import itemgetter

from k3diff.progress import Tally
from k3diff.wheels.entry import EntryResult
from k3diff.wheels.entryruns import EntryResults, IdenticalRun
from k3diff.wheels.schedule import Finished


def collect(
    pending: list[Future[Finished]],
    weights: list[int],
    detail: Callable[[int, EntryResult], EntryResult],
    tally: Tally,
) -> EntryResults:
    """Results in pair order, those a task did not finish passed through `detail` as soon as
    their task is done, the raw-identical runs kept as they came (no result built for each);
    each task's weight is added to `tally` once its details are in."""
    slots: list[EntryResult | None] = [None] * len(weights)
    runs: list[IdenticalRun] = []
    for future in as_completed(pending):
        final, unfinished, ran = future.result()
        for index, result in final:
            slots[index] = result
        for index, result in unfinished:
            slots[index] = detail(index, result)
        runs += ran
        done = chain(map(_FIRST, final), map(_FIRST, unfinished), *(run.indices for run in ran))
        tally.add(sum(map(weights.__getitem__, done)))
    runs.sort(key=_FIRST_INDEX)  # spans of whole runs in pair order: their columns need no sort
    return EntryResults(slots, runs)


_FIRST = itemgetter(0)
"""A result's pair index."""


def _FIRST_INDEX(run: IdenticalRun) -> int:  # a key, as `_FIRST`
    return run.indices[0]
