"""`samples.jsonl` (`k3diff.samples/1`): the line types, their writer and the one reader.

A log is a header line `{"schema": "k3diff.samples/1", "run": {...}}`, then one `SampleLine` a
line; `sample --resume` adds a marker `{"schema": ..., "resumed": TIME}` where it continued.
`k3diff sample` writes it, and `sample --resume`, `triage` and `report` read it here, with one
error dialect (`FILE:LINE: problem`, exit 2) and one set of rules:

- a line is one JSON object; the fields a reader relies on are checked (side, key, mode among the
  known modes and the run's modes, repeat below the run's repeats, the text's digest, usage
  counts that are non-negative integers or recorded as invalid);
- (side, key, mode, repeat) appears once in a run: a repeated sample is refused;
- a second header line (two logs concatenated) is refused;
- a last line without its newline is torn (a run killed mid-write): `--resume` drops it and says
  so; every other reader refuses the log until it is resumed.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from pathlib import Path
from typing import Any

from k3diff import bounded, jsontext
from k3diff.errors import InputError
from k3diff.ids import SAMPLES as SCHEMA
from k3diff.responses.model import text_digest
from k3diff.sample.proof import PROOFS

SIDES = ("base", "patch")
MAX_LOG_BYTES = 4 << 30
"""Largest log read (4 GiB): a bigger file is refused rather than read into memory."""
MAX_COUNT = 2**53 - 1
"""Largest usage count accepted (JSON's exact-integer range); larger ones are invalid."""


def _encode(value: Any) -> str:
    """Compact RFC 8259 JSON: a server's NaN or infinity is written as a string."""
    return jsontext.dumps(value, separators=(",", ":"))


class Mode(StrEnum):
    """How identical requests are sent (the `mode` of every sample)."""

    SERIAL = "serial"
    """One request in flight across both servers: the batch-1 oracle."""
    CONCURRENT = "concurrent"
    """C identical requests in flight together."""
    LOADED = "loaded"
    """The target request while C-1 other prompts keep the server busy."""
    COLD_WARM = "cold-warm"
    """Per prompt a cold request (after `--flush-url`, else under a fresh `cache_salt`), then
    the other repeats warm: identical, the same salt; repeat 0 is the cold one. Each sample's
    cached prompt tokens come from its `usage`; warm samples with no cache hit are
    `not-exercised`."""
    SWEEP = "sweep"
    """Concurrency levels (`--levels`): at each level L the repeats go out in batches of L
    identical requests; each sample records its `level` (repeat numbers run on across levels:
    level index × repeats + r)."""
    NEEDLE = "needle"
    """Each repeat (a trial) sends the target at a random position in a batch of random size in
    [C/2, C] whose other requests are long filler prompts (not logged)."""
    MIXED = "mixed"
    """As needle, the target co-batched with prompts of random lengths."""
    CONTROL = "control"
    """`--control`: the first prompt K times at temperature 1 with distinct seeds (and, for
    `nonce`, a random suffix): if all K come back identical the run is vacuous (sampling
    parameters ignored, or a cache or proxy answering). Never a `--mode` of its own."""


MODES = tuple(mode.value for mode in Mode)
SAMPLING_MODES = tuple(mode.value for mode in Mode if mode is not Mode.CONTROL)
"""The modes `--mode` offers (the control is asked for with `--control`)."""


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
    """A streamed answer's other streams to the same server (logged or load) proven generated
    together with it: each received at least two token chunks while the other's window was open
    (`k3diff.sample.overlap`); None for a whole answer and in logs written before it."""
    overlap_proof: str | None = None
    """What this sample's batch can be judged exercised by (`Proof`): `gauge` (the server's
    running-requests gauge was read while it was in flight), `token-windows` (a streamed
    answer), or `unproven` (a whole answer without a gauge: the client cannot tell); None for
    serial samples and in logs written before it."""
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
    others and when the server exposes none (`k3diff.sample.spec`)."""
    spec_meta: Mapping[str, Any] | None = None
    """SGLang: the speculation fields of the answer's `meta_info` as sent (`spec_verify_ct`,
    `spec_accept_token_num`, `spec_draft_token_num`, `spec_accept_histogram`), only those sent
    as valid counts; None when the answer carries none."""

    @property
    def ident(self) -> tuple[str, str, str, int]:
        """(side, key, mode, repeat): unique within a run."""
        return (self.side, self.key, self.mode, self.repeat)


@dataclass(frozen=True)
class RunHeader:
    """The header's `run` object: what the run was asked to do."""

    fields: Mapping[str, Any]
    """The whole `run` object as written (command, servers, modes, parameters, times, ...)."""
    run_id: str | None
    """The run's identity (kept by `--resume`); None in logs written before run ids."""
    prompts_sha256: str | None
    """SHA-256 of the prompts file the run read."""
    sides: tuple[str, ...] | None
    """The sides the run sampled (from `servers`), None when the header does not say."""
    modes: tuple[str, ...] | None
    """The modes the run was asked for, None when the header does not say."""
    repeats: int | None
    """Samples per record, side and mode, None when the header does not say."""

    @property
    def identity(self) -> str:
        """What tells runs apart: the run id, or for older logs a digest of the header."""
        if self.run_id is not None:
            return self.run_id
        canonical = json.dumps(self.fields, sort_keys=True, separators=(",", ":"), default=str)
        return "header-" + hashlib.sha256(canonical.encode()).hexdigest()[:16]

    @property
    def params(self) -> Mapping[str, Any] | None:
        """The request parameters (`--param`), None when the header has none."""
        value = self.fields.get("params")
        return value if isinstance(value, dict) else None


