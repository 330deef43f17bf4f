"""Sends one request to an OpenAI-compatible server, retrying what is transient.

Connection errors, timeouts, 429 and 5xx answers, and 200 answers that cannot be read (malformed
JSON, a stream cut short) are retried up to `retries` times (`k3diff.sample.retry`: full-jitter
exponential backoff, `Retry-After` honoured). A request that still fails becomes an `Outcome`
with its error: failures are recorded, never raised or dropped.

`--timeout` bounds the whole request: every attempt and every wait between attempts end by one
deadline (`retry.Deadline`), so a server dripping a byte every few seconds, or a `Retry-After`
longer than the time left, ends in a failed sample on time. Bodies are read through the caps of
`k3diff.sample.response` (`--max-response-bytes`); a larger answer fails without a retry. An
answer to a stream request that holds no event stream, whatever its Content-Type says, stops
the run (a `ServerError`): one whole JSON completion (a server that ignores `stream: true` does
so every time) or a body that is not even JSON (`k3diff.sample.unstreamed`); so does a
non-stream answer that does not begin like JSON.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

import httpx

from k3diff import bounded
from k3diff.errors import InputError, ServerError
from k3diff.sample.alive import Liveness
from k3diff.sample.bodyread import TooLarge, read_capped, stream_lines
from k3diff.sample.finish import FINISHED
from k3diff.sample.model import Outcome
from k3diff.sample.outcomes import failed, succeeded
from k3diff.sample.overlap import Timing
from k3diff.sample.pools import CONNECTIONS_PER_POOL
from k3diff.sample.pools import pools as _pools
from k3diff.sample.response import (
    DEFAULT_MAX_RESPONSE_BYTES,
    ERROR_BODY_BYTES,
    Answer,
    BadAnswer,
    StreamReader,
    read_body,
)
from k3diff.sample.retry import (
    Deadline,
    Final,
    OutOfStep,
    Retryable,
    backoff_delay,
    check_status,
    describe,
)
from k3diff.sample.routing import Routing
from k3diff.sample.stopline import ServerStop, StopReason
from k3diff.sample.transport import answered_unsent
from k3diff.sample.unstreamed import Sniff, media_type, not_json

PROBE_TIMEOUT = 10.0


CLOSE = {"Connection": "close"}
"""Sent with a request whose connection must not be kept: the next request opens a new one,
which a server of several worker processes may hand to another worker (`sample.identity`)."""


class SamplerClient:
    """One async HTTP client for both servers, with connection limits and timeouts."""

    def __init__(
        self,
        connections: int,
        timeout: float,
        retries: int,
        backoff: float,
        routing: Routing | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        finished: frozenset[str] = FINISHED,
    ) -> None:
        self._routing = routing or Routing()
        # One pool more than the samples need, kept for side requests (probe, flush, the
        # running-requests gauge, the one-server check): a gauge poll never waits for a busy sample connection, so it
        # is read while the batch it should see is still in flight.
        pools, transports, self._side = _pools(
            connections + CONNECTIONS_PER_POOL, timeout, self._routing
        )
        self._pools, self._transports = pools, transports
        shards = len(self._pools)
        self._busy = [0] * shards
        self._retries = retries
        self._backoff = backoff
        self._timeout = timeout
        self._max_body = max_response_bytes
        self._finished = finished  # the finish reasons that make a text whole (--finish-reason)
        self.liveness = Liveness(retries)
        """Counts the samples' requests that got no answer (`Sampler.take`)."""

    @property
    def _http(self) -> httpx.AsyncClient:
        """The pool of short side requests (probe, flush, metrics), never used by samples."""
        return self._side

    def _least_busy(self) -> int:
        """The pool with the fewest requests in flight: it has a free connection whenever the
        whole client has one, so no request queues behind another while connections are idle."""
        busy = self._busy
        return busy.index(min(busy))

    async def aclose(self) -> None:
        for pool in (*self._pools, self._side):
            await pool.aclose()

    def prepare(self, url: str, body: dict[str, Any]) -> httpx.Request:
        """The POST of `body` to `url` with the client's headers and timeouts, ready to send.

        A prepared request is immutable in use and can be sent any number of times, also
        concurrently: identical requests are built (URL parsed, JSON encoded) once. It carries
        the `--header` values: it goes to a base or patch server."""
        return self._http.build_request(
            "POST", url, json=body, headers=self._routing.server_headers
        )

    async def send(self, url: str, body: dict[str, Any], stream: bool) -> Outcome:
        """POST `body` to `url` with retries; the outcome of the last attempt."""
        return await self.send_prepared(self.prepare(url, body), stream)

    async def send_prepared(
        self, request: httpx.Request, stream: bool, timing: Timing | None = None
    ) -> Outcome:
        """Send a prepared request with retries, all within `--timeout`; the outcome of the
        last attempt. `timing` records when it was sent, answered and ended."""
        if timing is None:
            timing = Timing(None, "")
        try:
            return await self._send_timed(request, stream, timing)
        finally:
            timing.done()

    async def _send_timed(self, request: httpx.Request, stream: bool, timing: Timing) -> Outcome:
        started = time.time()
        deadline = Deadline(self._timeout)
        connected = False
        attempt = 0
        out_of_step = 0  # attempts answered before they were sent (`OutOfStep`)
        while True:
            attempt += 1
            begin = time.perf_counter()
            try:
                answer = await deadline.run(self._attempt(request, stream, timing))
            except Retryable as exc:
                connected = connected or exc.status is not None
                out_of_step += isinstance(exc, OutOfStep)
                failure = (exc.status, str(exc), exc.retry_after)
            except Final as exc:
                reached = connected or exc.status is not None
                return failed(exc.status, str(exc), attempt, begin, started, reached, out_of_step)
            else:
                return succeeded(answer, attempt, begin, started, out_of_step)
            status, message, retry_after = failure
            if attempt > self._retries:
                return failed(status, message, attempt, begin, started, connected, out_of_step)
            wait = self.delay(attempt, retry_after)
            late = deadline.too_late(wait, retry_after)
            if late is not None:
                message = f"{message}; {late}"
                return failed(status, message, attempt, begin, started, connected, out_of_step)
            await asyncio.sleep(wait)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number `attempt` (full jitter; Retry-After honoured)."""
        return backoff_delay(attempt, retry_after, self._backoff)

    async def _attempt(self, request: httpx.Request, stream: bool, timing: Timing) -> Answer:
        index = self._least_busy()
        self._busy[index] += 1
        timing.sending(streamed=stream)
        try:
            if stream:
                return await self._attempt_stream(self._pools[index], request, timing)
            # Straight to the transport: the client layer's auth flow, redirect handling, cookie
            # jar and event hooks are not used here, and cost a third of the client's CPU per
            # request (scripts/bench_sample.py). Timeouts travel in the request's extensions.
            response = await self._transports[index].handle_async_request(request)
            timing.answering()
            try:
                _check_in_step(response)
                if response.status_code != 200:
                    check_status(
                        response,
                        await read_capped(response, ERROR_BODY_BYTES, True),
                        str(request.url),
                    )
                content = await read_capped(response, self._max_body)
            finally:
                await response.aclose()
            try:
                return read_body(content, self._max_body, self._finished)
            except BadAnswer:  # not even JSON (an HTML page): ServerError, the run stops
                media = media_type(response.headers.get("content-type", ""))
                not_json(content, media, str(request.url))
                raise
        except TooLarge as exc:
            raise Final(str(exc), 200) from exc
        except httpx.TimeoutException as exc:
            raise Retryable(f"timed out ({type(exc).__name__})", None, None) from exc
        except httpx.TransportError as exc:
            raise Retryable(f"connection error: {describe(exc)}", None, None) from exc
        except BadAnswer as exc:
            raise Retryable(str(exc), 200, None) from exc
        finally:
            self._busy[index] -= 1

    async def _attempt_stream(
        self, pool: httpx.AsyncClient, request: httpx.Request, timing: Timing
    ) -> Answer:
        response = await pool.send(request, stream=True)
        timing.answering(opens=response.status_code != 200)
        try:
            _check_in_step(response)
            if response.status_code != 200:
                check_status(
                    response, await read_capped(response, ERROR_BODY_BYTES, True), str(request.url)
                )
            media = media_type(response.headers.get("content-type", ""))
            # Watched whatever its label (application/json too): a whole completion or a page,
            # however labelled, is no stream cut before its first chunk (retried in vain) but a
            # server no sample can be taken from (the run stops).
            watch = Sniff(str(request.url), media, self._max_body)
            reader = StreamReader(self._max_body, watch, self._finished)
            try:
                async for line in stream_lines(response, self._max_body):
                    before = reader.tokens
                    reader.feed(line)
                    if reader.tokens != before:
                        timing.producing()
            except httpx.TransportError as exc:
                raise BadAnswer(f"the stream was cut short: {describe(exc)}") from exc
            return reader.finish()
        finally:
            await response.aclose()

    async def probe(self, base_url: str, side: str) -> Any:
        """GET /v1/models: its JSON (or None when not offered); ServerError when unreachable,
        naming the option that gave `side`'s URL and what to do (newuser79: a wrong port said
        only `cannot reach the server`)."""
        url = f"{base_url}/v1/models"
        for attempt in range(1, self._retries + 2):
            try:
                status, value = await self._side_request("GET", url, refuse_large=True)
            except httpx.TransportError as exc:
                if attempt > self._retries:
                    raise ServerError(
                        f"{base_url}: cannot reach the server given as --{side}: "
                        f"{describe(exc)}; start it, or correct the URL's host and port"
                    ) from exc
                await asyncio.sleep(self.delay(attempt, None))
                continue
            return value if status == 200 else None
        return None

    async def flush(self, url: str) -> None:
        """POST the cache-flush URL (with the `--flush-header` values only); ServerStop when
        it keeps failing."""
        message = ""
        for attempt in range(1, self._retries + 2):
            try:
                status, _ = await self._side_request("POST", url, self._routing.flush_headers)
            except httpx.TransportError as exc:
                message = describe(exc)
            else:
                if status < 300:
                    return
                message = f"HTTP {status}"
            if attempt <= self._retries:
                await asyncio.sleep(self.delay(attempt, None))
        raise ServerStop(f"{url}: the cache flush failed: {message}", url, StopReason.FLUSH_FAILED)

    async def get_json(self, url: str, fresh: bool = False) -> tuple[int, Any]:
        """One GET of a server's URL (no retries): its status and JSON body (None when absent
        or unreadable); `fresh`: the connection closed after it (`CLOSE`)."""
        headers = {**self._routing.server_headers, **CLOSE} if fresh else None
        try:
            return await self._side_request("GET", url, headers)
        except httpx.TransportError:
            return 0, None

    async def get_bytes(
        self, url: str, cap: int, timeout: float, fresh: bool = False
    ) -> tuple[int, bytes | None]:
        """One GET of a server's URL (`--header` values sent, no retries) within `timeout`
        seconds: its status and body, None when the body is larger than `cap` bytes; `fresh`:
        the connection closed after it (`CLOSE`). A timeout or transport error is raised
        (httpx.TimeoutException, httpx.TransportError)."""
        headers = self._routing.server_headers
        try:
            async with asyncio.timeout(timeout):
                request = self._http.build_request(
                    "GET", url, timeout=timeout, headers={**headers, **CLOSE} if fresh else headers
                )
                response = await self._http.send(request, stream=True)
                try:
                    return response.status_code, await read_capped(response, cap)
                except TooLarge:
                    return response.status_code, None
                finally:
                    await response.aclose()
        except TimeoutError as exc:
            raise httpx.ReadTimeout(f"no complete answer within {timeout:g} s") from exc

    async def _side_request(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str] | None = None,
        refuse_large: bool = False,
    ) -> tuple[int, Any]:
        """One probe, flush or metrics request: its status and JSON body (None when absent,
        unreadable or over `--max-response-bytes`), the whole exchange within PROBE_TIMEOUT
        (a timeout is raised as httpx.TimeoutException, a transport error like any other).
        With `refuse_large`, an answer over the cap is a ServerError instead: the model list
        cannot be silently taken as absent (requests would go out without a `model`)."""
        try:
            async with asyncio.timeout(PROBE_TIMEOUT):
                request = self._http.build_request(
                    method,
                    url,
                    timeout=PROBE_TIMEOUT,
                    headers=self._routing.server_headers if headers is None else headers,
                )
                response = await self._http.send(request, stream=True)
                try:
                    content = await read_capped(response, self._max_body)
                except TooLarge as exc:
                    if refuse_large and response.status_code == 200:
                        raise ServerError(
                            f"{url}: {str(exc).removesuffix('; not read further')}; refused"
                        ) from exc
                    return response.status_code, None
                finally:
                    await response.aclose()
        except TimeoutError as exc:
            raise httpx.ReadTimeout(f"no complete answer within {PROBE_TIMEOUT:g} s") from exc
        try:
            return response.status_code, bounded.loads(content, url)
        except (ValueError, InputError):
            return response.status_code, None


def _check_in_step(response: httpx.Response) -> None:
    """OutOfStep (retried, on another connection, and counted) for an answer read before its
    request went out: bytes a server sent after an earlier answer on the connection, which
    would otherwise count for this request, and its own answer for the next one."""
    if answered_unsent(response):
        raise OutOfStep(
            "an answer arrived before the request was sent (the server sent more than one "
            "answer to an earlier request on the connection); the connection was closed",
            200,
            None,
        )
