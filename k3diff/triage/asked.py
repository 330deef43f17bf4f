"""The records a run asked, read from its log's header (`keys`, the modes, the sides), so that a
record whose lines a log lacks is not read as a record the run never asked.

Before (triage70), a record both servers failed every request of, its failed lines then
filtered out of the log (`jq -c 'select(.error == null)'`, header kept), left no line at all:
triage read it from its captures alone ("no samples; the captured outputs are equal"), exit 0,
where the log as written held it `unanswered` (exit 1); a run killed before a record's lines
read the same. A header that lists the keys asked (`k3diff sample` writes it since) makes each
record of the comparison it asked a record of every mode it asked, lines or none: a side it
sampled with no line there is held `unanswered` (`triage.unanswered`), worded as lines the log
lacks. A log written before the header stated its format (`run.log_format`) cannot show it
holds every line its run owed: `triage.unlogged` holds its records, and triage says so
(`runs[].asked` null: `k3diff.sample.runs.RunInfo`)."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence

from k3diff.sample.names import Mode
from k3diff.sample.reader import SamplesLog


def asked_slots(logs: Sequence[SamplesLog], known: Collection[str]) -> Iterator[tuple[str, str]]:
    """(key, mode) for each record of `known` (the comparison's keys) a log's header asked, in
    each mode it asked (the control aside: its samples are no record's evidence)."""
    for log in logs:
        keys, modes = log.header.keys, log.header.modes
        if keys is None or modes is None:
            continue
        for key in sorted(keys.intersection(known)):
            for mode in modes:
                if mode != Mode.CONTROL.value:
                    yield key, mode
