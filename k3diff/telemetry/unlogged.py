"""The records a run asked that its log holds no line of, per side. Telemetry counts nothing of
them, as it counts nothing of a failed sample: it says how many there were and which.

Before (newuser70), a log filtered as `jq -c 'select(.error == null)'` (the header kept) lost
every line of a record both servers failed, and `telemetry` without `--expect` said nothing of
it: no `failed:` line (its failed lines were gone) and only one record fewer in the table, where
the log as written said the failures. `triage` holds such a record `unanswered`
(`k3diff.triage.asked`); the header lists the records the run asked (`keys`), and a side it
sampled owes a line of each in every mode it asked (the control aside)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.sample.names import SIDES, Mode
from k3diff.sample.reader import SamplesLog


@dataclass(frozen=True)
class UnloggedRecords:
    """One side's records the run asked that the log has no line of, in some mode asked."""

    side: str
    records: tuple[str, ...]
    """Their keys, sorted; a record missing in some of the modes asked only is named with
    them (`b in concurrent`)."""
    of: int
    """Every record the run asked (the header's `keys`)."""


def unlogged_records(logs: Sequence[SamplesLog]) -> tuple[UnloggedRecords, ...]:
    """Per side with a record asked and not logged, in SIDES order. A log whose header does not
    list its records (written before triage70) is skipped: nothing can be told of it."""
    missing: dict[str, list[str]] = {}
    asked: dict[str, set[str]] = {}
    for log in logs:
        keys, modes, sides = log.header.keys, log.header.modes, log.header.sides
        if keys is None or modes is None:
            continue
        modes = tuple(m for m in modes if m != Mode.CONTROL.value)
        logged = {(s.side, s.key, s.mode) for s in log.samples}
        for side in sides if sides is not None else sorted({s.side for s in log.samples}):
            asked.setdefault(side, set()).update(keys)
            for key in sorted(keys):
                lacking = [m for m in modes if (side, key, m) not in logged]
                if lacking:
                    named = key if len(lacking) == len(modes) else f"{key} in {', '.join(lacking)}"
                    missing.setdefault(side, []).append(named)
    return tuple(
        UnloggedRecords(side, tuple(dict.fromkeys(missing[side])), len(asked[side]))
        for side in SIDES
        if side in missing
    )