@dataclass(frozen=True)
class SamplesLog:
    """A sample log as read."""

    path: str
    """The file as the user named it."""
    header: RunHeader
    """The run the log belongs to."""
    samples: tuple[SampleLine, ...]
    """Every sample line, in file order."""
    lines: tuple[int, ...]
    """The line number of each sample."""
    resumed: tuple[str, ...]
    """When the run was resumed, once per `--resume`."""
    torn: bool
    """The file ended in a torn (unterminated) line, which was not read."""
    valid_bytes: int
    """Length of the file up to its last complete line."""


# ---------------------------------------------------------------------------------- writer


def header_line(run: Mapping[str, Any]) -> bytes:
    """The first line of a log."""
    return _encode({"schema": SCHEMA, "run": dict(run)}).encode() + b"\n"


def resumed_line(when: str) -> bytes:
    """The marker `--resume` appends before its first sample."""
    return _encode({"schema": SCHEMA, "resumed": when}).encode() + b"\n"


def encode_line(sample: SampleLine) -> bytes:
    """One sample's line (fields in contract order; `usage_invalid` only when set)."""
    return _encode(line_dict(sample)).encode() + b"\n"


def checked_usage(value: Any) -> tuple[dict[str, Any] | None, str | None]:
    """(usage, None) when every count is a non-negative integer, else (None, why): a server's
    invalid usage is recorded as invalid, never silently kept or dropped."""
    if value is None:
        return None, None
    problem = _usage_problem(value, "usage")
    if problem is not None:
        return None, problem
    assert isinstance(value, dict)
    return value, None


def _usage_problem(value: Any, where: str) -> str | None:
    if not isinstance(value, dict):
        return f"{where} is {_shown(value)}, not an object of counts"
    for name, item in value.items():
        if isinstance(item, dict):
            problem = _usage_problem(item, f"{where}.{name}")
            if problem is not None:
                return problem
        elif item is not None and not _is_count(item):
            return f"{where}.{name} is {_shown(item)}, not a non-negative integer count"
    return None


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


def server_count(value: Any) -> int | None:
    """A count as a server reported it: a non-negative integer up to MAX_COUNT; None for
    anything else (a bool, a float, a negative or huge number, a string): not reported."""
    return value if _is_count(value) else None


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True, default=str)
    return text if len(text) <= 40 else text[:39] + "…"


# ---------------------------------------------------------------------------------- reader


def read_samples_log(path: Path, *, drop_torn: bool = False) -> SamplesLog:
    """Read and check one log. A torn last line is dropped with `drop_torn` (resume), else the
    log is refused."""
    return parse_samples_log(_read_bytes(path), path, drop_torn=drop_torn)


