"""The servers' own `/metrics`: their running-requests gauge while a batch is in flight, and
their prefix-cache hit counter around each cold-warm request.

The client's overlap proof (`k3diff.sample.overlap`) sees answers arrive together; a server
that streams headers at once and then works through its queue one request at a time looks
concurrent from there. Its running-requests gauge says what it really did:

- vLLM `vllm:num_requests_running`, SGLang `sglang:num_running_reqs`, TGI
  `tgi_batch_current_size` (Prometheus text, read with `prometheus_client`'s parser: label
  escaping, comments and exposition quirks are the field library's to get right); where the
  gauge has several label sets (vLLM's `engine` label, one series per data-parallel engine),
  the largest counts: requests on two engines share no batch, so their sum proves nothing;
- TensorRT-LLM's `trtllm-serve` `/metrics` is JSON instead, a list of the iterations since the
  last read (drained on read), each with `numActiveRequests`: the largest counts.

Prefix-cache hits, for cold-warm where `usage` carries no cached-token count: vLLM
`vllm:prefix_cache_hits` (cached tokens; `vllm:gpu_prefix_cache_hits` in older V1 releases),
SGLang `sglang:cached_tokens` (both counters, read as their `_total` samples). SGLang's
`sglang:cache_hit_rate` is a gauge over a recent window, not a count, so it proves nothing
about one request and is not read.

A server is hostile like any input: `/metrics` is read through the client's byte cap
(`METRICS_MAX_BYTES`) within `METRICS_TIMEOUT` seconds, a body that is not Prometheus text or
JSON or names none of the known series makes the side "not exposed" (probed once, never polled
again), and a failed poll mid-run is a missing reading: never a failed sample or a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from k3diff import bounded
from k3diff.bounded import size_text
from k3diff.errors import InputError

RUNNING_GAUGES = ("vllm:num_requests_running", "sglang:num_running_reqs", "tgi_batch_current_size")
"""Prometheus gauges of requests the server is running now, in the order they are looked for."""
TRTLLM_RUNNING = "numActiveRequests"
"""TensorRT-LLM's iteration-stats field of requests active in that iteration."""
CACHE_COUNTERS = ("vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits", "sglang:cached_tokens")
"""Prometheus counters of prefix-cache hits (cached prompt tokens)."""
METRICS_MAX_BYTES = 2 << 20
"""Largest `/metrics` body read. vLLM's, histograms and all, is tens to a few hundred KB a
model (one engine), so 2 MiB leaves room for a data-parallel server's per-engine series; a
hostile body at the cap is about 0.7 s of parsing (8 MiB was 2.7 s), off the event loop."""
METRICS_MAX_LINE = 16 << 10
"""Longest `/metrics` line parsed. A server writes lines of a few hundred bytes (a histogram
bucket, a HELP text, an info gauge's labels); prometheus_client's parser is quadratic in the
length of one line (a label, or a comment's run of blanks, copies the rest of the line), so
one 2 MiB line of 200,000 labels took it 15 s and a comment of 800,000 blanks 3.4 s (review65),
each poll, holding the GIL while requests were timed. With lines capped, a body at the byte
cap made of such lines parsed in 0.9-1.3 s on the 2-core dev box, no more than 500,000 short
lines do (1.9 s there)."""
METRICS_TIMEOUT = 2.0
"""Seconds one `/metrics` read may take."""
POLL_INTERVAL = 0.1
"""Seconds between two reads of the gauge while a batch is in flight."""


NONE_KNOWN = "none of the known series"
"""The probe's problem with a `/metrics` that answered without any series it reads."""


class MetricsProblem(Exception):
    """Why a `/metrics` body gives no reading."""


@dataclass(frozen=True)
class Reading:
    """What one `/metrics` body says."""

    running: int | None
    """The running-requests gauge: its largest value over its label sets (the most requests
    one engine of a data-parallel server runs together), None when absent."""
    running_name: str | None
    """The series it came from."""
    cache: int | None
    """The prefix-cache hit counter (summed over its label sets), None when absent."""
    cache_name: str | None
    """The series it came from."""


def prometheus_samples(data: bytes) -> list[Sample]:
    """Every sample of one Prometheus text body, parsed by prometheus_client; MetricsProblem
    (capped, one line) when the body is not UTF-8 or not Prometheus text. The one parser of
    the servers' `/metrics` (the running gauge and cache counters here, vLLM's speculation
    counters in `sample.spec`)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MetricsProblem("not UTF-8") from exc
    if max(map(len, text.split("\n"))) > METRICS_MAX_LINE:
        raise MetricsProblem(
            f"not Prometheus text (a line longer than {size_text(METRICS_MAX_LINE)})"
        )
    try:
        return [
            sample for family in text_string_to_metric_families(text) for sample in family.samples
        ]
    except (ValueError, TypeError, IndexError, KeyError) as exc:
        raise MetricsProblem(f"not Prometheus text ({_short(exc)})") from exc


def parse_metrics(data: bytes) -> Reading:
    """The known series of one `/metrics` body; MetricsProblem when it is neither Prometheus
    text nor TensorRT-LLM's JSON, or holds an unusable value of a known series."""
    if data.lstrip()[:1] in (b"[", b"{"):
        return _trtllm(data)
    running: dict[str, float] = {}
    cache: dict[str, float] = {}
    for sample in prometheus_samples(data):
        name = sample.name.removesuffix("_total")
        if sample.name in RUNNING_GAUGES:
            # The most one engine runs, never the sum: a data-parallel vLLM writes a series
            # per engine, whose requests share no batch (hunt78: two requests, one on each
            # engine, read 2 and the batch "exercised").
            running[sample.name] = max(running.get(sample.name, 0.0), _count(sample.value))
        elif name in CACHE_COUNTERS and sample.name.endswith("_total"):
            cache[name] = cache.get(name, 0.0) + sample.value
    found_running = _first(running, RUNNING_GAUGES)
    found_cache = _first(cache, CACHE_COUNTERS)
    return Reading(
        _count(found_running[1]) if found_running else None,
        found_running[0] if found_running else None,
        _count(found_cache[1]) if found_cache else None,
        found_cache[0] if found_cache else None,
    )


