"""The `k3diff.samples/1` logs triage pools, read by `k3diff.sample.reader` (the one reader of
that log): each line as read, with what pooling several logs derives from it (a batch id unique
across logs, the request order, the trace checked, the cached prompt tokens).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k3diff.sample.lines import SampleLine
from k3diff.sample.reader import SamplesLog
from k3diff.sample.runs import read_samples_logs
from k3diff.telemetry.summarize import cached_tokens
from k3diff.triage.traces import Trace, read_trace


@dataclass(frozen=True)
class SampleLogs:
    """The sample logs triage pools, in the order given."""

    paths: tuple[str, ...]
    """Each log as the user named it."""
    params: tuple[Mapping[str, Any] | None, ...]
    """Each log's run header `params` (None when the header has none)."""
    samples: tuple[Sample, ...]
    """Every sample of every log, in file order."""
    logs: tuple[SamplesLog, ...] = ()
    """Each log as read (its run header says which run it belongs to)."""
    side_params: tuple[Mapping[str, Any], ...] = ()
    """Each log's run header `side_params` (`--base-param`/`--patch-param`; {} when none)."""


@dataclass(frozen=True)
class Sample:
    """One line of a sample log as triage pools it: the line as read (`SampleLine`, the one line
    type) and what pooling several logs derives from it. The line's fields triage reads are
    properties of the line, not copies."""

    line: SampleLine
    """The line as `k3diff.sample.lines` read it."""
    order: tuple[int, int]
    """(file index, repeat): the order the requests were made in."""
    batch: str | None = None
    """The line's batch made unique across logs (None: serial, or an untimed log)."""
    trace: Trace | None = None
    """The line's `trace`, checked (`k3diff.triage.traces`): token ids, tokens, margins and the
    first position's reports (None when none was sent)."""
    cached_tokens: int | None = None
    """Cached prompt tokens its `usage` reports, or where it reports none the rise of the
    server's prefix-cache hit counter across it (`server_cache_hits`; None: neither)."""

    @property
    def text(self) -> str | None:
        """The generated text of a successful sample (None when failed or not logged)."""
        return self.line.text if self.line.error is None else None

    @property
    def side(self) -> str:
        return self.line.side

    @property
    def key(self) -> str:
        return self.line.key

    @property
    def mode(self) -> str:
        return self.line.mode

    @property
    def repeat(self) -> int:
        return self.line.repeat

    @property
    def text_xxh3(self) -> str | None:
        return self.line.text_xxh3

    @property
    def error(self) -> str | None:
        return self.line.error

    @property
    def request_sha256(self) -> str:
        return self.line.request_sha256

    @property
    def finish_reason(self) -> str | None:
        return self.line.finish_reason

    @property
    def level(self) -> int | None:
        return self.line.level

    @property
    def in_flight(self) -> int | None:
        return self.line.in_flight

    @property
    def server_running(self) -> int | None:
        return self.line.server_running

    @property
    def streams_overlapped(self) -> int | None:
        return self.line.streams_overlapped

    @property
    def load_ended(self) -> int | None:
        return self.line.load_ended

    @property
    def load_failed(self) -> int | None:
        return self.line.load_failed

    @property
    def prompt_xxh3(self) -> str | None:
        return self.line.prompt_xxh3

    @property
    def prompt_preview(self) -> str | None:
        return self.line.prompt_preview

    @property
    def request_params(self) -> Mapping[str, Any] | None:
        return self.line.request_params


def read_samples(paths: tuple[Path, ...], pool_runs: bool = False) -> SampleLogs:
    """Every sample of every log, in file order, with each log's request parameters, read
    through `k3diff.sample.reader` (one run unless `pool_runs`)."""
    logs = read_samples_logs(paths, pool_runs=pool_runs)
    samples = [
        Sample(
            line,
            order=(file_index, line.repeat),
            batch=None if line.batch is None else f"{file_index}:{line.batch}",
            trace=read_trace(line.trace, f"{log.path}:{number}"),
            cached_tokens=_cached(line),
        )
        for file_index, log in enumerate(logs)
        for line, number in zip(log.samples, log.lines, strict=True)
    ]
    return SampleLogs(
        tuple(map(str, paths)),
        tuple(log.header.params for log in logs),
        tuple(samples),
        tuple(logs),
        tuple(_side_params(log) for log in logs),
    )


def not_counted(logs: SampleLogs) -> str | None:
    """The sentence triage states when samples logged as successes were not counted (their
    finish_reason says their text is not whole, `k3diff.sample.reader`), None when none were."""
    found = [
        (log.path, number, line.error)
        for log in logs.logs
        if log.not_counted
        for line, number in zip(log.samples, log.lines, strict=True)
        if number in set(log.not_counted)
    ]
    if not found:
        return None
    path, number, error = found[0]
    if len(found) == 1:
        counted = "1 sample logged as a success was not counted, failed instead: its"
    else:
        counted = (
            f"{len(found):,} samples logged as successes were not counted, failed instead: their"
        )
    return f"{counted} finish_reason does not say the text is whole (e.g. {path}:{number}: {error})"


def _cached(line: SampleLine) -> int | None:
    """The cached prompt tokens of `usage`, else the server's counter's rise across it."""
    found = cached_tokens(line.usage)
    return line.server_cache_hits if found is None else found


def _side_params(log: SamplesLog) -> Mapping[str, Any]:
    own = log.header.fields.get("side_params")
    return own if isinstance(own, dict) else {}
