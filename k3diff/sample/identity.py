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

- the same series of the base's moved by exactly as many: one server (`ONE`): the base's
  server counted requests sent to the patch only;
- it did not move on the base: two servers (`TWO`);
- anything else (no such counter on the patch, the base's moved by another count, no
  `/metrics`, `--metrics-url off`, one side): `UNCHECKED`, with why.

A separate pair never reads as one: the base's counter would have to count exactly
`PROBE_REQUESTS` requests of that kind from someone else within the probe's fraction of a
second. The probe costs `PROBE_REQUESTS` GETs of `/v1/models` (no inference, no cache entry)
and four reads of `/metrics`; its result is the header's `server_identity`
(`Identity.header`), read by every reader through `oneserver.one_server`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from k3diff.sample.metrics import Fetch, MetricsProblem, prometheus_samples, read_body
from k3diff.sample.oneserver import IDENTITY_ONE, IDENTITY_TWO, IDENTITY_UNCHECKED

PROBE_REQUESTS = 3
"""GETs of `/v1/models` sent to the patch alone: a count the `/metrics` reads themselves (one
or two a side) never make."""
SETTLE_S = 1.0
"""Seconds the probe waits for the patch's counter to count its requests."""
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


async def _read(fetch: Fetch, url: str) -> Counters:
    return await asyncio.to_thread(counters, await read_body(fetch, url))


def _moved(before: Counters, after: Counters) -> Counters:
    """How far each series moved (a series not yet exposed counts as 0)."""
    return {name: value - before.get(name, 0.0) for name, value in after.items()}


async def probe_identity(
    fetch: Fetch, metrics: dict[str, str], send_patch: Callable[[], Awaitable[object]]
) -> Identity:
    """Ask the servers whether base and patch are one (`metrics`: each side's `/metrics` URL;
    `send_patch`: one GET of the patch's `/v1/models`)."""
    if set(metrics) != {"base", "patch"}:
        return unchecked("the run has no /metrics of both sides to ask (--metrics-url off)")
    try:
        base0 = await _read(fetch, metrics["base"])
        patch0 = await _read(fetch, metrics["patch"])
    except MetricsProblem as exc:
        return unchecked(f"a side's /metrics gives no Prometheus counters ({exc})")
    for _ in range(PROBE_REQUESTS):
        await send_patch()
    deadline = time.monotonic() + SETTLE_S
    try:
        while True:
            counted = _counted(_moved(patch0, await _read(fetch, metrics["patch"])))
            if counted or time.monotonic() >= deadline:
                break
            await asyncio.sleep(SETTLE_POLL_S)
        base = _moved(base0, await _read(fetch, metrics["base"]))
    except MetricsProblem as exc:
        return unchecked(f"a side's /metrics gave no second reading ({exc})")
    return decided(counted, base)


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
