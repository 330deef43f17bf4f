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
  (`_Place.carried`). Each reason says what to run instead (`colddrainwords`).

A cold request's drain after a drain of the same side and record labelled with a later repeat
is not the cold request's (`sample` drains the cold one first): refused, exit 2.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from k3diff.errors import InputError
from k3diff.sample.names import CO_BATCHED, Mode, is_cold
from k3diff.sample.perfdrain import (
    PERF_START_FIELD,
    RECORDS,
    end_segment,
    failed,
    start_segment,
)
from k3diff.sample.reader import SamplesLog
from k3diff.telemetry import coldsent
from k3diff.telemetry.colddrainwords import (
    AFTER_FAILED,
    DUPLICATE,
    EMPTY,
    EMPTY_NEXT,
    EMPTY_NO_ID,
    EMPTY_STOPPED,
    EMPTY_UNCOUNTED,
    EMPTY_UNNAMED,
    FAILED,
    FAILED_SINCE,
    FAILED_UNCOUNTED,
    LAST,
    LATE,
    MISSING,
    NO_START,
    NOT_ONE,
    RESAMPLE,
    RESUMED,
    SHARED,
    SHORT,
    STOPPED,
    SURPLUS,
    UNCHECKED,
    UNNAMED,
)
from k3diff.telemetry.coldsent import Count, Ident, Sent
from k3diff.telemetry.engines import RequestMetrics, request_ids

COLD_WARM = Mode.COLD_WARM.value


@dataclass
class ColdDrains:
    """What the drains say of the cold-warm cold requests of one perf log."""

    cold: dict[int, int] = field(default_factory=dict)
    """Drain position -> the index of the record in it that is a cold request's (its first,
    or, where the cold request's own drain held none, the one the next drain proves: telem70)."""
    unread: dict[str, list[str]] = field(default_factory=dict)
    """side -> the cold requests whose drain cannot be read, each with why."""


@dataclass(frozen=True)
class Drain:
    """One line of the perf log: a drained `/perf_metrics` document."""

    line: int
    """Its line number."""
    entry: Mapping[str, Any]
    """The line as written (`side`, `mode`, `key`, `repeat`, `metrics`)."""
    requests: Sequence[RequestMetrics]
    """Its records, read (`k3diff.telemetry.engines.trtllm_requests`)."""


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
    place = _Place(drains, perf.rsplit("/", 1)[-1])
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


