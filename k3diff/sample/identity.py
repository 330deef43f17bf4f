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

- the same series of the base's moved by exactly as many in any round: one server (`ONE`):
  the base's server counted requests sent to the patch only;
- it did not move on the base in every one of `ROUNDS` rounds, and no counter of either side
  read lower than before: two servers (`TWO`);
- anything else (no such counter on the patch, the base's moved by another count, a counter
  seen going down, which shows several processes each counting its own (samples73), no
  `/metrics`, `--metrics-url off`, one side): `UNCHECKED`, with why.

Every reading and GET goes on a new connection (`Connection: close`), so that a server of
several workers, each serving whole connections, is read across them (`probe_identity`). A
separate pair never reads as one: the base's counter would have to count exactly
`PROBE_REQUESTS` requests of that kind from someone else within a round's fraction of a second.
The probe costs at most `ROUNDS` × `PROBE_REQUESTS` GETs of `/v1/models` (no inference, no
cache entry) and four or more reads of `/metrics` a round; its result is the header's
`server_identity` (`Identity.header`), and a resume's is its marker's (`sample.identityread`),
read by every reader through `oneserver.one_server`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from k3diff.sample.metrics import Fetch, MetricsProblem, prometheus_samples, read_body
from k3diff.sample.oneserver import IDENTITY_ONE, IDENTITY_TWO, IDENTITY_UNCHECKED

PROBE_REQUESTS = 3
"""GETs of `/v1/models` sent to the patch alone in each round: a count the `/metrics` reads
themselves (one or two a side) never make."""
ROUNDS = 3
"""Rounds of the probe, each of its own readings and GETs: `two-servers` needs every one."""
SETTLE_S = 1.0
"""Seconds a round waits for the patch's counter to count its requests."""
SETTLE_POLL_S = 0.05
"""Seconds between two reads of the patch's counters while it waits."""
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


def counters(body: bytes) -> Counters:
    """The `_total` samples of a Prometheus text body; MetricsProblem when it is not one."""
    found: Counters = {}
    for sample in prometheus_samples(body):
        if sample.name.endswith("_total"):
            # JSON-quoted: a label's escapes (a newline) stay escapes in every sentence.
            labels = ",".join(f"{k}={json.dumps(v)}" for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}"[:SERIES_SHOWN]] = sample.value
    return found


def went_down(before: Counters, after: Counters) -> str | None:
    """A series of `before` that `after` shows lower or no longer shows: a counter of one
    process never does, so the two readings are of two processes (or a restart)."""
    for name, value in before.items():
        if after.get(name, -1.0) < value:
            return name
    return None


@dataclass
class _Readings:
    """Each side's `/metrics` read, each time on a new connection, and the first counter seen to
    go down between two readings of one side."""

    fetch: Fetch
    urls: dict[str, str]
    last: dict[str, Counters] = field(default_factory=dict)
    down: str | None = None
    """'the SIDE's SERIES went from X to Y', once seen."""

    async def read(self, side: str) -> Counters:
        found = await asyncio.to_thread(counters, await read_body(self.fetch, self.urls[side]))
        before = self.last.get(side)
        went = None if before is None or self.down else went_down(before, found)
        if went is not None and before is not None:
            self.down = f"the {side}'s {went} went from {before[went]:g} to {found.get(went, 0):g}"
        self.last[side] = found
        return found


async def probe_identity(
    fetch: Fetch, metrics: dict[str, str], send_patch: Callable[[], Awaitable[object]]
) -> Identity:
    """Ask the servers whether base and patch are one (`metrics`: each side's `/metrics` URL;
    `send_patch`: one GET of the patch's `/v1/models` on a new connection; `fetch` reads each
    on a new connection too).

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
        for _ in range(ROUNDS):
            found = await _round(readings, send_patch)
            if found.result != IDENTITY_TWO or readings.down is not None:
                break
    except MetricsProblem as exc:
        return unchecked(f"a side's /metrics gave no Prometheus counters to read ({exc})")
    if found.result == IDENTITY_ONE or readings.down is None:
        return found
    return unchecked(
        f"{readings.down} between two readings: several processes answer there, each counting "
        "its own requests (uvicorn --workers, gunicorn; one worker or Prometheus multiprocess "
        "mode lets the check tell)"
    )


async def _round(readings: _Readings, send_patch: Callable[[], Awaitable[object]]) -> Identity:
    """One round: both sides read, `PROBE_REQUESTS` GETs to the patch, the patch read until a
    counter counted them (at most `SETTLE_S`), the base read again."""
    base0 = await readings.read("base")
    patch0 = await readings.read("patch")
    for _ in range(PROBE_REQUESTS):
        await send_patch()
    deadline = time.monotonic() + SETTLE_S
    while True:
        counted = _counted(_moved(patch0, await readings.read("patch")))
        if counted or readings.down is not None or time.monotonic() >= deadline:
            break
        await asyncio.sleep(SETTLE_POLL_S)
    return decided(counted, _moved(base0, await readings.read("base")))


def _moved(before: Counters, after: Counters) -> Counters:
    """How far each series moved (a series not yet exposed counts as 0)."""
    return {name: value - before.get(name, 0.0) for name, value in after.items()}


def _counted(patch: Counters) -> list[str]:
    return sorted(name for name, moved in patch.items() if moved == PROBE_REQUESTS)


def decided(counted: list[str], base: Counters) -> Identity:
    """The verdict from the patch's series that counted exactly the probe's requests and how
    far each series of the base's moved meanwhile."""
    sent = f"the {PROBE_REQUESTS} GETs of /v1/models sent to the patch only"
    if not counted:
        return unchecked(f"no counter on the patch's /metrics counted exactly {sent}")
    one = [name for name in counted if base.get(name, 0.0) == PROBE_REQUESTS]
    if one:
        return Identity(IDENTITY_ONE, f"the base's {one[0]} counted {sent}", one[0])
    if all(base.get(name, 0.0) == 0 for name in counted):
        return Identity(IDENTITY_TWO, f"the base's {counted[0]} did not count {sent}", counted[0])
    name = counted[0]
    return unchecked(
        f"the base's {name} moved by {base.get(name, 0.0):g} while the patch's counted {sent} "
        "(other traffic)"
    )
