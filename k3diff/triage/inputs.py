"""Reads the two documents triage joins: a `k3diff.responses/1` comparison (read by
`k3diff.responses.document`, the one reader `report` uses too) and `k3diff.samples/1` sample logs
(read by `k3diff.sample.lines`, the one reader of that log).

Both readers check everything they rely on and fail with one line naming the file (and the line
or record) and the problem. Fields they do not use are ignored, so documents may grow.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k3diff.docbody import read_bytes
from k3diff.errors import InputError
from k3diff.ids import RESPONSES as COMPARISON_SCHEMA
from k3diff.responses.document import ResponsesDocument, parse_comparison
from k3diff.sample.lines import SampleLine, SamplesLog, looks_like_samples_log
from k3diff.sample.runs import read_samples_logs
from k3diff.telemetry.summarize import cached_tokens


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
    """One line of a sample log."""

    side: str
    """base or patch."""
    key: str
    """The record key."""
    mode: str
    """serial, concurrent or loaded."""
    repeat: int
    """0-based repeat number within side/key/mode."""
    text_xxh3: str | None
    """xxh3-128 of the text (None when the request failed)."""
    error: str | None
    """None on success, else the failure."""
    request_sha256: str
    """SHA-256 of the canonical request body (without its per-request `cache_salt`)."""
    order: tuple[int, int]
    """(file index, repeat): the order the requests were made in."""
    finish_reason: str | None = None
    """Why generation stopped (None when the request failed or the server did not say)."""
    text: str | None = None
    """The generated text (None when failed or not logged)."""
    trace: Trace | None = None
    """Token ids, tokens and margins the line kept (None when the server sent none)."""
    batch: str | None = None
    """The batch it went out in, made unique across logs (None: serial, or an untimed log)."""
    in_flight: int | None = None
    """The most requests to its server being answered together while it was (None: untimed)."""
    level: int | None = None
    """The concurrency level of a sweep sample (None in other modes)."""
    sent: float | None = None
    """When its last attempt was sent (epoch seconds; None: untimed)."""
    ended: float | None = None
    """When it ended (None: untimed)."""
    first_token: float | None = None
    """When a streamed answer's first token arrived (None for a whole answer)."""
    cached_tokens: int | None = None
    """Cached prompt tokens its `usage` reports, or where it reports none the rise of the
    server's prefix-cache hit counter across it (`server_cache_hits`; None: neither)."""
    server_running: int | None = None
    """The largest reading of the server's running-requests gauge while it was in flight
    (None: not exposed, or not read)."""
    streams_overlapped: int | None = None
    """A streamed answer's other streams proven generated together with it (None: a whole
    answer, or a log written before it)."""
    prompt_xxh3: str | None = None
    """xxh3-128 of the prompt sent (None in older logs)."""
    prompt_preview: str | None = None
    """The prompt's first characters (None in older logs)."""
    request_params: Mapping[str, Any] | None = None
    """The request's fields other than prompt, model, stream and salt (None in older logs)."""


@dataclass(frozen=True)
class Trace:
    """A sample line's `trace`: what a split analysis needs, bounded by the sampler."""

    token_ids: tuple[int, ...] | None
    """Generated token ids (the first `kept`)."""
    tokens: tuple[str, ...] | None
    """Generated token strings (from logprobs)."""
    margins: tuple[float | None, ...] | None
    """Per position, the chosen token's logprob minus the runner-up's."""
    positions: int
    """Tokens the answer had."""
    kept: int
    """Tokens the line kept (the first ones)."""


def read_comparison(path: Path) -> ResponsesDocument:
    """Read a `k3diff.responses/1` comparison through its one reader, as `report` reads it
    (`k3diff.responses.document`); a samples log given in its place is named as what it is."""
    data = read_bytes(path)
    if looks_like_samples_log(data):
        raise InputError(
            f"{path}: a k3diff.samples/1 log, not a {COMPARISON_SCHEMA} document: give the "
            "comparison first (k3diff responses --format json), then the samples logs"
        )
    return parse_comparison(data, path)


def read_samples(paths: tuple[Path, ...], pool_runs: bool = False) -> SampleLogs:
    """Every sample of every log, in file order, with each log's request parameters, read
    through `k3diff.sample.lines` (one run unless `pool_runs`)."""
    logs = read_samples_logs(paths, pool_runs=pool_runs)
    samples = [
        Sample(
            side=line.side,
            key=line.key,
            mode=line.mode,
            repeat=line.repeat,
            text_xxh3=line.text_xxh3,
            error=line.error,
            request_sha256=line.request_sha256,
            order=(file_index, line.repeat),
            finish_reason=line.finish_reason,
            text=line.text if line.error is None else None,
            trace=_trace(line.trace, f"{log.path}:{number}"),
            batch=None if line.batch is None else f"{file_index}:{line.batch}",
            in_flight=line.in_flight,
            level=line.level,
            sent=line.sent,
            ended=line.ended,
            first_token=line.first_token,
            cached_tokens=_cached(line),
            server_running=line.server_running,
            streams_overlapped=line.streams_overlapped,
            prompt_xxh3=line.prompt_xxh3,
            prompt_preview=line.prompt_preview,
            request_params=line.request_params,
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


def _cached(line: SampleLine) -> int | None:
    """The cached prompt tokens of `usage`, else the server's counter's rise across it."""
    found = cached_tokens(line.usage)
    return line.server_cache_hits if found is None else found


def _side_params(log: SamplesLog) -> Mapping[str, Any]:
    own = log.header.fields.get("side_params")
    return own if isinstance(own, dict) else {}


def _trace(value: Any, where: str) -> Trace | None:
    """The optional `trace` object, checked."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InputError(f"{where}: 'trace' is not an object")
    positions, kept = value.get("positions"), value.get("kept")
    for name, number in (("positions", positions), ("kept", kept)):
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise InputError(f"{where}: 'trace.{name}' is not a non-negative integer")
    assert isinstance(positions, int) and isinstance(kept, int)
    return Trace(
        token_ids=_items(value.get("token_ids"), int, f"{where}: 'trace.token_ids'"),
        tokens=_items(value.get("tokens"), str, f"{where}: 'trace.tokens'"),
        margins=_margins(value.get("margins"), f"{where}: 'trace.margins'"),
        positions=positions,
        kept=kept,
    )


def _items(value: Any, kind: type[Any], what: str) -> tuple[Any, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(
        isinstance(item, kind) and not isinstance(item, bool) for item in value
    ):
        raise InputError(f"{what} is not a list of {kind.__name__}")
    return tuple(value)


def _margins(value: Any, what: str) -> tuple[float | None, ...] | None:
    if value is None:
        return None
    ok = isinstance(value, list) and all(
        item is None
        or (isinstance(item, int | float) and not isinstance(item, bool) and math.isfinite(item))
        for item in value
    )
    if not ok:
        raise InputError(f"{what} is not a list of numbers and nulls")
    return tuple(None if item is None else float(item) for item in value)