class _Place:
    """Where each drain stands among its server's drain attempts (telem68b: `sample` writes
    every attempt, the failed ones too, and each run's start-up drain)."""

    def __init__(self, drains: Sequence[Drain], name: str) -> None:
        self.drains = drains
        self.name = name
        self.prior: list[int | None] = []
        """Per drain, the position of the attempt before it on the same side's server."""
        self.starts: dict[tuple[str, int], int] = {}
        """(side, segment) -> the position of that run's start-up drain."""
        self.following: list[int | None] = [None] * len(drains)
        """Per drain, the position of the attempt after it on the same side's server."""
        last: dict[str, int] = {}
        for position, drain in enumerate(drains):
            side = str(drain.entry.get("side"))
            self.prior.append(last.get(side))
            if (before := last.get(side)) is not None:
                self.following[before] = position
            last[side] = position
            segment = start_segment(drain.entry)
            if segment is not None:
                self.starts.setdefault((side, segment), position)

    def unreadable(
        self, at: Sequence[int], side: str, segment: int, after_resume: bool, writes_start: bool
    ) -> str | None:
        """Why the cold request of `side` in the run's `segment` (`after_resume`: the side's
        first of the segment, a resumed one; `writes_start`: the log's runs write their
        start-up drains) drained at the positions `at` cannot be read; None when the first
        record of its drain is its own."""
        start = self.starts.get((side, segment))
        started = start is not None and (not at or start < at[0])
        if writes_start and at and not started:
            # review69b: removing (or moving) the one start-up line read the log as one written
            # before telem68b, whose drains are not counted: a cold hit recorded late passed.
            return NO_START.format(line=self.drains[at[0]].line, name=self.name)
        if after_resume and not started:
            return RESUMED  # a log before telem68b: its start-up drain was not written
        if not at:
            return MISSING.format(name=self.name)
        if at[1:]:
            lines = ", ".join(str(self.drains[p].line) for p in at[:3])
            return DUPLICATE.format(lines=lines)
        drain = self.drains[at[0]]
        if (error := failed(drain.entry)) is not None:
            return FAILED.format(line=drain.line, error=error)
        prior = self.prior[at[0]]
        if prior is not None and (error := failed(self.drains[prior].entry)) is not None:
            return AFTER_FAILED.format(line=self.drains[prior].line, error=error)
        if started and len(drain.requests) > 1:
            return NOT_ONE.format(line=drain.line, records=len(drain.requests))
        return None

    def carried(
        self, at: int, sent: Sent, index: int, side: str, segment: int
    ) -> str | tuple[int, int]:
        """Where the record of the cold request (the sample at `index`) whose drain (at `at`)
        held none is (telem70): (the next drain's position, the record's index), where that
        drain holds one record more than the requests answered since, all named by samples
        (review70d), none failed, and nothing was owed before (`short`): the one more is its
        own, the one of least `request_id` (TensorRT-LLM's executor numbers requests as they
        are submitted, and every other one was sent after it). Else why not."""
        drain = self.drains[at]
        start = self.starts.get((side, segment))
        if start is None or start > at:
            return EMPTY_UNCOUNTED.format(line=drain.line)
        found = self.next_count(at, sent, index)
        if isinstance(found, str):
            tail = "" if self.following[at] is not None else _tail(sent, EMPTY_STOPPED)
            return EMPTY.format(line=drain.line, why=found) + tail
        after, records, (answered, failures, _) = found
        label = coldsent.label(after.entry)
        if label is None:
            why = f"line {after.line}, the next, a start-up or closing drain, keeps a count only"
            return EMPTY.format(line=drain.line, why=why)
        # review70d: a record no sample names (a background request's, a filler's) stood in
        # for its own, dropped past the cap, and the least request_id was another's.
        filler = sent.unnamed_since(index, label)
        mode = label[2] if label[2] == Mode.LOADED.value or filler is None else filler.mode
        if mode in CO_BATCHED:
            what = coldsent.unnamed(mode)[0]
            return EMPTY_UNNAMED.format(line=drain.line, next=after.line, mode=mode, what=what)
        if failures or records != answered + 1:
            more = FAILED_SINCE.format(failed=failures) if failures else ""
            return EMPTY_NEXT.format(
                line=drain.line,
                next=after.line,
                records=coldsent.records(records),
                sent=coldsent.requests(answered),
                failed=more,
            )
        ids = request_ids(after.entry.get("metrics"))
        if ids is None or len(ids) != len(after.requests):
            return EMPTY_NO_ID.format(line=drain.line, next=after.line)
        position = self.following[at]
        assert position is not None  # next_count found the drain after it
        return position, ids.index(min(ids))

    def short(self, at: int, sent: Sent, index: int) -> str | None:
        """Why the cold request's drain (at `at`; the sample at `index`) may hold a record
        owed to an earlier drain, where nothing counts its records as its own: the drains of
        its server since its run's start-up drain hold other than one record for each of
        that side's requests sent before it (all of them answered before it was sent): fewer
        (telem69: a record that came after its drain, or that the server's cap dropped:
        TensorRT-LLM keeps the newest `perf_metrics_max_requests`), fewer than those and the
        failed ones, each of which may have left a record (telem70), or more (telem70:
        records no sample names, which fill the count of one missing); or they hold records
        of requests no sample names: the loaded mode's background requests (telem70), the
        needle and mixed modes' fillers (review70d). None where they hold as many, or where
        no start-up drain was written (a log before telem68b: its failed drains left no line,
        so its counts cannot be added up) and none of those came before."""
        records, loaded = 0, None
        position = self.prior[at]
        while position is not None and start_segment(self.drains[position].entry) is None:
            drain = self.drains[position]
            if drain.entry.get("mode") == Mode.LOADED.value:
                loaded = drain.line
            if failed(drain.entry) is None:
                records += len(drain.requests)
            position = self.prior[position]
        unnamed = (Mode.LOADED.value, f"line {loaded}") if loaded is not None else None
        if unnamed is None and (filler := sent.unnamed_before(index)) is not None:
            unnamed = (filler.mode, f"{filler.key} {filler.mode} repeat {filler.repeat}")
        if unnamed is not None:  # review70d: the needle and mixed modes drain no batch
            since = "" if position is None else " since its run's start-up drain"
            what, one = coldsent.unnamed(unnamed[0])
            mode, first = unnamed
            return UNNAMED.format(since=since, mode=mode, first=first, what=what, one=one)
        if position is None:
            return None
        answered, failures, first = sent.before(index)
        through = self.prior[at]
        assert through is not None  # the walk above began there
        said = {
            "line": self.drains[through].line,
            "records": coldsent.records(records),
            "answered": coldsent.requests(answered),
        }
        if records < answered:
            return SHORT.format(**said) + RESAMPLE
        if records < answered + failures:
            return FAILED_UNCOUNTED.format(**said, failed=failures, first=first)
        if records > answered + failures:
            more = f" and {failures} failed" if failures else ""
            return SURPLUS.format(**said, failed=more)
        return None

    def late(self, at: int, sent: Sent, index: int) -> str | None:
        """Why the first record of the drain at `at`, the cold request's (the sample at `index`
        of the log `sent` counts in), may be an earlier request's that came late (telem69);
        None when the next drain that answered on its server holds no more records than the
        requests answered on that side since (a failed one may have left none: telem70). A
        failed drain after it leaves it unread: the server may have emptied its queue for the
        failed answer (TensorRT-LLM swaps it out first), the late record with it, so no later
        count shows it (review69b: it was skipped, as if the server had kept its records, and
        a cold hit recorded late was hidden, exit 0)."""
        found = self.next_count(at, sent, index)
        if isinstance(found, str):
            tail = "" if self.following[at] is not None else _tail(sent, STOPPED)
            return UNCHECKED.format(why=found) + tail
        drain, records, (count, failures, _) = found
        if records > count:
            more = FAILED_SINCE.format(failed=failures) if failures else ""
            return LATE.format(
                line=drain.line,
                records=coldsent.records(records),
                sent=coldsent.requests(count),
                failed=more,
            )
        return None

    def next_count(self, at: int, sent: Sent, index: int) -> tuple[Drain, int, Count] | str:
        """The drain after the one at `at` on its server, the records it took, and the
        requests of that side sent between (after the sample at `index`): up to the sample it
        is labelled with, or, for a resumed run's start-up drain or the run's closing drain
        (which keep a count: telem70), the rest of that run; else why none shows them."""
        position = self.following[at]
        if position is None:
            return "none drained after it"
        drain = self.drains[position]
        entry = drain.entry
        if (error := failed(entry)) is not None:
            return f"line {drain.line}, the next, failed ({error}) and may have taken it"
        if start_segment(entry) is not None or end_segment(entry) is not None:
            taken = entry.get(RECORDS)
            if type(taken) is not int:
                return f"line {drain.line}, a start-up or closing drain, counts none"
            return drain, taken, sent.rest(index)
        label = coldsent.label(entry)
        since = None if label is None else sent.since(index, label)
        if since is None:
            return f"line {drain.line} is labelled with no sample after it in the log"
        return drain, len(drain.requests), since


def _tail(sent: Sent, stopped: str) -> str:
    """What to run where no drain follows a cold request's: `stopped` where its run stopped
    part-way, else a closing drain (a log before telem70, or the line removed)."""
    return stopped if sent.log.stop is not None else LAST


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
