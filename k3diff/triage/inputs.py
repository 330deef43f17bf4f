"""Reads the two documents triage joins: a `k3diff.responses/1` comparison and `k3diff.samples/1`
sample logs (read by `k3diff.sample.lines`, the one reader of that log).

Both readers check everything they rely on and fail with one line naming the file (and the line
or record) and the problem. Fields they do not use are ignored, so documents may grow.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k3diff import bounded
from k3diff.errors import InputError
from k3diff.ids import RESPONSES as COMPARISON_SCHEMA
from k3diff.sample.lines import SIDES, SampleLine, SamplesLog, looks_like_samples_log
from k3diff.sample.runs import read_samples_logs
from k3diff.telemetry.summarize import cached_tokens
from k3diff.triage.traces import Trace, read_trace


@dataclass(frozen=True)
class ComparedRecord:
    """One key of the comparison, reduced to what triage uses."""

    key: str
    """The pairing key (the samples' `key`)."""
    status: str
    """The comparison's status for the key (text-differs, match, only-base, error, ...)."""
    base_present: bool
    """The base file has the record."""
    patch_present: bool
    """The patch file has the record."""
    base_xxh3: str | None
    """xxh3-128 of the captured base text (None when absent or failed)."""
    patch_xxh3: str | None
    """xxh3-128 of the captured patch text."""
    divergence_gaps: tuple[float, ...]
    """|gap| at the first divergence (the sampled token's logprob minus the best other token's,
    the larger side); in documents without it, each side's top-1 minus top-2 gap."""
    label: str | None = None
    """How the user names the record (the comparison's `label`), when it has one."""
    prompt_preview: str | None = None
    """The prompt's first characters, as the comparison shows them."""
    prompts: Mapping[str, str] = field(default_factory=dict)
    """Per side, the xxh3-128 of its captured prompt (sides whose record holds one)."""
    conditions: Mapping[str, CapturedCondition] = field(default_factory=dict)
    """Per side, its captured request's condition (sides whose record shows one)."""


@dataclass(frozen=True)
class CapturedCondition:
    """A captured request's condition, as far as the record shows it."""

    route: str | None
    """chat or completions (None: the record does not say)."""
    stream: bool | None
    """Whether the request asked for a stream (None: the record does not say)."""
    params: Mapping[str, Any] | None
    """The request's fields but prompt, model and stream (None: not recorded)."""
    complete: bool
    """The whole request body was recorded: a field absent from `params` was not sent."""


@dataclass(frozen=True)
class Comparison:
    """A `k3diff.responses/1` document."""

    path: str
    """The file as the user named it."""
    records: tuple[ComparedRecord, ...]
    """Every key, in document order."""
    pairing: str | None = None
    """How `k3diff responses` paired the records (field, id, prompt-hash, order), when recorded."""
    pairing_field: str | None = None
    """The `--key` field, when paired by one."""


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


def _load_json(path: Path) -> Any:
    if not path.exists():
        raise InputError(f"{path}: no such file")
    data = bounded.read_document(path, str(path), "k3diff responses --format json document")
    try:
        return bounded.loads(data, str(path))
    except json.JSONDecodeError as exc:
        if looks_like_samples_log(data):
            raise InputError(
                f"{path}: a k3diff.samples/1 log, not a {COMPARISON_SCHEMA} document: give the "
                "comparison first (k3diff responses --format json), then the samples logs"
            ) from exc
        raise InputError(
            f"{path}:{exc.lineno}: not JSON ({exc.msg}); expected the output of "
            "'k3diff responses BASE PATCH --format json'"
        ) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 JSON") from exc


def read_comparison(path: Path) -> Comparison:
    """Read and check a `k3diff.responses/1` document."""
    document = _load_json(path)
    if not isinstance(document, dict) or document.get("schema") != COMPARISON_SCHEMA:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        raise InputError(f"{path}: not a {COMPARISON_SCHEMA} document (schema: {found!r})")
    records = document.get("records")
    if not isinstance(records, list):
        raise InputError(f"{path}: 'records' is missing or not a list")
    seen: set[str] = set()
    parsed = []
    for index, raw in enumerate(records):
        record = _compared_record(raw, f"{path}: records[{index}]")
        if record.key in seen:
            raise InputError(f"{path}: records[{index}]: key {record.key!r} appears twice")
        seen.add(record.key)
        parsed.append(record)
    pairing = document.get("pairing")
    pairing = pairing if isinstance(pairing, dict) else {}
    mode, field = pairing.get("key"), pairing.get("field")
    return Comparison(
        path=str(path),
        records=tuple(parsed),
        pairing=mode if isinstance(mode, str) else None,
        pairing_field=field if isinstance(field, str) else None,
    )


def _side_digest(raw: Mapping[str, Any], side: str, where: str) -> tuple[bool, str | None]:
    value = raw.get(side)
    if value is None:
        return False, None
    if not isinstance(value, dict):
        raise InputError(f"{where}: '{side}' is not an object or null")
    digest = value.get("text_xxh3")
    if digest is not None and not isinstance(digest, str):
        raise InputError(f"{where}: '{side}.text_xxh3' is not a string")
    return True, digest


def _divergence_gaps(raw: Mapping[str, Any], where: str) -> tuple[float, ...]:
    divergence = raw.get("divergence")
    logprobs = divergence.get("logprobs") if isinstance(divergence, dict) else None
    if not isinstance(logprobs, dict):
        return ()
    labelled = logprobs.get("gap")
    if isinstance(logprobs.get("label"), str) and isinstance(labelled, int | float):
        if isinstance(labelled, bool) or not math.isfinite(labelled):
            raise InputError(f"{where}: divergence.logprobs.gap is not a number: {labelled!r}")
        return (abs(float(labelled)),)
    gaps = []
    for side in SIDES:
        point = logprobs.get(side)
        gap = point.get("gap") if isinstance(point, dict) else None
        if gap is None:
            continue
        if isinstance(gap, bool) or not isinstance(gap, int | float) or not math.isfinite(gap):
            raise InputError(f"{where}: divergence.logprobs.{side}.gap is not a number: {gap!r}")
        gaps.append(float(gap))
    return tuple(gaps)


def _compared_record(raw: Any, where: str) -> ComparedRecord:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: not an object")
    key, status = raw.get("key"), raw.get("status")
    if not isinstance(key, str):
        raise InputError(f"{where}: 'key' is missing or not a string")
    if not isinstance(status, str):
        raise InputError(f"{where} (key {key!r}): 'status' is missing or not a string")
    base_present, base_xxh3 = _side_digest(raw, "base", where)
    patch_present, patch_xxh3 = _side_digest(raw, "patch", where)
    preview = raw.get("prompt_preview")
    return ComparedRecord(
        key=key,
        status=status,
        base_present=base_present,
        patch_present=patch_present,
        base_xxh3=base_xxh3,
        patch_xxh3=patch_xxh3,
        divergence_gaps=_divergence_gaps(raw, where),
        label=raw.get("label") if isinstance(raw.get("label"), str) else None,
        prompt_preview=preview if isinstance(preview, str) else None,
        prompts={
            side: digest
            for side in SIDES
            if isinstance(raw.get(side), dict)
            and isinstance(digest := raw[side].get("prompt_xxh3"), str)
        },
        conditions={
            side: condition
            for side in SIDES
            if isinstance(raw.get(side), dict)
            and (condition := _condition(raw[side].get("request"), f"{where}.{side}")) is not None
        },
    )


def _condition(value: Any, where: str) -> CapturedCondition | None:
    """A side's `request` object, checked."""
    if value is None:
        return None
    route, stream, params = (
        value.get(name) if isinstance(value, dict) else None
        for name in ("route", "stream", "params")
    )
    if (
        not isinstance(value, dict)
        or route not in ("chat", "completions", None)
        or not isinstance(stream, bool | None)
        or not isinstance(params, dict | None)
    ):
        raise InputError(f"{where}: 'request' is not a request condition object")
    return CapturedCondition(route, stream, params, value.get("complete") is True)


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
            trace=read_trace(line.trace, f"{log.path}:{number}"),
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
