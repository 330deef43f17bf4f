"""What `k3diff sample` retries and for how long.

Connection errors, timeouts, 429 and 5xx answers (`check_status`), and 200 answers that cannot
be read are `Retryable`: retried with full-jitter exponential backoff (`backoff_delay`); a 429
or 503 with `Retry-After` waits at least that long. A 401, 404 or 405 stops the run (every
request would get it: a wrong URL, route, model or key). Other 4xx answers, an answer over the size
cap and a passed deadline are `Final`. `--timeout` bounds the whole request: every attempt and
every wait between attempts end by one `Deadline`.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Coroutine
from typing import Any

import httpx

from k3diff.sample.bodyread import one_line
from k3diff.sample.response import Answer
from k3diff.sample.stopline import ServerStop, StopReason

MAX_RETRY_AFTER = 300.0
"""Longest Retry-After honoured (seconds); a larger one is clipped to this."""
MAX_BACKOFF = 30.0


def backoff_delay(attempt: int, retry_after: float | None, backoff: float) -> float:
    """Seconds to wait before retry number `attempt`: full jitter over `backoff` doubled per
    retry (at most MAX_BACKOFF); a Retry-After (at most MAX_RETRY_AFTER) is honoured."""
    jitter = random.uniform(0.0, min(MAX_BACKOFF, backoff * 2 ** (attempt - 1)))
    if retry_after is not None:
        return min(retry_after, MAX_RETRY_AFTER) + random.uniform(0.0, backoff)
    return jitter


class Retryable(Exception):
    """A failure a retry may fix: its message, the status (None: no answer), Retry-After."""

    def __init__(self, message: str, status: int | None, retry_after: float | None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class OutOfStep(Retryable):
    """An answer read before its request was sent (`k3diff.sample.transport.answered_unsent`):
    the server, or a proxy, answered an earlier request more than once. Retried on a new
    connection, and counted (`Outcome.out_of_step`): the summary says how often a side did it."""


class Deadline:
    """The end of one request's `--timeout`: every attempt and every wait must finish by it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds still allowed (never negative)."""
        return max(0.0, self._end - time.monotonic())

    async def run(self, attempt: Coroutine[Any, Any, Answer]) -> Answer:
        """`attempt`, cancelled when the deadline passes (a final timeout: no time to retry)."""
        try:
            async with asyncio.timeout(self.left()):
                answer = await attempt
        except TimeoutError as exc:
            raise Final(
                f"timed out: no complete answer within --timeout {self.seconds:g} s", None
            ) from exc
        if self.left() <= 0:
            # Parsing runs without an await, so the timeout above cannot stop it: an answer
            # parsed past the deadline is as late as one still arriving.
            raise Final(
                f"timed out: the answer was read but not parsed within --timeout "
                f"{self.seconds:g} s",
                None,
            )
        return answer

    def too_late(self, wait: float, retry_after: float | None) -> str | None:
        """Why waiting `wait` seconds for a retry cannot end in time, or None when it can."""
        left = self.left()
        if wait < left:
            return None
        if retry_after is not None and retry_after >= left:
            return (
                f"Retry-After {retry_after:g} s is beyond the {left:.1f} s left of "
                f"--timeout {self.seconds:g} s; not retried"
            )
        return f"no time left of --timeout {self.seconds:g} s for a retry"


class Final(Exception):
    """A failure retrying cannot fix (4xx other than 429)."""

    def __init__(self, message: str, status: int | None) -> None:
        super().__init__(message)
        self.status = status


REFUSES_EVERY_REQUEST = {
    401: "not authorised",
    404: "no such route or model",
    405: "not a POST route",
}
"""Statuses that say the URL, its route, its model or the credentials are wrong: every request of
the run would get the same, so the run stops (ServerStop, exit 2) at the first."""


def check_status(response: httpx.Response, content: bytes, url: str) -> None:
    """Nothing for a 200; else Retryable (429, 5xx), ServerStop (REFUSES_EVERY_REQUEST: the
    run stops) or Final (other statuses: that request fails), with the body's first line."""
    status = response.status_code
    if status == 200:
        return
    detail = one_line(content.decode("utf-8", "replace"))
    message = f"HTTP {status}" + (f": {detail}" if detail else "")
    if status in REFUSES_EVERY_REQUEST:
        raise ServerStop(
            f"{url}: answered {message} ({REFUSES_EVERY_REQUEST[status]}): every request of "
            "this run would be refused (check the URL, --endpoint, the model and credentials)",
            url,
            StopReason.REFUSED,
        )
    if status == 429 or status >= 500:
        raise Retryable(message, status, retry_after_seconds(response.headers.get("retry-after")))
    raise Final(message, status)


def retry_after_seconds(value: str | None) -> float | None:
    """A `Retry-After` header's seconds (a number or an HTTP date), None when absent or bad."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def describe(exc: Exception) -> str:
    """An exception on one line, its type named."""
    text = str(exc) or type(exc).__name__
    return one_line(f"{type(exc).__name__}: {text}" if text != type(exc).__name__ else text)
