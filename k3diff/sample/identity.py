"""Whether base and patch are one server by the servers' own evidence (samples72).

Addresses cannot tell one server reached two ways apart from two servers: the loopback and the
host's LAN address of one server bound to the any-address, a DNS alias, a TCP forwarder or a
proxy in front of it (`k3diff.sample.oneserver` reads URLs and addresses only). Before, such a
pair was sampled as two servers and triage passed it (exit 0): the A/A case disguised.

So before the run, where both sides expose Prometheus `/metrics`, `k3diff sample` asks the
servers: it reads both sides' counters, sends `PROBE_REQUESTS` GETs of `/v1/models` to the
patch only, waits until a counter of the patch's has counted exactly those (at most
`SETTLE_S`: a server counts a request once it has answered it), then reads the base's again.
A counter the patch's requests moved by exactly `PROBE_REQUESTS` is a request counter that saw
no other traffic (vLLM's `http_requests_total{handler="/v1/models"}`, which every
prometheus-fastapi-instrumentator server exposes):

- the same series read on the base exactly as on the patch, before the GETs and after, in any
  round: one server (`ONE`): one counter, which counted requests sent to the patch only
  (samples74: before, a base moved by exactly as many from other clients, a busy base serving
  ~250 GETs of `/v1/models` a second, read as one server 11 of 20 times);
- the base's read one value throughout every one of `ROUNDS` rounds, no counter of either
  side read lower than before, and no process the base's `/metrics` showed started within
  `identityprocess.STARTED_TOGETHER_S` of one the patch's showed (the workers of one server,
  each answering one side only, started together: oneserver75): two servers (`TWO`);
- anything else (no such counter on the patch, the base's moved by another count or by as
  many to another value, readings at once that disagree, a counter seen going down, which
  shows several processes each counting its own (samples73), no `/metrics`, `--metrics-url
  off`, one side): `UNCHECKED`, with why.

Every reading and GET goes on a new connection (`Connection: close`), and each reading is
`TOGETHER` bodies read at once, so that a server of several workers, each serving whole
connections, is read across them, also behind a front end that keeps its own connections to
them (`probe_identity`, `TOGETHER`). A separate pair never reads as one: the base's counter
would have to read the very values the patch's read, before and after.
The probe costs at most `ROUNDS` × `PROBE_REQUESTS` GETs of `/v1/models` (no inference, no
cache entry) and four or more readings of `/metrics` a round, `TOGETHER` reads each, within
`BUDGET_S` seconds in all (past it, `unchecked`); its result is the header's
`server_identity` (`Identity.header`), and a resume's is its marker's (`sample.identityread`),
read by every reader through `oneserver.one_server`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from prometheus_client.samples import Sample

from k3diff.sample.identityprocess import STARTED_TOGETHER_S, process_starts, started_together
from k3diff.sample.metrics import (
    Fetch,
    MetricsProblem,
    SideMetrics,
    prometheus_samples,
    read_body,
)
from k3diff.sample.oneserver import IDENTITY_ONE, IDENTITY_TWO, IDENTITY_UNCHECKED

PROBE_REQUESTS = 3
"""GETs of `/v1/models` sent to the patch alone in each round: a count the `/metrics` reads
themselves (one or two a side) never make."""
ROUNDS = 3
"""Rounds of the probe, each of its own readings and GETs: `two-servers` needs every one."""
SETTLE_S = 1.0
"""Seconds a round waits for the patch's counter to count its requests."""
BUDGET_S = 10.0
"""Seconds the whole probe may take, every round's readings and GETs together; past it the
check is `unchecked` (review73e: a patch answering each GET of `/v1/models` in 9.5 s, within
the client's 10 s, held the run 86 s in the probe's 3 rounds; servers that answer at once
take 0.04 to 0.3 s)."""
SETTLE_POLL_S = 0.05
"""Seconds between two reads of the patch's counters while it waits."""
TOGETHER = 4
"""Bodies of one side's `/metrics` one reading takes at once, each on a connection of its own
(samples74). A front end keeping its own connections to a server of several workers (an HTTP
load balancer with upstream keep-alive, a pool per route or listener) sent every sequential
reading of one side down one kept connection, so to one worker: the base's stayed put where the
patch's counted the GETs, `two-servers`. Requests at once make it open more connections, which
the server hands to its other workers, whose counters disagree."""
SERIES_SHOWN = 120
"""Characters of a series name the header keeps (a server's text: hostile)."""


