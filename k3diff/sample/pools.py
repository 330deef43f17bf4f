"""The httpx pools `k3diff sample`'s client sends through: the samples' pools of
`CONNECTIONS_PER_POOL` connections each, and one pool of side requests (probe, flush, the
running-requests gauge, the one-server check's readings)."""

from __future__ import annotations

import ssl

import httpx

from k3diff.sample.bodyread import ACCEPT_ENCODING
from k3diff.sample.routing import Routing, proxy_transport, tls_context
from k3diff.sample.transport import transport

CONNECTIONS_PER_POOL = 2
"""Connections per httpx pool. httpcore scans every connection of a pool for each request (and
polls each idle one's socket), so one pool of 64 connections spends more time scanning than
sending; at concurrency 64, pools of 2 took the client from ~210 to ~850 requests per CPU-second
(scripts/bench_sample.py)."""
SIDE_CONNECTIONS = 4
"""Connections of the side requests' pool: the one-server check reads a side's `/metrics` this
many times at once (`k3diff.sample.identity.TOGETHER`), each on a connection of its own."""


def _client(
    limits: httpx.Limits, timeout: float, tls: ssl.SSLContext, one: httpx.AsyncHTTPTransport
) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        limits=limits,
        verify=tls,
        transport=one,
        timeout=httpx.Timeout(timeout),
        trust_env=False,
        # httpx would advertise (and decode) br and zstd whenever their modules are
        # installed; their expansion is not bounded (k3diff.sample.response).
        headers={"Accept-Encoding": ACCEPT_ENCODING},
    )


def pools(
    connections: int, timeout: float, routing: Routing
) -> tuple[list[httpx.AsyncClient], list[httpx.AsyncHTTPTransport], httpx.AsyncClient]:
    """The samples' pools and their transports, and the side requests' pool (`connections`
    in all, the side's one pool's share of them, or `SIDE_CONNECTIONS` where more): httpx clients that never read the environment (`trust_env=False`),
    each over a transport of its own, through the routing's proxy when it names one
    (`k3diff.sample.routing`)."""
    shards = max(1, -(-connections // CONNECTIONS_PER_POOL))
    per_pool = -(-connections // shards)
    # One TLS context for all pools: building one loads the CA bundle (tens of ms each).
    tls = tls_context(routing.ca_cert)
    proxy = routing.proxy

    def pool(size: int) -> tuple[httpx.AsyncClient, httpx.AsyncHTTPTransport]:
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        one = transport(limits, tls) if proxy is None else proxy_transport(limits, tls, proxy)
        return _client(limits, timeout, tls, one), one

    made = [pool(per_pool) for _ in range(shards - 1)]
    side, _ = pool(max(per_pool, SIDE_CONNECTIONS))
    return [client for client, _ in made], [one for _, one in made], side
