"""What a run owed its log against what the log holds: the one rule `triage` (`unlogged`) and
`telemetry` (`unlogged:`) read a log's missing lines by.

A log whose header states its format (`run.log_format`, `k3diff.sample.header`) lists the
records its run asked (`keys`), the modes, the sides and the repeats (as resume markers grew
them): each side it sampled owes a line of each record in each mode it asked (the control
aside), once per repeat (a sweep once per repeat and level). A failed request is a line too,
so only a line removed from the log, or one a run killed before it never wrote (`--resume`
takes it), is missing. The one stop by design is `--adaptive`'s: a record whose logged lines
are decisive (`adaptive.Tally.decisive`) owes no more.

Before (samples71), a log with a repeat line of a record deleted (`jq 'select(.repeat != 2)'`)
was judged on the lines left, and passed where they matched: a record whose patch gave a new
output on one repeat of five passed once that line was gone. Each log is read against its own
header, so one log's gap is not hidden by another log's lines of the same record."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from k3diff.sample.adaptive import Tally
from k3diff.sample.names import Mode
from k3diff.sample.reader import SamplesLog

ADAPTIVE_MODES = frozenset({Mode.SERIAL.value, Mode.CONCURRENT.value, Mode.LOADED.value})
"""The modes whose schedulers stop a decided record under `--adaptive` (`modes._decided`)."""


@dataclass(frozen=True)
class Shortfall:
    """One side's lines of one record and mode that a log holds fewer of than its run owed."""

    log: str
    """The log as named."""
    side: str
    key: str
    mode: str
    logged: int
    """The lines the log holds (failed requests included)."""
    owed: int
    """The lines its run owed (its repeats; a sweep's times its levels)."""


def shortfalls(log: SamplesLog) -> tuple[Shortfall, ...] | None:
    """Each (side, record, mode) the log holds fewer lines of than its run owed, in the
    header's order of sides, keys and modes; None where the header does not state what the run
    owed (`RunHeader.listed` false: a log written before samples71)."""
    header = log.header
    if not header.listed or header.keys is None or header.modes is None:
        return None
    if header.repeats is None or header.sides is None:
        return None  # `log_format` requires them: a header read before they were refused
    modes = [mode for mode in header.modes if mode != Mode.CONTROL.value]
    levels = header.fields.get("levels")
    per_level = len(levels) if isinstance(levels, list) and levels else 1
    logged = Counter((s.side, s.key, s.mode) for s in log.samples)
    stopped = _stopped(log) if header.fields.get("adaptive") is True else set()
    found = []
    for side in header.sides:
        for key in sorted(header.keys):
            for mode in modes:
                owed = header.repeats * (per_level if mode == Mode.SWEEP.value else 1)
                held = logged[(side, key, mode)]
                if held < owed and (key, mode) not in stopped:
                    found.append(Shortfall(log.path, side, key, mode, held, owed))
    return tuple(found)


def _stopped(log: SamplesLog) -> set[tuple[str, str]]:
    """The (record, mode) pairs `--adaptive` stopped by its rule: every side holds each repeat
    below the highest logged, a whole number of rounds (serial and loaded: one repeat a side;
    concurrent: a batch of `concurrency`), as the sampler stops only between them, both sides
    alike; and the lines are decisive (`Tally.decisive`). The sampler asks before each round,
    so a line deleted below the last, part of the last batch, or the last round deleted (the
    rounds before it were not decisive, or it would not have been taken) is no stop."""
    sides = log.header.sides or ()
    concurrency = log.header.fields.get("concurrency")
    batch = concurrency if isinstance(concurrency, int) and concurrency > 0 else 1
    tally = Tally()
    repeats: dict[tuple[str, str], dict[str, set[int]]] = {}
    for sample in log.samples:
        tally.add(sample.side, sample.key, sample.mode, sample.text_xxh3)
        slot = repeats.setdefault((sample.key, sample.mode), {})
        slot.setdefault(sample.side, set()).add(sample.repeat)
    stopped = set()
    for (key, mode), taken in repeats.items():
        if mode not in ADAPTIVE_MODES:
            continue
        rounds = set(range(1 + max(max(found) for found in taken.values())))
        whole = all(taken.get(side, set()) == rounds for side in sides)
        whole = whole and len(rounds) % (batch if mode == Mode.CONCURRENT.value else 1) == 0
        if whole and tally.decisive(key, mode, len(sides) > 1):
            stopped.add((key, mode))
    return stopped
