"""The records a run asked that its log holds fewer lines of than the run owed, per side.
Telemetry counts nothing of the missing lines, as it counts nothing of a failed sample: it says
how many records lack them and which.

Before (newuser70), a log filtered as `jq -c 'select(.error == null)'` (the header kept) lost
every line of a record both servers failed, and `telemetry` without `--expect` said nothing of
it: no `failed:` line (its failed lines were gone) and only one record fewer in the table, where
the log as written said the failures. `triage` holds such a record `unanswered`
(`k3diff.triage.asked`). Samples71: a record with some of its repeat lines removed was not named
at all; what a log lacks is now read by the one rule triage holds `unlogged` by
(`k3diff.sample.owed`: the header's keys, modes, sides and repeats against the lines)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.sample.names import SIDES, Mode
from k3diff.sample.owed import Shortfall, shortfalls
from k3diff.sample.reader import SamplesLog


@dataclass(frozen=True)
class UnloggedRecords:
    """One side's records the run asked that the log has fewer lines of than the run owed."""

    side: str
    records: tuple[str, ...]
    """Their keys, sorted; a record missing in some of the modes asked only is named with
    them (`b in concurrent`), one with some of a mode's lines left with their count (`b in
    serial (2 of 3 lines)`)."""
    of: int
    """Every record the run asked (the header's `keys`)."""


def unlogged_records(logs: Sequence[SamplesLog]) -> tuple[UnloggedRecords, ...]:
    """Per side with a record asked and not wholly logged, in SIDES order. A log whose header
    does not state what its run owed (written before samples71) is skipped: nothing can be
    told of it."""
    missing: dict[str, list[str]] = {}
    asked: dict[str, set[str]] = {}
    for log in logs:
        found = shortfalls(log)
        if found is None or log.header.keys is None or log.header.sides is None:
            continue
        for side in log.header.sides:
            asked.setdefault(side, set()).update(log.header.keys)
        modes = [m for m in log.header.modes or () if m != Mode.CONTROL.value]
        by_record: dict[tuple[str, str], list[Shortfall]] = {}
        for gap in found:
            by_record.setdefault((gap.side, gap.key), []).append(gap)
        for (side, key), gaps in by_record.items():
            missing.setdefault(side, []).append(_named(key, gaps, len(modes)))
    return tuple(
        UnloggedRecords(side, tuple(dict.fromkeys(missing[side])), len(asked[side]))
        for side in SIDES
        if side in missing
    )


def _named(key: str, gaps: list[Shortfall], modes: int) -> str:
    """`b` (no line in any mode asked), `b in concurrent`, `b in serial (2 of 3 lines)`."""
    if len(gaps) == modes and not any(gap.logged for gap in gaps):
        return key
    parts = [
        gap.mode if not gap.logged else f"{gap.mode} ({gap.logged:,} of {gap.owed:,} lines)"
        for gap in gaps
    ]
    return f"{key} in {', '.join(parts)}"