def parse_samples_log(data: bytes, path: Path, *, drop_torn: bool = False) -> SamplesLog:
    """`read_samples_log` of a log's bytes already read (`path` names it in messages)."""
    end = data.rfind(b"\n") + 1
    torn = end != len(data)
    lines = data[:end].split(b"\n")[:-1] if end else []
    if torn and not drop_torn:
        raise InputError(
            f"{path}:{len(lines) + 1}: torn last line (a run killed mid-write); "
            "'k3diff sample --resume' with the run's options drops it and continues"
        )
    if not lines:
        raise InputError(f"{path}: empty; expected a {SCHEMA} header line")
    _refuse_other_document(data, lines[0], path)
    header = _header(_parse(lines[0], path, 1), f"{path}:1")
    samples: list[SampleLine] = []
    numbers: list[int] = []
    resumed: list[str] = []
    seen: dict[tuple[str, str, str, int], int] = {}
    for number, raw in enumerate(lines[1:], start=2):
        if not raw.strip():
            continue
        value = _parse(raw, path, number)
        where = f"{path}:{number}"
        if "schema" in value:
            resumed.append(_marker(value, where))
            continue
        sample = _sample(value, where, header)
        if sample.ident in seen:
            raise InputError(
                f"{where}: repeat {sample.repeat} of {sample.side} {sample.key!r} "
                f"({sample.mode}) already on line {seen[sample.ident]}"
            )
        seen[sample.ident] = number
        samples.append(sample)
        numbers.append(number)
    return SamplesLog(str(path), header, tuple(samples), tuple(numbers), tuple(resumed), torn, end)


def _refuse_other_document(data: bytes, first: bytes, path: Path) -> None:
    """A whole JSON document (another command's output) given where a log is wanted is named
    as what it is, not reported as a line that is "not JSON"."""
    if first.strip() not in (b"{", b"[") and not first.lstrip().startswith(b"{\n"):
        return
    try:
        value = bounded.loads(data, str(path))
    except (json.JSONDecodeError, UnicodeDecodeError, InputError):
        return
    schema = value.get("schema") if isinstance(value, dict) else None
    what = f"a {schema} document" if isinstance(schema, str) else "a JSON document"
    raise InputError(
        f"{path}: {what}, not a {SCHEMA} log; give the samples.jsonl that 'k3diff sample "
        "--out DIR' wrote"
    )


def looks_like_samples_log(data: bytes) -> bool:
    """The first line is a `k3diff.samples/1` header (how readers of several kinds tell a log)."""
    first = data.split(b"\n", 1)[0]
    try:
        value = bounded.loads(first, "first line")
    except (json.JSONDecodeError, UnicodeDecodeError, InputError):
        return False  # not a header; the document reader then names the problem
    return isinstance(value, dict) and value.get("schema") == SCHEMA


def _read_bytes(path: Path) -> bytes:
    """The log's bytes through the capped reader (regular files only, every line under the
    record cap, the whole under the document cap and MAX_LOG_BYTES)."""
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give DIR/samples.jsonl")
    data = bounded.read_document(path, str(path), "samples log")
    if len(data) > MAX_LOG_BYTES:
        raise InputError(f"{path}: larger than the {MAX_LOG_BYTES >> 30} GiB a sample log may be")
    return data


def _parse(line: bytes, path: Path, number: int) -> dict[str, Any]:
    try:
        value = bounded.loads(line, f"{path}:{number}")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}:{number}: not UTF-8") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{number}: not JSON ({exc.msg})") from exc
    if not isinstance(value, dict):
        raise InputError(f"{path}:{number}: not a JSON object")
    return value


def _header(value: Mapping[str, Any], where: str) -> RunHeader:
    if value.get("schema") != SCHEMA:
        raise InputError(
            f"{where}: not a {SCHEMA} log (first line schema: {value.get('schema')!r})"
        )
    run = value.get("run")
    if not isinstance(run, dict):
        raise InputError(f"{where}: header has no 'run' object")
    return RunHeader(
        fields=run,
        run_id=_optional_string(run, "run_id", where),
        prompts_sha256=_optional_string(run, "prompts_sha256", where),
        sides=_sides(run, where),
        modes=_modes(run, where),
        repeats=_repeats(run, where),
    )


def _optional_string(run: Mapping[str, Any], name: str, where: str) -> str | None:
    value = run.get(name)
    if value is not None and (not isinstance(value, str) or not value):
        raise InputError(f"{where}: header 'run.{name}' is not a non-empty string")
    return value


def _sides(run: Mapping[str, Any], where: str) -> tuple[str, ...] | None:
    servers = run.get("servers")
    if servers is None:
        return None
    if not isinstance(servers, dict) or not isinstance(servers.get("base"), str):
        raise InputError(f"{where}: header 'run.servers' has no base URL")
    return tuple(side for side in SIDES if servers.get(side) is not None)


def _modes(run: Mapping[str, Any], where: str) -> tuple[str, ...] | None:
    modes = run.get("modes")
    if modes is None:
        return None
    if not isinstance(modes, list) or not all(m in MODES for m in modes):
        raise InputError(
            f"{where}: header 'run.modes' is {_shown(modes)}; known modes: {', '.join(MODES)}"
        )
    return tuple(modes)


