"""Where each drained `/perf_metrics` document of a perf log stands among its server's drain
attempts, and what that says of a cold-warm cold request's drain (`DrainPlace`): whether it can
be read, whether an earlier drain left records it holds (`short`), whether a record of its came
late into the next drain (`late`), and which record of the next drain is its own where its own
drain held none (`carried`). `colddrains` matches the cold requests to their drains with it; its
docstring says why each case is refused, `colddrainwords` how."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from k3diff.sample.names import CO_BATCHED, Mode
from k3diff.sample.perfdrain import RECORDS, end_segment, failed, start_segment
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
    SHORT,
    STOPPED,
    SURPLUS,
    UNCHECKED,
    UNNAMED,
)
from k3diff.telemetry.coldsent import Count, Sent
from k3diff.telemetry.engines import RequestMetrics, request_ids


@dataclass(frozen=True)
class Drain:
    """One line of the perf log: a drained `/perf_metrics` document."""

    line: int
    """Its line number."""
    entry: Mapping[str, Any]
    """The line as written (`side`, `mode`, `key`, `repeat`, `metrics`)."""
    requests: Sequence[RequestMetrics]
    """Its records, read (`k3diff.telemetry.engines.trtllm_requests`)."""


class DrainPlace:
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