@dataclass(frozen=True)
class Identity:
    """What the servers' own counters say of base and patch (the header's `server_identity`)."""

    result: str
    """`one-server`, `two-servers` or `unchecked` (`oneserver.IDENTITY_*`)."""
    why: str
    """What was seen, or why it could not be checked."""
    series: str | None = None
    """The counter that decided, as `name{labels}`."""

    def header(self) -> dict[str, Any]:
        found = {"result": self.result, "why": self.why, "sent": PROBE_REQUESTS}
        return found if self.series is None else {**found, "series": self.series}


def unchecked(why: str) -> Identity:
    return Identity(IDENTITY_UNCHECKED, why)


Counters = dict[str, float]
"""Each counter sample of one `/metrics` body (`name{labels}` -> value)."""
Span = tuple[float, float]
"""The lowest and highest value a series read in one reading's bodies."""
Reading = dict[str, Span]
"""One reading of a side: `TOGETHER` bodies of its `/metrics` read at once (`together`)."""


def counters(body: bytes) -> Counters:
    """The `_total` samples of a Prometheus text body; MetricsProblem when it is not one."""
    return _counters(prometheus_samples(body))


def _counters(samples: list[Sample]) -> Counters:
    found: Counters = {}
    for sample in samples:
        if sample.name.endswith("_total"):
            # JSON-quoted: a label's escapes (a newline) stay escapes in every sentence.
            labels = ",".join(f"{k}={json.dumps(v)}" for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}"[:SERIES_SHOWN]] = sample.value
    return found


def together(bodies: list[Counters]) -> Reading:
    """Each series' lowest and highest value in bodies read at once (0 in a body that does not
    show it: a series of prometheus_client appears once first counted). One process's
    readings at once agree but for requests it answered meanwhile; a spread shows other
    traffic, or several processes each counting its own."""
    names = {name for body in bodies for name in body}
    return {
        name: (min(b.get(name, 0.0) for b in bodies), max(b.get(name, 0.0) for b in bodies))
        for name in names
    }


def went_down(before: Reading, after: Reading) -> str | None:
    """A series of `before` that `after` shows lower than `before` showed it, or no longer
    shows: a counter of one process never goes down, and every body of `after` was read after
    every body of `before`, so the two readings are of two processes (or a restart)."""
    for name, (_, high) in before.items():
        if after.get(name, (-1.0, -1.0))[0] < high:
            return name
    return None


def value(reading: Reading, name: str) -> float | None:
    """The one value every body of `reading` showed for `name` (0 where none showed it), None
    where they disagree."""
    low, high = reading.get(name, (0.0, 0.0))
    return low if low == high else None


@dataclass
class _Readings:
    """Each side's `/metrics` read, `TOGETHER` bodies at once, each on a new connection, and
    the first counter seen to go down between two readings of one side."""

    fetch: Fetch
    urls: dict[str, str]
    last: dict[str, Reading] = field(default_factory=dict)
    starts: dict[str, set[float]] = field(default_factory=lambda: {"base": set(), "patch": set()})
    """The process start times each side's bodies showed (`identityprocess`)."""
    down: str | None = None
    """'the SIDE's SERIES went from X to Y', once seen."""

    async def read(self, side: str) -> Reading:
        url = self.urls[side]
        bodies = await asyncio.gather(*(read_body(self.fetch, url) for _ in range(TOGETHER)))
        parsed = [await asyncio.to_thread(prometheus_samples, body) for body in bodies]
        for samples in parsed:
            self.starts[side] |= process_starts(samples)
        found = together([_counters(samples) for samples in parsed])
        before = self.last.get(side)
        went = None if before is None or self.down else went_down(before, found)
        if went is not None and before is not None:
            was, now = before[went][1], found.get(went, (0.0, 0.0))[0]
            self.down = f"the {side}'s {went} went from {was:g} to {now:g}"
        self.last[side] = found
        return found