def _repeats(run: Mapping[str, Any], where: str) -> int | None:
    repeats = run.get("repeats")
    if repeats is None:
        return None
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise InputError(f"{where}: header 'run.repeats' is not a positive integer")
    return repeats


def _marker(value: Mapping[str, Any], where: str) -> str:
    if "run" in value:
        raise InputError(
            f"{where}: a second header line: two logs concatenated into one; give each "
            "run's samples.jsonl as written"
        )
    when = value.get("resumed")
    if value.get("schema") != SCHEMA or not isinstance(when, str):
        raise InputError(f"{where}: a schema line that is not a {SCHEMA} resume marker")
    return when


def _string(value: Mapping[str, Any], name: str, where: str) -> str:
    item = value.get(name)
    if not isinstance(item, str) or not item:
        raise InputError(f"{where}: '{name}' is missing or not a non-empty string")
    return item


def _nullable(value: Mapping[str, Any], name: str, kind: type, where: str) -> Any:
    item = value.get(name)
    if item is not None and (not isinstance(item, kind) or isinstance(item, bool)):
        raise InputError(f"{where}: '{name}' is neither null nor a {kind.__name__}")
    return item


def _sample(value: Mapping[str, Any], where: str, header: RunHeader) -> SampleLine:
    side = _string(value, "side", where)
    if side not in SIDES:
        raise InputError(f"{where}: 'side' is {side!r}, expected base or patch")
    if header.sides is not None and side not in header.sides:
        raise InputError(f"{where}: a {side} sample, but the run sampled no {side} server")
    key = value.get("key")
    if not isinstance(key, str):
        raise InputError(f"{where}: 'key' is missing or not a string")
    mode = _string(value, "mode", where)
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
    error = _nullable(value, "error", str, where)
    text = _nullable(value, "text", str, where)
    digest = None if error is not None else _checked_digest(value, text, where)
    usage, usage_invalid = _usage(value, where)
    return SampleLine(
        side=side,
        key=key,
        mode=mode,
        repeat=repeat,
        request_sha256=_string(value, "request_sha256", where),
        status=_nullable(value, "status", int, where),
        text=text,
        text_xxh3=digest,
        token_ids_xxh3=_nullable(value, "token_ids_xxh3", str, where),
        finish_reason=_nullable(value, "finish_reason", str, where),
        usage=usage,
        latency_s=_latency(value, where),
        fingerprint=_nullable(value, "fingerprint", str, where),
        error=error,
        attempts=_attempts(value, where),
        started=value.get("started")
        if isinstance(value.get("started"), int | float | str)
        else None,
        usage_invalid=usage_invalid,
        trace=_trace(value, where),
        sent=_time(value, "sent", where),
        first_byte=_time(value, "first_byte", where),
        first_token=_time(value, "first_token", where),
        ended=_time(value, "ended", where),
        batch=_nullable(value, "batch", str, where),
        level=_level(value, where),
        in_flight=_in_flight(value, where),
        server_running=_optional_count(value, "server_running", where),
        server_cache_hits=_optional_count(value, "server_cache_hits", where),
        streams_overlapped=_optional_count(value, "streams_overlapped", where),
        overlap_proof=_proof(value, where),
        prompt_xxh3=_nullable(value, "prompt_xxh3", str, where),
        prompt_preview=_nullable(value, "prompt_preview", str, where),
        request_params=_params(value, where),
        server_spec=_spec_counts(value, "server_spec", where),
        spec_meta=_spec_counts(value, "spec_meta", where),
    )


def _proof(value: Mapping[str, Any], where: str) -> str | None:
    item = value.get("overlap_proof")
    if item is not None and item not in PROOFS:
        raise InputError(
            f"{where}: 'overlap_proof' is {_shown(item)}; expected one of {', '.join(PROOFS)}"
        )
    return item


def _params(value: Mapping[str, Any], where: str) -> Mapping[str, Any] | None:
    item = value.get("request_params")
    if item is not None and not isinstance(item, dict):
        raise InputError(f"{where}: 'request_params' is neither null nor an object")
    return item


MAX_SPEC_POSITIONS = 64
"""Longest per-position list a `server_spec` or `spec_meta` field holds."""


