"""Which processes answered each side's `/metrics`, by the start time they show (oneserver75).

A server of several worker processes each counting its own requests (`uvicorn --workers`,
gunicorn, prometheus_client outside its multiprocess mode) behind a front end that keeps its
own connections to the workers can answer every reading of the base from one worker and every
reading and GET of the patch from another: the base's counter stays put, exactly as a second
server's does, whichever connections the check opens (stop 74's CI: `two-servers` in 1 of 4
probes of one `uvicorn --workers 2` on a loaded machine). Counters cannot tell those apart;
the processes can: prometheus_client's default registry shows each process's
`process_start_time_seconds`, and the workers of one server are started together, within
milliseconds of each other (10 to 20 ms apart for `uvicorn --workers 2` here; one clock tick,
10 ms, is its resolution, so two workers may show one value). So `two-servers` needs every
process the base showed to have started more than `STARTED_TOGETHER_S` apart from every process
the patch showed; two servers started together (by one script) read `unchecked`, a
qualification, never `two-servers` of one server.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable

from prometheus_client.samples import Sample

START_SERIES = "process_start_time_seconds"
"""prometheus_client's process collector's start time of the process (Linux), seconds since
the epoch, in clock ticks (10 ms); Node's prom-client rounds it to whole seconds."""
STARTED_TOGETHER_S = 1.0
"""Seconds within which two processes' start times read as workers of one server started
together: a server's workers start milliseconds apart (gunicorn sleeps up to 0.1 s between
two), two servers a person starts seconds apart."""


def process_starts(samples: Iterable[Sample]) -> set[float]:
    """The finite start times one body shows: every series named `START_SERIES`, labelled or
    prefixed too (prom-client's labels and `prefix`, prometheus_client's `namespace`;
    review75b: before, those read as no start time, and one server of two workers split by a
    front end read `two-servers`). A start time only ever turns `two-servers` into `unchecked`,
    so a server's text adding some cannot forge a pass. None where the server exposes no
    process collector (Prometheus multiprocess mode, whose shared counters need none)."""
    return {
        sample.value
        for sample in samples
        if sample.name.endswith(START_SERIES) and math.isfinite(sample.value)
    }


def started_together(base: Iterable[float], patch: Iterable[float]) -> tuple[float, float] | None:
    """The base's and the patch's start times nearest each other where at most
    `STARTED_TOGETHER_S` apart, else None (also where a side showed none). At most, not less:
    start times in whole seconds (prom-client rounds them) show two workers started 0.02 s
    apart across a half second 1 s apart (review75b: read `two-servers` before)."""
    ordered = sorted(set(patch))
    nearest: tuple[float, float] | None = None
    for start in set(base):
        at = bisect.bisect_left(ordered, start)
        for other in ordered[max(0, at - 1) : at + 1]:
            if nearest is None or abs(start - other) < abs(nearest[0] - nearest[1]):
                nearest = (start, other)
    if nearest is None or abs(nearest[0] - nearest[1]) > STARTED_TOGETHER_S:
        return None
    return nearest
