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
(`server_spec`); a failed read gives none. A counter that went down, or whose `_created` time
changed (a restarted server: the window spans two server lives), gives no counts either, but
says so: the sample's `server_reset` names the counter, and `telemetry` reports it. A restart
between two windows (against the last window's closing reading) is named on the next window,
whose counts stand. A window whose reading before or after it failed (an erroring, unreachable
or unparseable `/metrics`), or lacks the speculation series (or per-position ones) the other
reading has, on a server that counts them, is lost the same way and named so (`server_reset`
is UNREAD): a server whose `/metrics` fails after its bad windows must not leave only its good
ones.

The same window reads `vllm:num_preemptions` (V0 and V1 expose it as
`vllm:num_preemptions_total`): the window's preemptions, `server_spec.preemptions`. V1 logs no
line per preemption, so this counter is the only evidence of one.

vLLM V0 (`vllm/engine/metrics.py`) exposes `vllm:spec_decode_num_draft_tokens_total` and
`..._num_accepted_tokens_total` (no `..._num_drafts`, no per-position counter) but adds the
speculative sampler's running totals since the server started to them at every log interval (a
sum of running sums; vLLM PR 15415 proposed deltas and was closed unmerged): a window's rise is
not the window's tokens. They are not read as counts; the window says `v0_counters: 1`.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.sample.linevalues import UNREAD
from k3diff.sample.metrics import Fetch, MetricsProblem, prometheus_samples, read_body
from k3diff.sample.usage import server_count

DRAFTS = "vllm:spec_decode_num_drafts"
DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens"
ACCEPTED_TOKENS = "vllm:spec_decode_num_accepted_tokens"
ACCEPTED_PER_POS = "vllm:spec_decode_num_accepted_tokens_per_pos"
POSITION_LABEL = "position"
PREEMPTIONS = "vllm:num_preemptions"
V0_ONLY = ("vllm:spec_decode_num_emitted_tokens", "vllm:spec_decode_draft_acceptance_rate")
"""Series only vLLM V0's speculative decoding exposes (a counter and a gauge)."""
MAX_POSITIONS = 64
"""Most draft positions read (vLLM's `num_speculative_tokens` is a handful)."""
_TOTALS = {DRAFTS: "drafts", DRAFT_TOKENS: "draft_tokens", ACCEPTED_TOKENS: "accepted_tokens"}


@dataclass(frozen=True)
class SpecCounters:
    """One reading of the counters."""

    drafts: int | None
    draft_tokens: int | None
    accepted_tokens: int | None
    """V1's speculative-decoding counters (None: not exposed, speculation off, or vLLM V0)."""
    accepted_per_position: tuple[int, ...]
    """By position 0..K-1 (empty when the server has no per-position counter)."""
    preemptions: int | None = None
    """`vllm:num_preemptions_total` (None: not exposed)."""
    v0: bool = False
    """vLLM V0's speculative-decoding series are exposed (not read as counts)."""
    created: tuple[tuple[str, float], ...] = ()
    """Per counter read, its `_created` series (the earliest over its label sets): when the
    server process made it. Another value later is another server life."""

    def named(self) -> tuple[tuple[str, int | None], ...]:
        """Each counter with its exposed name (positions by their label)."""
        per_position = tuple(
            (f'{ACCEPTED_PER_POS}_total{{position="{p}"}}', c)
            for p, c in enumerate(self.accepted_per_position)
        )
        return (
            (f"{DRAFTS}_total", self.drafts),
            (f"{DRAFT_TOKENS}_total", self.draft_tokens),
            (f"{ACCEPTED_TOKENS}_total", self.accepted_tokens),
            *per_position,
            (f"{PREEMPTIONS}_total", self.preemptions),
        )


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
    """The counters in one `/metrics` body; None when it has none of them (not vLLM);
    MetricsProblem when it is not Prometheus text or a count is unusable."""
    if data.lstrip()[:1] in (b"[", b"{"):
        return None
    totals: dict[str, float] = {}
    positions: dict[int, float] = {}
    created: dict[str, float] = {}
    v0 = False
    for sample in prometheus_samples(data):
        v0 = v0 or sample.name.removesuffix("_total") in V0_ONLY
        base = sample.name.removesuffix("_created")
        if base != sample.name and (base in _TOTALS or base == PREEMPTIONS):
            created[sample.name] = min(created.get(sample.name, math.inf), sample.value)
        if not sample.name.endswith("_total"):
            continue
        name = sample.name.removesuffix("_total")
        if name in _TOTALS or name == PREEMPTIONS:
            totals[name] = totals.get(name, 0.0) + sample.value
        elif name == ACCEPTED_PER_POS:
            position = _position(sample.labels.get(POSITION_LABEL, ""))
            positions[position] = positions.get(position, 0.0) + sample.value
    preemptions = _count(totals[PREEMPTIONS]) if PREEMPTIONS in totals else None
    if not set(_TOTALS) <= set(totals):
        # V0 has draft and accepted tokens but no drafts: its counters are not read.
        v0 = v0 or (DRAFT_TOKENS in totals and DRAFTS not in totals)
        if preemptions is None and not v0:
            return None
        return SpecCounters(None, None, None, (), preemptions, v0, _created(created))
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
        preemptions,
        created=_created(created),
    )