def _spec_counts(value: Mapping[str, Any], name: str, where: str) -> Mapping[str, Any] | None:
    """An object of server counts: each value a count or a list of at most
    MAX_SPEC_POSITIONS counts."""
    item = value.get(name)
    if item is None:
        return None
    if not isinstance(item, dict):
        raise InputError(f"{where}: '{name}' is not an object")
    for field, count in item.items():
        counts = count if isinstance(count, list) else [count]
        if len(counts) > MAX_SPEC_POSITIONS or not all(_is_count(c) for c in counts):
            raise InputError(
                f"{where}: '{name}.{field}' is neither a non-negative integer nor a list of "
                f"at most {MAX_SPEC_POSITIONS}"
            )
    return item


def _optional_count(value: Mapping[str, Any], name: str, where: str) -> int | None:
    item = value.get(name)
    if item is not None and not _is_count(item):
        raise InputError(f"{where}: '{name}' is neither null nor a non-negative integer")
    return item


def _time(value: Mapping[str, Any], name: str, where: str) -> float | None:
    item = value.get(name)
    if item is None:
        return None
    if isinstance(item, bool) or not isinstance(item, int | float) or not 0 <= item < math.inf:
        raise InputError(f"{where}: '{name}' is neither null nor a non-negative time: {item!r}")
    return float(item)


def _level(value: Mapping[str, Any], where: str) -> int | None:
    item = value.get("level")
    if item is not None and (not _is_count(item) or item < 1):
        raise InputError(f"{where}: 'level' is neither null nor a positive integer")
    return item


def _in_flight(value: Mapping[str, Any], where: str) -> int | None:
    item = value.get("in_flight")
    if item is not None and (not _is_count(item)):
        raise InputError(f"{where}: 'in_flight' is neither null nor a non-negative integer")
    return item


def _trace(value: Mapping[str, Any], where: str) -> Mapping[str, Any] | None:
    trace = value.get("trace")
    if trace is not None and not isinstance(trace, dict):
        raise InputError(f"{where}: 'trace' is not an object")
    return trace


def _checked_digest(value: Mapping[str, Any], text: str | None, where: str) -> str:
    """The text's digest of a successful sample, checked against the text when present."""
    digest = value.get("text_xxh3")
    if not isinstance(digest, str):
        raise InputError(f"{where}: a successful sample ('error': null) without 'text_xxh3'")
    if text is not None and text_digest(text) != digest:
        raise InputError(f"{where}: 'text_xxh3' is not the xxh3-128 of 'text'")
    return digest


def _usage(value: Mapping[str, Any], where: str) -> tuple[Mapping[str, Any] | None, str | None]:
    invalid = _nullable(value, "usage_invalid", str, where)
    usage = value.get("usage")
    if invalid is not None and usage is not None:
        raise InputError(f"{where}: 'usage' recorded although 'usage_invalid' says it was not")
    kept, problem = checked_usage(usage)
    if problem is not None:
        raise InputError(f"{where}: {problem}")
    return kept, invalid


def _latency(value: Mapping[str, Any], where: str) -> float:
    latency = value.get("latency_s", 0.0)
    if (
        isinstance(latency, bool)
        or not isinstance(latency, int | float)
        or not 0 <= latency < math.inf
    ):
        raise InputError(f"{where}: 'latency_s' is not a non-negative number: {latency!r}")
    return float(latency)


def _attempts(value: Mapping[str, Any], where: str) -> int:
    attempts = value.get("attempts", 1)
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
        raise InputError(f"{where}: 'attempts' is not a positive integer: {attempts!r}")
    return attempts


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
    "spec_meta",
)
"""Fields a line holds only when set (logs written before them stay byte-identical)."""


def control_outcome(samples: Sequence[Any]) -> dict[str, tuple[int, int]]:
    """Per side, the control's (successful samples, distinct outputs): anything with `mode`,
    `side` and `text_xxh3`. A side whose control gave >= 2 samples, all identical, is vacuous."""
    outputs: dict[str, list[str]] = {}
    for sample in samples:
        if sample.mode == Mode.CONTROL.value and sample.text_xxh3 is not None:
            outputs.setdefault(sample.side, []).append(sample.text_xxh3)
    return {side: (len(found), len(set(found))) for side, found in outputs.items()}


def vacuous_sides(samples: Sequence[Any]) -> tuple[str, ...]:
    """The sides whose control came back identical (>= 2 successful samples, one output)."""
    found = control_outcome(samples)
    return tuple(
        side for side in SIDES if side in found and found[side][0] >= 2 and found[side][1] == 1
    )
