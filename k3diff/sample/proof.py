"""Overlap proof of `samples.jsonl` batches: whether the server worked on a batch's requests at
once, decided per batch by the server's running-requests gauge; without a gauge reading, streams
that reached the client one after the other show the batch was not exercised, and anything else
is unproven (docs/evidence-conditions.md). One function, `batch_overlap`, read by `sample`'s
summary and by `triage` alike.

Only the gauge can prove overlap. Streams interleaving at the client (each received token chunks
while the other was open) do not: a serial engine behind a front end that paces, holds back or
flushes its answers in bursts interleaves them too (tests/sample/test_serial_gateways.py), and
nothing in a stream (whole-second `created`, usage, fingerprint) tells its chunks' generation
time from their delivery. The opposite reading is kept: a batch whose streams never interleaved
is `not-exercised`. It may be wrong (a front end can also serialise the delivery of a batching
server's answers), but only in the direction that clears nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from k3diff.sample.names import CO_BATCHED, Mode

BATCHED = CO_BATCHED | {Mode.CONCURRENT.value, Mode.SWEEP.value}
"""Modes whose requests are meant to be in flight with others at the server."""


class Proof(StrEnum):
    """What decided whether a batch's requests were in flight together at the server."""

    GAUGE = "gauge"
    """The server's running-requests gauge, read while the batch was in flight."""
    TOKEN_WINDOWS = "token-windows"
    """Streamed answers without a gauge reading that never interleaved at the client (no two
    streams each received two token chunks while the other was open, `k3diff.sample.overlap`):
    not exercised. Logs written before 2026-12-03 also give it to streams that interleaved,
    then read as proof of overlap; readers re-judge a batch from its lines' `server_running`
    and `streams_overlapped` (`batch_overlap`), never from this value, so such a batch is now
    unproven."""
    UNPROVEN = "unproven"
    """Without a gauge reading: whole answers (the client cannot tell a server that batches
    from one that queues: answers ending close together prove nothing), or streams that
    interleaved at the client (a serial engine behind a pacing, holding or bursting front end
    interleaves them too). It clears nothing."""


PROOFS = tuple(proof.value for proof in Proof)


@dataclass(frozen=True)
class Overlap:
    """How far the batches of one side, record and mode were in flight together at the server,
    and what decided it per batch."""

    batches: int
    """Batches that could show overlap: timed, and with two or more answered requests (a
    failed request is not timed; a loaded target counts alone: its load is what overlaps it)."""
    largest: int | None
    """The most requests proven in flight together in any of them (the gauge's reading, or a
    stream and the streams proven overlapped with it); None when no batch was decided."""
    one_at_a_time: int
    """Of those batches, the ones not exercised: the gauge never read above 1, or, without a
    gauge reading, no two streams interleaved at the client (`not-exercised`)."""
    server_largest: int | None = None
    """The largest reading of the server's running-requests gauge in any of them; None when
    the server exposes none (or no reading arrived while they were in flight)."""
    server_one_at_a_time: int = 0
    """Of the `one_at_a_time` batches, those the server's gauge decided (it read 1 throughout:
    the server ran them one at a time)."""
    unproven: int = 0
    """Batches without a gauge reading of whole answers, or of streams that interleaved at the
    client: neither exercised nor not."""
    by_gauge: int = 0
    """Batches the server's running-requests gauge decided."""
    by_token_windows: int = 0
    """Batches their streams' token windows decided (not exercised: the streams never
    interleaved)."""
    load_failed: int = 0
    """Of the `unproven` batches, loaded targets whose background requests all failed while
    they were in flight (`k3diff.sample.load`): not sent under the load the run claims,
    whatever a gauge read."""
    load_idle: int = 0
    """Of the `unproven` batches, loaded targets while which no background request ended
    (`load_ended` 0: a server fast enough to answer each target before any of its load, or no
    load at all): nothing shows the load overlapped them. Unproven anyway without a gauge
    reading; counted apart so the summary says why."""

    @property
    def exercised(self) -> bool | None:
        """Every batch proven to overlap (None: nothing to tell it by — serial, or untimed)."""
        if self.batches == 0:
            return None
        return self.one_at_a_time == 0 and self.unproven == 0

    @property
    def exercised_batches(self) -> int:
        """Batches proven to overlap."""
        return self.batches - self.one_at_a_time - self.unproven


def line_proof(
    streamed: bool,
    server_running: int | None,
    streams_overlapped: int | None,
    failed: bool = False,
    load_failed: bool = False,
) -> str:
    """The `overlap_proof` of one batched sample: the gauge when it was read, else the token
    windows of a streamed answer that interleaved with no other (not exercised), else unproven
    (a whole answer, a stream that interleaved with another, a failed request, or a loaded
    target whose background requests all failed: no proof either way)."""
    if failed or load_failed:
        return Proof.UNPROVEN.value
    if server_running:
        return Proof.GAUGE.value
    if streamed and not streams_overlapped:
        return Proof.TOKEN_WINDOWS.value
    return Proof.UNPROVEN.value


