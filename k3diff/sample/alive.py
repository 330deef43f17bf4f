"""When a server has stopped answering, and the run stops.

A server killed mid-run (or a network gone) refuses or drops every later request. Each request
is retried on its own (`k3diff.sample.client`) and what still fails is a failed sample; without
a stop, every remaining sample of a long run was retried and failed in turn (a 400-sample run
against a killed server went on for half an hour, printing nothing). So the requests to each
URL that take a sample are counted in the order they end: DEAD_AFTER in a row that got no
answer, each after its own retries, stop the run (`ServerStop`, exit 2, one line
naming the URL; `k3diff.sample.stop` adds how many samples the log keeps, and `--resume`
continues). No answer: the connection refused, reset or closed before an answer, a timeout, or
a 502 or 504 (a gateway saying the server behind it gave none). Any other answer, a 500 or 503
included, is the server's own and sets the count back to 0: a prompt the patch fails on is a
finding to record (exit 1), not a dead server, and a server that answers now and then is
sampled to the end. The background requests of loaded mode and the fillers are not counted:
their failures are recorded (`k3diff.sample.load`), and a slow target answered while they fail
shows the server is alive.
"""

from __future__ import annotations

from k3diff.sample.model import Outcome
from k3diff.sample.stopline import ServerStop, StopReason

DEAD_AFTER = 5
"""Requests to one URL in a row, each after its retries, that got no answer: the run stops."""

GATEWAY_NO_ANSWER = frozenset({502, 504})
"""Statuses a gateway gives when the server behind it did not answer (bad gateway, timeout)."""


class Liveness:
    """Per URL, the requests in a row (as they ended) that got no answer."""

    def __init__(self, retries: int) -> None:
        self._retries = retries
        self._silent: dict[str, int] = {}

    def count(self, url: str, outcome: Outcome) -> None:
        """Count one request's outcome; ServerStop on the DEAD_AFTER-th unanswered in a row."""
        answered = outcome.status is not None and outcome.status not in GATEWAY_NO_ANSWER
        if outcome.error is None or answered:
            self._silent[url] = 0
            return
        silent = self._silent.get(url, 0) + 1
        self._silent[url] = silent
        if silent >= DEAD_AFTER:
            raise ServerStop(
                f"{url}: {silent} requests in a row got no answer (the last: {outcome.error}), "
                f"each after --retries {self._retries}: the server is down or unreachable",
                url,
                StopReason.NO_ANSWER,
            )