@dataclass(frozen=True)
class Seen:
    """One round's readings: the base's and the patch's before the patch's GETs, the patch's
    once a series counted them (or the wait ended), and the base's after."""

    base_before: Reading
    patch_before: Reading
    patch_after: Reading
    base_after: Reading

    def counted(self) -> list[str]:
        """The patch's series every body read alike, before and after, that moved by exactly
        the probe's GETs."""
        return sorted(
            name
            for name in self.patch_after
            if (after := value(self.patch_after, name)) is not None
            and (before := value(self.patch_before, name)) is not None
            and after - before == PROBE_REQUESTS
        )


async def probe_identity(
    fetch: Fetch, metrics: dict[str, str], send_patch: Callable[[], Awaitable[object]]
) -> Identity:
    """Ask the servers whether base and patch are one (`metrics`: each side's `/metrics` URL;
    `send_patch`: one GET of the patch's `/v1/models` on a new connection; `fetch` reads each
    on a new connection too, `TOGETHER` at once).

    `ROUNDS` rounds, every reading and GET on a connection of its own: a server of several
    worker processes each counting its own requests (uvicorn `--workers`, gunicorn, without
    prometheus_client's multiprocess mode) hands each connection to one worker, so a base read
    over a kept connection always asked the one worker the patch's GETs never reached, and read
    as two servers (samples73: 4 to 14 of 20 probes of one `uvicorn --workers 2` server). Now
    the readings and GETs spread over its workers: a counter seen to go down between two
    readings of one side shows several processes (`unchecked`), and `two-servers` needs every
    round's base to stay put while the patch counted its GETs."""
    if set(metrics) != {"base", "patch"}:
        return unchecked("the run has no /metrics of both sides to ask (--metrics-url off)")
    readings = _Readings(fetch, metrics)
    try:
        async with asyncio.timeout(BUDGET_S):
            for _ in range(ROUNDS):
                found = await _round(readings, send_patch)
                if found.result != IDENTITY_TWO or readings.down is not None:
                    break
    except MetricsProblem as exc:
        return unchecked(f"a side's /metrics gave no Prometheus counters to read ({exc})")
    except TimeoutError:
        return unchecked(
            f"the servers did not answer the check's {ROUNDS} rounds of /metrics readings and "
            f"GETs of /v1/models within {BUDGET_S:g} s"
        )
    if found.result == IDENTITY_TWO and readings.down is None:
        return _started_apart(found, readings.starts)
    if found.result == IDENTITY_ONE or readings.down is None:
        return found
    return unchecked(
        f"{readings.down} between two readings: several processes answer there, each counting "
        "its own requests (uvicorn --workers, gunicorn; one worker or Prometheus multiprocess "
        "mode lets the check tell)"
    )


async def _round(readings: _Readings, send_patch: Callable[[], Awaitable[object]]) -> Identity:
    """One round: both sides read, `PROBE_REQUESTS` GETs to the patch, the patch read until a
    series counted them (at most `SETTLE_S`), the base read again."""
    base_before = await readings.read("base")
    patch_before = await readings.read("patch")
    for _ in range(PROBE_REQUESTS):
        await send_patch()
    deadline = time.monotonic() + SETTLE_S
    while True:
        seen = Seen(base_before, patch_before, await readings.read("patch"), {})
        if seen.counted() or readings.down is not None or time.monotonic() >= deadline:
            break
        await asyncio.sleep(SETTLE_POLL_S)
    return decided(dataclasses.replace(seen, base_after=await readings.read("base")))


