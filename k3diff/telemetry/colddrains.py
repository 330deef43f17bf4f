"""Which drained `/perf_metrics` document holds a cold-warm cold request's record (TensorRT-LLM),
read from how `sample` writes them (`k3diff.sample.modes.run_cold_warm`, telem68, telem68b).

`sample` sends a record's cold request, then drains `/perf_metrics` on that request's server,
labelled with it (side, key, `cold-warm`, its repeat), before the warm ones; it writes every
drain attempt (a failed one with `error`) and each run's start-up drain (`start`: telem68b,
`k3diff.sample.perfdrain`). TensorRT-LLM's records name no request of the samples log, so the
drain is matched to its request by its label and its place. On a side whose drains report
KV-cache metrics, a cold request answered cannot be read (it holds `--expect cache-reuse`, and
is never evidence either way) where:

- base and patch are one server (review70d): each side's drain holds the other's records;
- its drain is not in the file (a run stopped before it, or the line removed);
- its drain failed (its record stays on the server, for a later drain), or follows a failed
  drain of that server (whose records the server kept: this drain holds them first);
- it is drained under its label more than once: `sample` drains a cold request once, so a
  second line is an edit, or an older run's drain of the other server that held leftovers;
- it is the side's first after a resume, in a log whose resumed run wrote no start-up drain
  (before telem68b): that drain also holds whatever the server kept from before the resume;
- in a run that wrote its start-up drain, its drain holds more than one record: one request
  was sent since the drain before it, so another record is a request that finished since;
- (telem69, telem70) TensorRT-LLM records a chat stream's request after sending `data:
  [DONE]`, so a drain right after the answer can miss that record, and the next drain holds
  it; and it keeps the newest `perf_metrics_max_requests` records only. So its drain's one
  record is its own only where nothing was owed before it: the drains of its server since
  its run's start-up drain hold one record for each request of that side sent before it
  (not fewer, nor fewer than those and the failed ones, each of which may have left one, nor
  more), none of a request no sample names (the loaded mode's background requests, the
  needle and mixed modes' fillers: review70d), and the next drain holds no more records than
  the requests answered since, there being one (a start-up or closing drain counts). Where
  its drain holds none, its record is the next drain's of least `request_id` where that one
  holds one more than the requests answered since, all named, and nothing was owed before
  (`drainplace.DrainPlace.carried`). Each reason says what to run instead (`colddrainwords`).

A cold request's drain after a drain of the same side and record labelled with a later repeat
is not the cold request's (`sample` drains the cold one first): refused, exit 2.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from k3diff.errors import InputError
from k3diff.sample.names import Mode, is_cold
from k3diff.sample.perfdrain import PERF_START_FIELD
from k3diff.sample.reader import SamplesLog
from k3diff.telemetry import coldsent
from k3diff.telemetry.colddrainwords import SHARED
from k3diff.telemetry.coldsent import Ident, Sent
from k3diff.telemetry.drainplace import Drain, DrainPlace

COLD_WARM = Mode.COLD_WARM.value


@dataclass
class ColdDrains:
    """What the drains say of the cold-warm cold requests of one perf log."""

    cold: dict[int, int] = field(default_factory=dict)
    """Drain position -> the index of the record in it that is a cold request's (its first,
    or, where the cold request's own drain held none, the one the next drain proves: telem70)."""
    unread: dict[str, list[str]] = field(default_factory=dict)
    """side -> the cold requests whose drain cannot be read, each with why."""


def _ident(entry: Mapping[str, Any]) -> Ident | None:
    repeat = entry.get("repeat")
    if entry.get("mode") != COLD_WARM or type(repeat) is not int:
        return None
    return str(entry.get("side")), str(entry.get("key")), COLD_WARM, repeat


def _kv_sides(drains: Sequence[Drain]) -> set[str]:
    """Sides some drain of which (the control's aside) reports `kv_cache_metrics`, valid or not:
    the sides whose cold requests' drains are due."""
    return {
        str(drain.entry.get("side"))
        for drain in drains
        if drain.entry.get("mode") != Mode.CONTROL.value
        and any(r.kv is not None or r.kv_invalid is not None for r in drain.requests)
    }


def cold_drains(drains: Sequence[Drain], logs: Iterable[SamplesLog], perf: str) -> ColdDrains:
    """The cold requests of `logs` (the samples logs beside the perf log `perf`) matched to its
    `drains`; InputError for a drain out of the order `sample` writes."""
    found = ColdDrains()
    labelled: dict[Ident, list[int]] = {}
    records: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for position, drain in enumerate(drains):
        ident = _ident(drain.entry)
        if ident is not None:
            labelled.setdefault(ident, []).append(position)
            records.setdefault(ident[:2], []).append((position, ident[3]))
    place = DrainPlace(drains, perf.rsplit("/", 1)[-1])
    due = _kv_sides(drains)
    for log in logs:
        segments = log.segments or (0,) * len(log.samples)
        resumed: set[tuple[str, int]] = set()
        sent = Sent(log)
        writes_start = log.header.fields.get(PERF_START_FIELD) is True
        shared = coldsent.shared_server(log)
        for index, (sample, segment) in enumerate(zip(log.samples, segments, strict=True)):
            if not is_cold(sample.mode, sample.repeat, sample.cold):
                continue
            after_resume = segment > 0 and (sample.side, segment) not in resumed
            resumed.add((sample.side, segment))
            at = labelled.get(sample.ident, [])
            if sample.side not in due or sample.error is not None:
                # A failed one holds the side already where its warm requests were answered
                # (left67c); its drain, where there is one, is read as before.
                if at and not after_resume:
                    found.cold[at[0]] = 0
                continue
            if at and not after_resume:
                _refuse_out_of_order(
                    drains, records[(sample.side, sample.key)], at[0], sample.ident, perf
                )
            why: str | tuple[int, int] | None
            why = place.unreadable(at, sample.side, segment, after_resume, writes_start)
            if why is None and shared is not None:
                why = SHARED.format(url=shared)
            if why is None:
                why = place.short(at[0], sent, index)
            if why is None and not drains[at[0]].requests:
                why = place.carried(at[0], sent, index, sample.side, segment)
            elif why is None:
                why = place.late(at[0], sent, index) or (at[0], 0)
            if isinstance(why, tuple):
                found.cold[why[0]] = why[1]
            else:
                said = (
                    f"the TensorRT-LLM request of {sample.key} {COLD_WARM} repeat {sample.repeat}"
                )
                found.unread.setdefault(sample.side, []).append(f"{said}: {why}")
    return found


def _refuse_out_of_order(
    drains: Sequence[Drain], record: list[tuple[int, int]], cold: int, ident: Ident, perf: str
) -> None:
    """InputError where a drain of the same side and record labelled with a later repeat
    (`record`: each drain's position and repeat) comes before the cold request's (at `cold`)."""
    side, key, _, repeat = ident
    for position, later in record:
        if position < cold and later > repeat:
            raise InputError(
                f"{perf}:{drains[cold].line}: the drain labelled with {side} {key!r} cold-warm "
                f"repeat {repeat}, the cold request, comes after line {drains[position].line}'s, "
                f"drained after repeat {later}: sample drains a record's cold request before its "
                "warm ones, so this drain holds other requests' records (the file was edited); "
                "sample the run again"
            )
