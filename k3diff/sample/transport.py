"""The httpx transport `k3diff sample` sends through: httpx's own, writing each request at once.

httpcore writes an HTTP/1.1 request in two socket writes (head, then body). Each write is a
system call, and on loopback it also wakes the server for a half request. The streams here keep
what is written and send it in one write just before the response is read (or the connection is
closed), which took the client from ~870 to ~700 µs of CPU per request against an instant server
(scripts/bench_sample.py). Everything else (connection pool, TLS, timeouts, error mapping) is
httpx's and httpcore's unchanged.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx


class _WriteOnReadStream(httpcore.AsyncNetworkStream):
    """A network stream whose writes go out together, before the next read."""

    def __init__(self, stream: httpcore.AsyncNetworkStream) -> None:
        self._stream = stream
        self._pending: list[bytes] = []
        self._timeout: float | None = None
        self._stale = False

    async def _send_pending(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending = []
            await self._stream.write(data, self._timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if buffer:
            self._pending.append(buffer)
            self._timeout = timeout

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        await self._send_pending()
        return await self._stream.read(max_bytes, timeout)

    async def aclose(self) -> None:
        self._pending = []
        await self._stream.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        await self._send_pending()
        tls = await self._stream.start_tls(ssl_context, server_hostname, timeout)
        return _WriteOnReadStream(tls)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable" and self._stale:
            return True  # read as the server's: httpcore closes it instead of reusing it
        return self._stream.get_extra_info(info)

    def answered_unsent(self) -> bool:
        """Whether a response was read while its request was still unsent: it was taken from
        bytes the server sent after an earlier answer. The connection is then out of step
        (each answer would count for the request after its own): its unsent request is dropped
        and httpcore closes it rather than send another request on it."""
        if not self._pending:
            return False
        self._pending = []
        self._stale = True
        return True


def answered_unsent(response: httpx.Response) -> bool:
    """Whether `response` came before its request was sent (`_WriteOnReadStream.answered_unsent`)."""
    stream = response.extensions.get("network_stream")
    return isinstance(stream, _WriteOnReadStream) and stream.answered_unsent()


class _WriteOnReadBackend(httpcore.AsyncNetworkBackend):
    """httpcore's backend under asyncio (anyio), its TCP streams wrapped in `_WriteOnReadStream`."""

    def __init__(self) -> None:
        self._backend = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._backend.connect_tcp(host, port, timeout, local_address, socket_options)
        return _WriteOnReadStream(stream)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        return await self._backend.connect_unix_socket(path, timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


def transport(limits: httpx.Limits, tls: ssl.SSLContext) -> httpx.AsyncHTTPTransport:
    """httpx's transport with `limits` and `tls`, its connections writing each request at once."""
    result = httpx.AsyncHTTPTransport(limits=limits, verify=tls)
    pool = getattr(result, "_pool", None)
    if isinstance(pool, httpcore.AsyncConnectionPool):
        # httpx builds its pool without a network_backend argument; this one differs in that
        # argument only. Should a later httpx lay its transport out otherwise, its own stays.
        result._pool = httpcore.AsyncConnectionPool(
            ssl_context=tls,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_WriteOnReadBackend(),
        )
    return result
