"""Takes one sample: build the request, send it, append the sample line, count it."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import httpx

from k3diff.errors import without_credentials
from k3diff.responses.parts import canonical, request_params
from k3diff.responses.shapes import preview
from k3diff.sample.adaptive import Tally
from k3diff.sample.client import SamplerClient
from k3diff.sample.lines import SampleLine
from k3diff.sample.load import LoadTally, LoadWindow
from k3diff.sample.log import PerfLog, SampleLog
from k3diff.sample.metrics import Fetch, SideMetrics, Watch, cache_count
from k3diff.sample.model import Outcome, PromptRecord
from k3diff.sample.names import Mode
from k3diff.sample.overlap import Receiving, Timing
from k3diff.sample.perfdrain import drained
from k3diff.sample.prompts import prompt_digest
from k3diff.sample.proof import line_proof
from k3diff.sample.spec import SpecWindow, probe_spec
from k3diff.sample.usage import sampled_usage

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)

SampleId = tuple[str, str, str, int]
"""(side, key, mode, repeat): unique in a log."""


def request_sha256(body: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a request body, without its per-request `cache_salt`."""
    stable = {k: v for k, v in body.items() if k != "cache_salt"}
    return hashlib.sha256(_CANONICAL.encode(stable).encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class RequestFacts:
    """What a sample line says of its request: the prompt (digest and preview) and the
    condition (every field but the prompt, model, stream and cache salt)."""

    prompt_xxh3: str | None
    """xxh3-128 of the prompt or messages, as `k3diff responses` hashes a captured prompt."""
    prompt_preview: str | None
    """The prompt's first characters on one line."""
    params: dict[str, Any]
    """The request's other fields (temperature, seed, max_tokens, stop, ...)."""


def request_facts(body: dict[str, Any]) -> RequestFacts:
    """The prompt and condition of a request body."""
    prompt = body.get("messages", body.get("prompt"))
    text = None if prompt is None else prompt if isinstance(prompt, str) else canonical(prompt)
    return RequestFacts(
        prompt_xxh3=None if prompt is None else prompt_digest(prompt),
        prompt_preview=None if text is None else preview(text),
        params={k: v for k, v in request_params(body).items() if k != "cache_salt"},
    )


@dataclass(frozen=True)
class Counts:
    """Progress so far, for the live progress line."""

    done: int
    total: int
    errors: int
    unstable: int
    """Record/side/mode slots with two or more distinct outputs."""


class Sampler:
    """Shared state of one run: where to send, what is done, what was seen."""

    def __init__(
        self,
        client: SamplerClient,
        log: SampleLog,
        urls: dict[str, str],
        bodies: dict[tuple[str, str], dict[str, Any]],
        stream: bool,
        cache_salt: bool,
        done: set[SampleId],
        tally: Tally,
        total: int,
        progress: Callable[[Counts], None] | None,
    ) -> None:
        self.client = client
        self.log = log
        self.urls = urls
        self._bodies = bodies
        self._stream = stream
        self._cache_salt = cache_salt
        self.done = done
        self.tally = tally
        self.total = total
        self.taken_now = 0
        self._progress = progress
        self.perf: PerfLog | None = None
        self.perf_sides: set[str] = set()
        self.perf_roots: dict[str, str] = {}
        self.flush_url: str | None = None
        self._prepared: dict[tuple[str, str], tuple[httpx.Request, str]] = {}
        self._request_facts: dict[tuple[str, str], RequestFacts] = {}
        self.receiving = Receiving()
        """The answers being received now, per side (load requests included)."""
        self.metrics: dict[str, SideMetrics] = {}
        """Per side, what its `/metrics` exposes (`k3diff.sample.metrics`)."""
        self.watches: dict[str, Watch] = {}
        """Per side exposing a running-requests gauge, its poller."""
        self.fetch_metrics: Fetch | None = None
        self.load = LoadTally()
        """Background requests of loaded mode that ended, per side (`k3diff.sample.load`)."""
        self.spec_windows: dict[str, SpecWindow] = {}
        """Per side exposing vLLM's speculative-decoding counters, its windows
        (`k3diff.sample.spec`)."""

    async def watch_spec(self) -> None:
        """Read vLLM's speculative-decoding counters around each window of samples on every
        side whose `/metrics` exposes them (after `watch_metrics`)."""
        if self.fetch_metrics is None:
            return
        for side, metrics in self.metrics.items():
            if await probe_spec(self.fetch_metrics, metrics.url):
                self.spec_windows[side] = SpecWindow(self.fetch_metrics, metrics.url)

    def watch_metrics(self, fetch: Fetch, found: dict[str, SideMetrics]) -> None:
        """Poll the running-requests gauge of each side exposing one while its batches are in
        flight, and read the prefix-cache counter around each cold-warm request."""
        self.fetch_metrics = fetch
        self.metrics = found
        self.watches = {
            side: Watch(fetch, metrics.url)
            for side, metrics in found.items()
            if metrics.running is not None
        }

    async def _cache_count(self, side: str, mode: str) -> int | None:
        metrics = self.metrics.get(side)
        if mode != Mode.COLD_WARM.value or metrics is None or metrics.cache is None:
            return None
        assert self.fetch_metrics is not None
        return await cache_count(self.fetch_metrics, metrics.url)

    def body(self, side: str, record: PromptRecord) -> dict[str, Any]:
        """The request body for `record` on `side` (a fresh cache_salt when asked)."""
        body = self._bodies[(side, record.key)]
        if self._cache_salt:
            body = {**body, "cache_salt": uuid.uuid4().hex}
        return body

    def base_body(self, side: str, record: PromptRecord) -> dict[str, Any]:
        """The request body for `record` on `side` as every repeat sends it (no salt)."""
        return self._bodies[(side, record.key)]

    def url(self, side: str) -> str:
        return self.urls[side]

    def _facts(self, side: str, record: PromptRecord) -> RequestFacts:
        slot = (side, record.key)
        found = self._request_facts.get(slot)
        if found is None:
            found = self._request_facts[slot] = request_facts(self._bodies[slot])
        return found

    def request(self, side: str, record: PromptRecord) -> tuple[httpx.Request, str]:
        """The request for `record` on `side` and its `request_sha256`.

        Without --cache-salt every repeat sends the same bytes, so the request is built and
        hashed once and reused; with it each request is built anew around a fresh salt (the
        hash leaves the salt out, so it is the same either way)."""
        slot = (side, record.key)
        prepared = self._prepared.get(slot)
        if prepared is None:
            body = self._bodies[slot]
            prepared = (self.client.prepare(self.url(side), body), request_sha256(body))
            self._prepared[slot] = prepared
        if self._cache_salt:
            return self.client.prepare(self.url(side), self.body(side, record)), prepared[1]
        return prepared

    async def send(self, side: str, record: PromptRecord) -> Outcome:
        """One request (not a sample: load in loaded mode); its answer counts in the overlap."""
        return await self._unlogged(side, self.request(side, record)[0])

    async def send_body(self, side: str, body: dict[str, Any]) -> Outcome:
        """One request of `body` that is not a sample (a filler); it counts in the overlap."""
        return await self._unlogged(side, self.client.prepare(self.url(side), body))

    async def _unlogged(self, side: str, request: httpx.Request) -> Outcome:
        """A request that is no sample: it counts in the overlap and keeps the gauge read."""
        timing = Timing(self.receiving, side)
        watch = self.watches.get(side)
        gauge = watch.enter() if watch is not None else None
        try:
            return await self.client.send_prepared(request, self._stream, timing)
        finally:
            if watch is not None and gauge is not None:
                watch.leave(gauge)

    async def take(
        self,
        side: str,
        record: PromptRecord,
        mode: str,
        repeat: int,
        batch: str | None = None,
        body: dict[str, Any] | None = None,
        level: int | None = None,
        cold: bool = False,
    ) -> None:
        """Send one request (`body` instead of the record's, for the control) and append its
        sample, unless the log already holds it; `cold`: logged as a cold request."""
        sample_id = (side, record.key, mode, repeat)
        if sample_id in self.done:
            return
        if body is None:
            request, digest = self.request(side, record)
            facts = self._facts(side, record)
        else:
            request, digest = self.client.prepare(self.url(side), body), request_sha256(body)
            facts = request_facts(body)
        timing = Timing(self.receiving, side)
        before = await self._cache_count(side, mode)
        window = self.spec_windows.get(side)
        spec = reset = None
        if window is not None:
            await window.enter()
        watch = self.watches.get(side) if batch is not None else None
        gauge = watch.enter() if watch is not None else None
        load_mark = self.load.mark(side) if mode == Mode.LOADED.value else None
        try:
            outcome = await self.client.send_prepared(request, self._stream, timing)
        finally:
            if watch is not None and gauge is not None:
                watch.leave(gauge)
            if window is not None:
                spec, reset = await window.leave()
        # DEAD_AFTER samples in a row without an answer stop the run (`k3diff.sample.alive`)
        self.client.liveness.count(str(request.url), outcome)
        load = None if load_mark is None else self.load.since(side, load_mark)
        after = await self._cache_count(side, mode) if before is not None else None
        line = sample_line(
            side,
            record.key,
            mode,
            repeat,
            digest,
            outcome,
            timing,
            batch,
            level,
            server_running=None if gauge is None else gauge[0],
            server_cache_hits=None if after is None or before is None else max(0, after - before),
            facts=facts,
            server_spec=spec,
            server_reset=reset,
            load=load,
        )
        await self.log.append(replace(line, cold=True) if cold else line)
        self.done.add(sample_id)
        self.taken_now += 1
        self.tally.add(side, record.key, mode, outcome.text_xxh3)
        self.report()

    async def flush(self) -> None:
        """POST the cache-flush URL when one was given."""
        if self.flush_url is not None:
            await self.client.flush(self.flush_url)

    async def drain_perf(
        self,
        mode: str,
        key: str,
        repeat: int,
        cold: bool = False,
        sides: tuple[str, ...] | None = None,
    ) -> None:
        """Store what `/perf_metrics` holds now on each server that offers it (of `sides` when
        given; `cold`: drained after a resumed run's cold request, said on the entry). Every
        attempt is a line (telem68b): an empty drain with its empty document, a failed one
        with `error` (`k3diff.sample.perfdrain`), whose records the server keeps for the next."""
        if self.perf is None:
            return
        wanted = self.perf_sides if sides is None else self.perf_sides & set(sides)
        for side in sorted(wanted):
            status, metrics = await self.client.get_json(f"{self.perf_roots[side]}/perf_metrics")
            entry: dict[str, Any] = {"side": side, "mode": mode, "key": key, "repeat": repeat}
            entry |= {"cold": True} if cold else {}
            self.perf.append(drained(entry, status, metrics))

    def report(self) -> None:
        if self._progress is not None:
            counts = Counts(len(self.done), self.total, self.tally.errors, len(self.tally.unstable))
            self._progress(counts)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def sample_line(
    side: str,
    key: str,
    mode: str,
    repeat: int,
    digest: str,
    outcome: Outcome,
    timing: Timing | None = None,
    batch: str | None = None,
    level: int | None = None,
    *,
    server_running: int | None = None,
    server_cache_hits: int | None = None,
    facts: RequestFacts | None = None,
    server_spec: Mapping[str, Any] | None = None,
    server_reset: str | None = None,
    load: LoadWindow | None = None,
) -> SampleLine:
    """The `k3diff.samples/1` line of one sample; a server's invalid `usage` is recorded as
    invalid (`usage_invalid`), never kept as if it were counts; `trace` only when the server
    sent token ids or logprobs."""
    usage, usage_invalid = sampled_usage(outcome.usage)
    return SampleLine(
        side=side,
        key=key,
        mode=mode,
        repeat=repeat,
        request_sha256=digest,
        status=outcome.status,
        text=outcome.text,
        text_xxh3=outcome.text_xxh3,
        token_ids_xxh3=outcome.token_ids_xxh3,
        finish_reason=outcome.finish_reason,
        usage=usage,
        latency_s=round(outcome.latency_s, 6),
        fingerprint=outcome.fingerprint,
        model=outcome.model,
        stream_models=None if outcome.stream_models is None else list(outcome.stream_models),
        error=outcome.error and without_credentials(outcome.error),
        attempts=outcome.attempts,
        out_of_step=outcome.out_of_step or None,
        started=round(outcome.started, 6),
        usage_invalid=usage_invalid,
        trace=outcome.trace,
        sent=None if timing is None else _rounded(timing.sent),
        first_byte=None if timing is None else _rounded(timing.first_byte),
        first_token=None if timing is None else _rounded(timing.first_token),
        ended=None if timing is None else _rounded(timing.ended),
        batch=batch,
        level=level,
        in_flight=None if timing is None else timing.peak,
        server_running=server_running,
        server_cache_hits=server_cache_hits,
        streams_overlapped=None if timing is None else timing.streams_overlapped,
        overlap_proof=None
        if timing is None or batch is None
        else line_proof(
            timing.streamed,
            server_running,
            timing.streams_overlapped,
            failed=outcome.error is not None,
            load_failed=load is not None and load.all_failed,
        ),
        prompt_xxh3=None if facts is None else facts.prompt_xxh3,
        prompt_preview=None if facts is None else facts.prompt_preview,
        request_params=None if facts is None else facts.params,
        server_spec=server_spec,
        server_reset=server_reset,
        spec_meta=outcome.spec_meta,
        spec_meta_invalid=outcome.spec_meta_invalid,
        load_ended=None if load is None else load.ended,
        load_failed=None if load is None else load.failed,
        load_error=None if load is None else load.error,
    )
