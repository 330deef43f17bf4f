"""vLLM's speculative-decoding counters, read from a side's `/metrics` before and after each
window of its samples, so that `telemetry` can attribute acceptance per side and mode and per
draft position.

The counters (`vllm/v1/spec_decode/metrics.py`, `SpecDecodingProm`): `vllm:spec_decode_num_drafts`,
`vllm:spec_decode_num_draft_tokens`, `vllm:spec_decode_num_accepted_tokens` and
`vllm:spec_decode_num_accepted_tokens_per_pos` with a `position` label (0-based: drafts that had
the token at that position accepted). Prometheus text, read with `prometheus_client`'s parser as
the running gauge is (`k3diff.sample.metrics`), each summed over its other labels (engines,
model names) from its `_total` samples.

A window opens when the first of a side's samples starts while none is in flight, and closes
when the last in flight ends: a serial or cold-warm sample is a window of its own, a concurrent
or sweep batch one window. Every request the server ran meanwhile counts in it: a loaded
target's load, a needle or mixed target's fillers. Its rise goes on the sample that closed it
(`server_spec`); a counter that went down (a restarted server) or a failed read gives none.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.sample.metrics import Fetch, MetricsProblem, prometheus_samples, read_body
from k3diff.sample.usage import server_count

DRAFTS = "vllm:spec_decode_num_drafts"
DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens"
ACCEPTED_TOKENS = "vllm:spec_decode_num_accepted_tokens"
ACCEPTED_PER_POS = "vllm:spec_decode_num_accepted_tokens_per_pos"
POSITION_LABEL = "position"
MAX_POSITIONS = 64
"""Most draft positions read (vLLM's `num_speculative_tokens` is a handful)."""
_TOTALS = {DRAFTS: "drafts", DRAFT_TOKENS: "draft_tokens", ACCEPTED_TOKENS: "accepted_tokens"}


@dataclass(frozen=True)
class SpecCounters:
    """One reading of the counters."""

    drafts: int
    draft_tokens: int
    accepted_tokens: int
    accepted_per_position: tuple[int, ...]
    """By position 0..K-1 (empty when the server has no per-position counter)."""


def _count(value: float) -> int:
    """A Prometheus sample value (a float) as a server count (`server_count`)."""
    count = server_count(round(value)) if math.isfinite(value) else None
    if count is None:
        raise MetricsProblem(f"a speculative-decoding count that is not a count: {value!r}")
    return count


def _position(label: str) -> int:
    """A `position` label as a draft position; MetricsProblem when it is none."""
    try:
        position = int(label)
    except ValueError:
        position = -1
    if not 0 <= position < MAX_POSITIONS:
        raise MetricsProblem(f"not Prometheus text (position {label[:20]!r})")
    return position


def parse_spec(data: bytes) -> SpecCounters | None:
    """The counters in one `/metrics` body; None when it has none of them (not vLLM, or
    speculation off); MetricsProblem when it is not Prometheus text or a count is unusable."""
    if data.lstrip()[:1] in (b"[", b"{"):
        return None
    totals: dict[str, float] = {}
    positions: dict[int, float] = {}
    for sample in prometheus_samples(data):
        if not sample.name.endswith("_total"):
            continue
        name = sample.name.removesuffix("_total")
        if name in _TOTALS:
            totals[name] = totals.get(name, 0.0) + sample.value
        elif name == ACCEPTED_PER_POS:
            position = _position(sample.labels.get(POSITION_LABEL, ""))
            positions[position] = positions.get(position, 0.0) + sample.value
    if set(totals) != set(_TOTALS):
        return None
    # Positions must run 0..K-1 without a gap to be read by position.
    per_position = (
        tuple(_count(positions[p]) for p in range(len(positions)))
        if sorted(positions) == list(range(len(positions)))
        else ()
    )
    return SpecCounters(
        _count(totals[DRAFTS]),
        _count(totals[DRAFT_TOKENS]),
        _count(totals[ACCEPTED_TOKENS]),
        per_position,
    )


def rise(before: SpecCounters, after: SpecCounters, samples: int) -> dict[str, Any] | None:
    """The `server_spec` of a window; None when a counter went down."""
    diffs = (
        after.drafts - before.drafts,
        after.draft_tokens - before.draft_tokens,
        after.accepted_tokens - before.accepted_tokens,
    )
    same_positions = len(before.accepted_per_position) == len(after.accepted_per_position)
    per_position = (
        [
            a - b
            for a, b in zip(after.accepted_per_position, before.accepted_per_position, strict=True)
        ]
        if same_positions
        else []
    )
    if min(diffs, default=0) < 0 or min(per_position, default=0) < 0:
        return None
    return {
        "drafts": diffs[0],
        "draft_tokens": diffs[1],
        "accepted_tokens": diffs[2],
        "accepted_per_position": per_position,
        "samples": samples,
    }


async def read_spec(fetch: Fetch, url: str) -> SpecCounters | None:
    """The counters now, None when they cannot be read."""
    try:
        return parse_spec(await read_body(fetch, url))
    except MetricsProblem:
        return None


class SpecWindow:
    """One side's counters around each window of its samples (see the module's docstring)."""

    def __init__(self, fetch: Fetch, url: str) -> None:
        self._fetch = fetch
        self._url = url
        self._open = 0
        self._samples = 0
        self._before: asyncio.Future[SpecCounters | None] | None = None

    async def enter(self) -> None:
        """A sample starts: the first of a window reads the counters, and every sample of the
        window waits for that reading before it is sent."""
        self._open += 1
        self._samples += 1
        if self._before is None:
            self._before = asyncio.ensure_future(read_spec(self._fetch, self._url))
        await asyncio.shield(self._before)

    async def leave(self) -> Mapping[str, Any] | None:
        """A sample ended: the last of a window reads the counters again and returns the
        window's rise (None for the others)."""
        self._open -= 1
        if self._open > 0 or self._before is None:
            return None
        before_reading, samples = self._before, self._samples
        self._before, self._samples = None, 0
        before = before_reading.result() if before_reading.done() else None
        after = await read_spec(self._fetch, self._url)
        if before is None or after is None:
            return None
        return rise(before, after, samples)


async def probe_spec(fetch: Fetch, url: str) -> bool:
    """Whether `url` exposes vLLM's speculative-decoding counters."""
    return await read_spec(fetch, url) is not None