def _created(found: dict[str, float]) -> tuple[tuple[str, float], ...]:
    return tuple(sorted((name, value) for name, value in found.items() if math.isfinite(value)))


def went_down(before: SpecCounters, after: SpecCounters) -> str | None:
    """The first counter lower after the window than before it, else the first whose
    `_created` time changed (a restarted server that counted past its old values), by its
    exposed name; None when neither."""
    now = dict(after.named())
    for name, was in before.named():
        later = now.get(name)
        if was is not None and later is not None and later < was:
            return name
    made = dict(after.created)
    return next((n for n, t in before.created if n in made and made[n] != t), None)


def rise(before: SpecCounters, after: SpecCounters, samples: int) -> dict[str, Any] | None:
    """The `server_spec` of a window; None when a counter went down (`went_down`) or the
    window read no counter twice."""
    if went_down(before, after) is not None:
        return None
    found: dict[str, Any] = {}
    if None not in (before.drafts, after.drafts):
        same_positions = len(before.accepted_per_position) == len(after.accepted_per_position)
        found = {
            "drafts": _diff(after.drafts, before.drafts),
            "draft_tokens": _diff(after.draft_tokens, before.draft_tokens),
            "accepted_tokens": _diff(after.accepted_tokens, before.accepted_tokens),
            "accepted_per_position": [
                a - b
                for a, b in zip(
                    after.accepted_per_position, before.accepted_per_position, strict=True
                )
            ]
            if same_positions
            else [],
        }
    if before.preemptions is not None and after.preemptions is not None:
        found["preemptions"] = after.preemptions - before.preemptions
    if before.v0 and after.v0:
        found["v0_counters"] = 1
    return {**found, "samples": samples} if found else None


def _diff(after: int | None, before: int | None) -> int:
    return (after or 0) - (before or 0)


async def read_spec(fetch: Fetch, url: str) -> SpecCounters | None:
    """The counters now, None when they cannot be read."""
    try:
        body = await read_body(fetch, url)
        return await asyncio.to_thread(parse_spec, body)  # off the loop, as `metrics.read`
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
        self._last: SpecCounters | None = None
        """The last window's closing reading: a restart between two windows shows against it."""

    async def enter(self) -> None:
        """A sample starts: the first of a window reads the counters, and every sample of the
        window waits for that reading before it is sent."""
        self._open += 1
        self._samples += 1
        if self._before is None:
            self._before = asyncio.ensure_future(read_spec(self._fetch, self._url))
        await asyncio.shield(self._before)

    async def leave(self) -> tuple[Mapping[str, Any] | None, str | None]:
        """A sample ended: the last of a window reads the counters again and returns the
        window's rise and the counter that went down across it (its counts lost: the rise is
        only `samples`) or since the last window closed (a restart between two windows: the
        rise stands); (None, None) for the others."""
        self._open -= 1
        if self._open > 0 or self._before is None:
            return None, None
        before_reading, samples = self._before, self._samples
        self._before, self._samples = None, 0
        before = before_reading.result() if before_reading.done() else None
        after = await read_spec(self._fetch, self._url)
        if _unread(before, after, self._last):
            self._last = after or self._last
            return {"samples": samples}, UNREAD
        if before is None or after is None:
            self._last = after or self._last
            return None, None
        last, self._last = self._last, after
        reset = went_down(before, after)
        if reset is not None:
            return {"samples": samples}, reset
        return rise(before, after, samples), None if last is None else went_down(last, before)


def _unread(
    before: SpecCounters | None, after: SpecCounters | None, last: SpecCounters | None
) -> bool:
    """Whether a window of a server that counts V1 speculation lost its counts to a reading:
    one failed, or lacks the speculation series (or the per-position ones) the other has."""
    readings = (before, after, last)
    if not any(r is not None and r.drafts is not None for r in readings) and any(readings):
        return False  # no V1 speculation counted here: no counts to lose
    return (
        before is None
        or after is None
        or before.drafts is None
        or after.drafts is None
        or len(before.accepted_per_position) != len(after.accepted_per_position)
    )


async def probe_spec(fetch: Fetch, url: str) -> bool:
    """Whether `url` exposes vLLM's speculative-decoding or preemption counters."""
    return await read_spec(fetch, url) is not None
