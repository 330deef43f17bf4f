"""One line of `samples.jsonl` (`k3diff.samples/1`): `SampleLine`, its encoding, and the one
reader of a line (`read_line`), which checks the fields readers rely on: side, key, mode among
the known modes and the run's modes, repeat below the run's repeats, the text's digest, usage
counts that are non-negative integers or recorded as invalid. The log around the lines (header,
resume markers, a torn last line, a repeated sample) is `k3diff.sample.header`'s and
`k3diff.sample.reader`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from k3diff.errors import InputError
from k3diff.sample import linevalues
from k3diff.sample.header import RunHeader, json_line
from k3diff.sample.names import MODES, SIDES, Mode


@dataclass(frozen=True)
class SampleLine:
    """One sample: one request sent and what came back (DESIGN's list, in contract order)."""

    side: str
    """base or patch."""
    key: str
    """The record key (pairs samples with `k3diff responses` records)."""
    mode: str
    """serial, concurrent, loaded, cold-warm, sweep or control (`Mode`)."""
    repeat: int
    """0-based repeat number within side/key/mode."""
    request_sha256: str
    """SHA-256 of the canonical request body (without its per-request `cache_salt`)."""
    status: int | None
    """HTTP status of the last attempt, None when no response arrived."""
    text: str | None
    """Generated text, None when the request failed."""
    text_xxh3: str | None
    """xxh3-128 of the text."""
    token_ids_xxh3: str | None
    """xxh3-128 of the generated token ids when the server returned them."""
    finish_reason: str | None
    """Why generation stopped, as the server said."""
    usage: Mapping[str, Any] | None
    """Token counts the server reported (non-negative integers), None when absent or invalid."""
    latency_s: float
    """Seconds of the last attempt."""
    fingerprint: str | None
    """system_fingerprint."""
    error: str | None
    """None on success, else one line saying what went wrong."""
    attempts: int
    """Attempts made (1 + retries used)."""
    out_of_step: int | None = None
    """Of `attempts`, those whose answer arrived before the request was sent (the server or a
    proxy answered an earlier request more than once): refused, and the request sent again on
    a new connection; absent when none was."""
    model: str | None = None
    """The model the server said it answered as (the answer's `model`; a stream's, all its
    chunks naming one agreeing); None when it named none, the request failed, or older logs."""
    stream_models: list[str] | None = None
    """The models a stream's chunks named, in order, where they disagree (`model` is then
    None: no one model answered); absent otherwise."""
    started: float | str | None = None
    """When the first attempt started (epoch seconds)."""
    usage_invalid: str | None = None
    """Why the server's `usage` was not recorded (a negative, fractional, huge or non-numeric
    count), None when it was valid or absent."""
    trace: Mapping[str, Any] | None = None
    """Token ids, tokens, logprobs and margins when the server sent them (`k3diff.sample.trace`,
    capped at its first positions), None otherwise; the split analysis of `triage` reads it."""
    sent: float | None = None
    """When the last attempt was sent (epoch seconds); None in logs written before timings."""
    first_byte: float | None = None
    """When the first byte of its answer (the headers) arrived; None when none did."""
    first_token: float | None = None
    """When a streamed answer's first token arrived (the first chunk carrying output: where
    its window opens, see `k3diff.sample.overlap`); None for a whole answer, or none came."""
    ended: float | None = None
    """When the request ended (its answer read, or failed)."""
    batch: str | None = None
    """The batch the request went out in (requests meant to be in flight together share it);
    None for serial samples and in logs written before batches."""
    level: int | None = None
    """The concurrency level of a `sweep` sample (None in every other mode)."""
    in_flight: int | None = None
    """The most requests to this side's server being answered together while this one was
    (from first byte to last, itself included; `k3diff.sample.overlap`): 1 means no other
    request overlapped it, 0 that no answer arrived; None in logs written before timings."""
    server_running: int | None = None
    """The largest value of the server's own running-requests gauge (`/metrics`:
    `vllm:num_requests_running`, `sglang:num_running_reqs`, `tgi_batch_current_size`,
    TensorRT-LLM's `numActiveRequests`) read while this request was in flight
    (`k3diff.sample.metrics`); None when the server exposes none or no reading arrived."""
    server_cache_hits: int | None = None
    """cold-warm: how far the server's prefix-cache hit counter (`vllm:prefix_cache_hits`,
    `sglang:cached_tokens`: cached prompt tokens) rose across this request, read from `/metrics`
    just before and after it; None when the server exposes none."""
    streams_overlapped: int | None = None
    """A streamed answer's other streams to the same server (logged or load) that interleaved
    with it at the client: each received at least two token chunks while the other's window was
    open (`k3diff.sample.overlap`). 0 shows the batch was not exercised; more proves nothing
    of the server (a front end pacing a serial engine's answers interleaves them too). None for
    a whole answer and in logs written before it."""
    overlap_proof: str | None = None
    """What this sample's batch can be judged by (`Proof`): `gauge` (the server's
    running-requests gauge was read while it was in flight), `token-windows` (a streamed answer
    that interleaved with no other: not exercised), or `unproven` (without a gauge, a whole
    answer or a stream that interleaved: the client cannot tell); None for serial samples and in
    logs written before it. Logs written before 2026-12-03 say `token-windows` for every
    streamed answer; readers decide from `server_running` and `streams_overlapped`, not from
    this field."""
    prompt_xxh3: str | None = None
    """xxh3-128 of the prompt or messages sent, as `k3diff responses` hashes a captured prompt
    (triage counts a sample only for the record whose prompt it repeats); None in older logs."""
    prompt_preview: str | None = None
    """The prompt's first characters on one line, for messages; None in older logs."""
    request_params: Mapping[str, Any] | None = None
    """The request's fields other than the prompt, model, stream and cache salt (temperature,
    seed, max_tokens, ...): the condition triage checks against the captured request; None in
    older logs."""
    server_spec: Mapping[str, Any] | None = None
    """vLLM: how far the server's speculative-decoding counters (`/metrics`:
    `vllm:spec_decode_num_drafts`, `..._num_draft_tokens`, `..._num_accepted_tokens`,
    `..._num_accepted_tokens_per_pos{position}`) rose across the window of this side's samples
    that this one closed (read before the window's first request was sent and after its last
    ended): `drafts`, `draft_tokens`, `accepted_tokens`, `accepted_per_position` (list by
    position 0..K-1), `samples` (the window's samples); on one sample per window, None on the
    others and when the server exposes none (`k3diff.sample.spec`); also `preemptions`
    (`vllm:num_preemptions`) and `v0_counters` (vLLM V0's series, not read as counts)."""
    server_reset: str | None = None
    """vLLM: the counter that went down across the window this sample closed (a restarted
    server), or UNREAD (a reading before or after the window failed); its `server_spec` then
    holds only `samples`."""
    spec_meta: Mapping[str, Any] | None = None
    """SGLang: the speculation fields of the answer's `meta_info` as sent (`spec_verify_ct`,
    `spec_accept_token_num`, `spec_draft_token_num`, `spec_accept_histogram`), only those sent
    as valid counts; None when the answer carries none."""
    spec_meta_invalid: str | None = None
    """SGLang: why a `meta_info` speculation field the answer sent is no count (negative,
    fractional, a histogram past 64 entries...): the request's counts are lost, not unreported
    (telem67); None when every one sent is a count."""

    load_ended: int | None = None
    """loaded: background requests to this side that ended while this target was in flight
    (`k3diff.sample.load`); None in other modes and older logs."""
    load_failed: int | None = None
    """loaded: of `load_ended`, those that failed (all of them: the batch is unproven)."""
    load_error: str | None = None
    """loaded: the last failed background request's error; None when none failed."""
    cold: bool | None = None
    """cold-warm: True on the first repeat a `--resume` sent of a record (under a fresh salt, or
    after a flush: a cold request, as repeat 0 is); absent otherwise (left67)."""

    @property
    def ident(self) -> tuple[str, str, str, int]:
        """(side, key, mode, repeat): unique within a run."""
        return (self.side, self.key, self.mode, self.repeat)


def encode_line(sample: SampleLine) -> bytes:
    """One sample's line (fields in contract order; `usage_invalid` only when set)."""
    return json_line(line_dict(sample))


def read_line(value: Mapping[str, Any], where: str, header: RunHeader) -> SampleLine:
    """One sample line's object checked against the run's header (`where` is `FILE:LINE`)."""
    side = linevalues.required_string(value, "side", where)
    if side not in SIDES:
        raise InputError(f"{where}: 'side' is {side!r}, expected base or patch")
    if header.sides is not None and side not in header.sides:
        raise InputError(f"{where}: a {side} sample, but the run sampled no {side} server")
    key = value.get("key")
    if not isinstance(key, str):
        raise InputError(f"{where}: 'key' is missing or not a string")
    header.check_asked(key, where)
    mode = linevalues.required_string(value, "mode", where)
    if mode not in MODES:
        raise InputError(f"{where}: 'mode' is {mode!r}; known modes: {', '.join(MODES)}")
    if header.modes is not None and mode not in header.modes:
        raise InputError(
            f"{where}: a {mode} sample, but the run's modes are {', '.join(header.modes)}"
        )
    repeat = value.get("repeat")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 0:
        raise InputError(f"{where}: 'repeat' is not a non-negative integer: {repeat!r}")
    limit = header.repeats
    if mode == Mode.CONTROL.value:
        limit = header.fields.get("control_repeats")
    levels = header.fields.get("levels")
    if mode == Mode.SWEEP.value and isinstance(limit, int) and isinstance(levels, list):
        limit *= len(levels)
    if isinstance(limit, int) and repeat >= limit:
        raise InputError(
            f"{where}: repeat {repeat}, but the run takes {limit} per record, side and mode"
        )
    error = linevalues.nullable(value, "error", str, where)
    text = linevalues.nullable(value, "text", str, where)
    digest = None if error is not None else linevalues.checked_digest(value, text, where)
    usage, usage_invalid = linevalues.usage(value, where)
    return SampleLine(
        side=side,
        key=key,
        mode=mode,
        repeat=repeat,
        request_sha256=linevalues.required_string(value, "request_sha256", where),
        status=linevalues.status(value, where, error is not None),
        text=text,
        text_xxh3=digest,
        token_ids_xxh3=linevalues.nullable(value, "token_ids_xxh3", str, where),
        finish_reason=linevalues.nullable(value, "finish_reason", str, where),
        usage=usage,
        latency_s=linevalues.latency(value, where),
        fingerprint=linevalues.nullable(value, "fingerprint", str, where),
        model=linevalues.nullable(value, "model", str, where),
        stream_models=linevalues.strings(value, "stream_models", where),
        error=error,
        attempts=linevalues.attempts(value, where),
        out_of_step=linevalues.optional_count(value, "out_of_step", where),
        started=value.get("started")
        if isinstance(value.get("started"), int | float | str)
        else None,
        usage_invalid=usage_invalid,
        trace=linevalues.trace(value, where),
        sent=linevalues.time(value, "sent", where),
        first_byte=linevalues.time(value, "first_byte", where),
        first_token=linevalues.time(value, "first_token", where),
        ended=linevalues.time(value, "ended", where),
        batch=linevalues.nullable(value, "batch", str, where),
        level=linevalues.level(value, where),
        in_flight=linevalues.in_flight(value, where),
        server_running=linevalues.optional_count(value, "server_running", where),
        server_cache_hits=linevalues.optional_count(value, "server_cache_hits", where),
        streams_overlapped=linevalues.optional_count(value, "streams_overlapped", where),
        overlap_proof=linevalues.overlap_proof(value, where),
        prompt_xxh3=linevalues.nullable(value, "prompt_xxh3", str, where),
        prompt_preview=linevalues.nullable(value, "prompt_preview", str, where),
        request_params=linevalues.request_params(value, where),
        server_spec=linevalues.spec_counts(value, "server_spec", where),
        server_reset=linevalues.nullable(value, "server_reset", str, where),
        spec_meta=linevalues.spec_counts(value, "spec_meta", where),
        spec_meta_invalid=linevalues.nullable(value, "spec_meta_invalid", str, where),
        load_ended=linevalues.optional_count(value, "load_ended", where),
        load_failed=linevalues.optional_count(value, "load_failed", where),
        load_error=linevalues.nullable(value, "load_error", str, where),
        cold=linevalues.cold(value, mode, where),
    )


_LINE_FIELDS = tuple(f.name for f in fields(SampleLine))


def line_dict(sample: SampleLine) -> dict[str, Any]:
    """A sample as the JSON object its line holds (shallow: one line per request is written,
    so no deep copy)."""
    line = {name: getattr(sample, name) for name in _LINE_FIELDS}
    if sample.usage_invalid is None:
        del line["usage_invalid"]
    for name in _OPTIONAL_FIELDS:
        if line[name] is None:
            del line[name]
    return line


_OPTIONAL_FIELDS = (
    "out_of_step",
    "model",
    "stream_models",
    "trace",
    "sent",
    "first_byte",
    "first_token",
    "ended",
    "batch",
    "level",
    "in_flight",
    "server_running",
    "server_cache_hits",
    "streams_overlapped",
    "overlap_proof",
    "prompt_xxh3",
    "prompt_preview",
    "request_params",
    "server_spec",
    "server_reset",
    "spec_meta",
    "spec_meta_invalid",
    "load_ended",
    "load_failed",
    "load_error",
    "cold",
)
"""Fields a line holds only when set (logs written before them stay byte-identical)."""