def _started_apart(found: Identity, starts: Mapping[str, set[float]]) -> Identity:
    """`found` (`two-servers`), or `unchecked` where a process the base's `/metrics` showed
    started within `STARTED_TOGETHER_S` of one the patch's showed: workers of one server,
    started together, the base's readings answered by one and the patch's by another
    (oneserver75), or two servers started together (`identityprocess`)."""
    near = started_together(starts["base"], starts["patch"])
    if near is None:
        return found
    base, patch = near
    return unchecked(
        f"{found.why}, but the base's /metrics showed a process started at {base:.2f} and the "
        f"patch's one started at {patch:.2f} (epoch seconds, {abs(base - patch):.2f} s apart): "
        "worker processes of one server start together, each counting its own requests, as "
        "behind a front end keeping its own connections to them, and are not told apart from "
        f"two servers started within {STARTED_TOGETHER_S:g} s of each other"
    )


def decided(seen: Seen) -> Identity:
    """The verdict of one round: one server where a series the patch counted the GETs on read
    on the base exactly as on the patch, before and after (one counter, so the base's moved by
    those GETs: samples74, a base moving by as many from other clients, ~250 GETs of
    `/v1/models` a second, read one server 11 of 20 times); two where the base's read one value
    throughout; else unchecked."""
    sent = f"the {PROBE_REQUESTS} GETs of /v1/models sent to the patch only"
    counted = seen.counted()
    if not counted:
        return unchecked(f"no counter on the patch's /metrics counted exactly {sent}")
    for name in counted:
        before, after = value(seen.base_before, name), value(seen.base_after, name)
        if (before, after) == (value(seen.patch_before, name), value(seen.patch_after, name)):
            return Identity(IDENTITY_ONE, f"the base's {name} counted {sent}", name)
    if all(
        value(seen.base_before, name) is not None
        and value(seen.base_before, name) == value(seen.base_after, name)
        for name in counted
    ):
        return Identity(IDENTITY_TWO, f"the base's {counted[0]} did not count {sent}", counted[0])
    return unchecked(_why_not(seen, counted[0], sent))


def through_a_gateway(identity: Identity, found: Mapping[str, SideMetrics]) -> Identity:
    """`identity`, or `unchecked` where it says two servers but only one side's `/metrics`
    names an engine's series (a running gauge or prefix-cache counter; `SideMetrics`).

    review74e: a gateway that answers `/v1/models` and `/metrics` itself and forwards
    completions to the server (LiteLLM's proxy, a router listing its backends' models), given
    as one side with the server as the other, is one engine reached two ways; its counters are
    its own, so the base's never counted the GETs sent the patch: `two-servers` 3 of 3, triage
    passing one engine compared with itself without a word. A gateway's `/metrics` names no
    engine's series; two engines' both do."""
    engines = {side for side, metrics in found.items() if metrics.running or metrics.cache}
    if identity.result != IDENTITY_TWO or len(engines) != 1:
        return identity
    (engine,) = engines
    (other,) = set(found) - engines
    return unchecked(
        f"{identity.why}, but the {other}'s /metrics names no engine's series where the "
        f"{engine}'s does: a gateway answering /v1/models and /metrics itself, in front of a "
        "server the other side may be, is not told apart from a second server"
    )


def _why_not(seen: Seen, name: str, sent: str) -> str:
    """Why the base's `name` decided nothing."""
    for reading in (seen.base_before, seen.base_after):
        low, high = reading.get(name, (0.0, 0.0))
        if low != high:
            return (
                f"the base's {name} read {low:g} to {high:g} in {TOGETHER} readings at once "
                "(other traffic, or several processes each counting its own requests, as "
                "behind a front end keeping its own connections to a server's workers)"
            )
    before, after = value(seen.base_before, name) or 0.0, value(seen.base_after, name) or 0.0
    patch = value(seen.patch_after, name) or 0.0
    if after - before == PROBE_REQUESTS:
        return (
            f"the base's {name} moved by {PROBE_REQUESTS} while the patch's counted {sent}, "
            f"but read {after:g} where the patch's read {patch:g}: two counters, the base's "
            "moved by other traffic"
        )
    return f"the base's {name} moved by {after - before:g} while the patch's counted {sent} (other traffic)"