def _trtllm(data: bytes) -> Reading:
    try:
        value = bounded.loads(data, "/metrics")
    except (json.JSONDecodeError, UnicodeDecodeError, InputError) as exc:
        raise MetricsProblem(f"not JSON ({_short(exc)})") from exc
    entries = value if isinstance(value, list) else [value]
    counts = [
        _count(entry[TRTLLM_RUNNING])
        for entry in entries
        if isinstance(entry, dict) and TRTLLM_RUNNING in entry
    ]
    if not counts:
        return Reading(None, None, None, None)
    return Reading(max(counts), TRTLLM_RUNNING, None, None)


def _first(found: dict[str, float], names: Iterable[str]) -> tuple[str, float] | None:
    return next(((name, found[name]) for name in names if name in found), None)


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MetricsProblem(f"a count that is not a number: {_short(value)}")
    if not math.isfinite(value) or value < 0 or value > 2**53:
        raise MetricsProblem(f"a count that is not a non-negative number: {value!r}")
    return round(value)


def _short(value: Any) -> str:
    text = str(value).replace("\n", " ")
    return text if len(text) <= 60 else text[:59] + "…"


@dataclass(frozen=True)
class SideMetrics:
    """What the probe found on one side's `/metrics` (the log header's `metrics` entry)."""

    url: str
    running: str | None
    """The running-requests series it exposes, None when none."""
    cache: str | None
    """The prefix-cache hit counter it exposes, None when none."""
    problem: str | None
    """Why it gives no reading at all (HTTP 404, unreachable, too large, garbage), else None."""
    given: bool = False
    """The URL is a `--metrics-url` the user gave, not the server's `/metrics` (left69: one that
    answered without the gauge was said to be a server no `--metrics-url` can help)."""

    @property
    def known(self) -> bool:
        """It answered Prometheus text or JSON (with or without the known series)."""
        return self.problem is None or self.problem == NONE_KNOWN

    def header(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "running": self.running,
            "cache": self.cache,
            "problem": self.problem,
            "given": self.given,
        }


Fetch = Callable[[str], Awaitable[tuple[int, bytes | None]]]
"""GET of a `/metrics` URL through the run's client: (status, body; None when over the cap)."""


async def read(fetch: Fetch, url: str) -> Reading:
    """One reading of `url`; MetricsProblem when there is none."""
    body = await read_body(fetch, url)
    # Parsed in a worker thread: a body near the cap is a second of prometheus_client's parser,
    # which on the event loop would hold every request in flight and skew their timings.
    return await asyncio.to_thread(parse_metrics, body)


async def read_body(fetch: Fetch, url: str) -> bytes:
    """The body of `url` (capped, timed out); MetricsProblem when there is none."""
    try:
        status, body = await fetch(url)
    except Exception as exc:  # a hostile or dead server: the reading is missing, nothing more
        raise MetricsProblem(f"unreadable ({_short(type(exc).__name__)})") from exc
    if status != 200:
        raise MetricsProblem(f"HTTP {status}" if status else "unreachable")
    if body is None:
        raise MetricsProblem(f"larger than {size_text(METRICS_MAX_BYTES)}, or cut short")
    return body


async def probe(fetch: Fetch, url: str) -> SideMetrics:
    """Which known series `url` exposes (read once before the run)."""
    try:
        reading = await read(fetch, url)
    except MetricsProblem as exc:
        return SideMetrics(url, None, None, str(exc))
    problem = None if reading.running_name or reading.cache_name else NONE_KNOWN
    return SideMetrics(url, reading.running_name, reading.cache_name, problem)


class Watch:
    """One side's running-requests gauge, polled while any of its requests is in flight.

    Each request (sample, filler or load) `enter`s a holder (a one-item list) and `leave`s it;
    a poll's reading raises every open holder's value to it. Only requests open when a reading
    arrives get it, and the poll stops when the last one leaves, so a batch never inherits
    another batch's reading. A reading counts only while two or more requests are open: a
    reading of 1 then says the server runs one while the client waits on several (it queues
    them), not that the batch's last request was the only one left."""

    def __init__(self, fetch: Fetch, url: str, interval: float = POLL_INTERVAL) -> None:
        self._fetch = fetch
        self._url = url
        self._interval = interval
        self._open: list[list[int | None]] = []
        self._task: asyncio.Task[None] | None = None

    def enter(self) -> list[int | None]:
        holder: list[int | None] = [None]
        self._open.append(holder)
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._poll())
        return holder

    def leave(self, holder: list[int | None]) -> None:
        with contextlib.suppress(ValueError):
            self._open.remove(holder)
        if not self._open and self._task is not None:
            self._task.cancel()
            self._task = None

    async def _poll(self) -> None:
        while True:
            try:
                reading = await read(self._fetch, self._url)
            except MetricsProblem:
                reading = None
            if reading is not None and reading.running is not None and len(self._open) >= 2:
                for holder in self._open:
                    if holder[0] is None or holder[0] < reading.running:
                        holder[0] = reading.running
            await asyncio.sleep(self._interval)


async def cache_count(fetch: Fetch, url: str) -> int | None:
    """The prefix-cache hit counter now, None when it cannot be read."""
    try:
        return (await read(fetch, url)).cache
    except MetricsProblem:
        return None