def batch_overlap(samples: Sequence[Any]) -> Overlap:
    """The overlap of samples of one side, record and mode (anything with `mode`, `batch`,
    `in_flight`, `server_running`, `streams_overlapped`, `load_ended`, `load_failed` and
    `error`): batches grouped by their id, serial samples, untimed ones and failed ones left
    out (a batch with fewer than two answered requests is not counted: nothing could overlap,
    nor be shown not to). A loaded batch whose background requests all failed is unproven (the
    load the run claims did not run; its gauge reading still counts in `server_largest`).
    Each other batch is decided by the server's running-requests gauge where it read 1 or more (a gauge that read 0 throughout saw none of them: a lagging
    gauge, no evidence), else by its streams where none interleaved with another at the client
    (not exercised), else it is unproven: streams that interleaved prove nothing of the server
    (a serial engine behind a pacing front end interleaves them too), and the client's own count
    of answers arriving together (`in_flight`) decides nothing (a server that queues sends
    headers early and ends answers close together after a stall)."""
    members: dict[str, int] = {}
    batches: dict[str, list[Any]] = {}
    loaded = False
    untimed = False
    for sample in samples:
        if sample.batch is None or sample.in_flight is None:
            # A batched mode's answer that carries no batch or timing (a log written before
            # them, or edited) shows nothing of the server: one unproven batch, never a pass.
            untimed = untimed or (sample.mode in BATCHED and sample.error is None)
            continue
        loaded = loaded or sample.mode in CO_BATCHED
        members[sample.batch] = members.get(sample.batch, 0) + 1
        if sample.error is None:  # a failed request was not answered: nothing to time
            batches.setdefault(sample.batch, []).append(sample)
    counted = [batch for batch, found in batches.items() if loaded or len(found) >= 2]
    if not counted and batches and not loaded and max(members.values()) == 1:
        counted = list(batches)  # every batch a single request: nothing overlapped
    decided = [_decide(batches[batch], loaded) for batch in counted]
    gauges = [size for proof, size in decided if proof is Proof.GAUGE]
    sizes = [size for proof, size in decided if proof is not Proof.UNPROVEN]
    unloaded = [batch for batch in counted if _load_failed(batches[batch])]
    idle = [
        batch
        for batch, (proof, _) in zip(counted, decided, strict=True)
        if proof is Proof.UNPROVEN and _load_idle(batches[batch])
    ]
    readings = [_gauge(batches[batch]) for batch in unloaded]
    return Overlap(
        batches=len(counted) + untimed,
        largest=max(sizes, default=None),
        one_at_a_time=sum(1 for proof, size in decided if proof is not Proof.UNPROVEN and size < 2),
        server_largest=max([*gauges, *(r for r in readings if r >= 1)], default=None),
        server_one_at_a_time=sum(1 for size in gauges if size < 2),
        unproven=sum(1 for proof, _ in decided if proof is Proof.UNPROVEN) + untimed,
        by_gauge=len(gauges),
        by_token_windows=sum(1 for proof, _ in decided if proof is Proof.TOKEN_WINDOWS),
        load_failed=len(unloaded),
        load_idle=len(idle),
    )


def _gauge(batch: list[Any]) -> int:
    """The largest gauge reading of a batch's samples; 0 when none was read."""
    return max((s.server_running for s in batch if s.server_running is not None), default=0)


def _load_failed(batch: list[Any]) -> bool:
    """Background requests ended while the batch was in flight, and every one failed."""
    ended = sum(s.load_ended or 0 for s in batch)
    return ended > 0 and sum(s.load_failed or 0 for s in batch) == ended


def _load_idle(batch: list[Any]) -> bool:
    """A loaded batch while which no background request ended (known from every sample's
    `load_ended`; logs written before the load was counted say nothing)."""
    ended = [s.load_ended for s in batch]
    return bool(ended) and all(n == 0 for n in ended)


def _decide(batch: list[Any], loaded: bool) -> tuple[Proof | None, int]:
    """(what decided the batch, the most requests proven together in it); None decided it for
    a request sent alone (nothing could overlap it)."""
    if _load_failed(batch):
        return Proof.UNPROVEN, 0  # the load the run claims did not run
    gauge = _gauge(batch)
    if gauge >= 1:
        return Proof.GAUGE, gauge
    streams = [s.streams_overlapped for s in batch if s.streams_overlapped is not None]
    if streams and max(streams) == 0:
        return Proof.TOKEN_WINDOWS, 1
    if streams:
        return Proof.UNPROVEN, 0
    if len(batch) == 1 and not loaded:
        return None, 1
    return Proof.UNPROVEN, 0
