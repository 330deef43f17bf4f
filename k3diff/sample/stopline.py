"""How a `k3diff sample` run that stopped part-way says so in its log: the stop line.

A run that stops once its log is open (`k3diff.sample.stop`) appends one last line
`{"schema": "k3diff.samples/1", "stopped": TIME, "reason": CODE, "resumable": BOOL,
"message": TEXT}` (and `"side"` where one side's server stopped it), so that what reads the log
later (triage's `next:` line, the bundle's next step) can tell a run interrupted (Ctrl-C: the
same command with `--resume` continues) from one the server cannot serve (a server that does
not stream: `--resume` sends the same requests and stops the same way). `message` is the
stderr line's cause, without what the log keeps (the log itself says that). A stop whose log
cannot be written (a full disk) leaves no line. `--resume` appends its marker after the stop
line, which stays as history: a stop speaks for the log only while it is the log's last line
(`SamplesLog.stop`).

Readers act on `resumable` and show `message`; `reason` is for machines, and a reader meets
codes it does not know (a later k3diff's) without refusing the log.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from k3diff.errors import InputError, ServerError
from k3diff.ids import SAMPLES as SCHEMA
from k3diff.sample.header import json_line
from k3diff.sample.names import SIDES
from k3diff.sample.usage import shown


class StopReason(StrEnum):
    """What stopped a run (the stop line's `reason`)."""

    INTERRUPTED = "interrupted"
    """Ctrl-C."""
    TERMINATED = "terminated"
    """SIGTERM (a cancelled CI job, `timeout`)."""
    NO_ANSWER = "no-answer"
    """Requests in a row to one server got no answer (`k3diff.sample.alive`)."""
    FLUSH_FAILED = "flush-failed"
    """The cache flush URL kept failing."""
    NOT_STREAMED = "not-streamed"
    """A server answered a stream request with one whole completion (`k3diff.sample.unstreamed`)."""
    NOT_AN_ENDPOINT = "not-an-endpoint"
    """A server answered with a body that is no completion at all (a page, a proxy's notice)."""
    REFUSED = "refused"
    """A server refused a request as it refuses every one (HTTP 401, 404, 405)."""
    ERROR = "error"
    """Any other problem that stopped the run."""

    @property
    def resumable(self) -> bool:
        """The same command with `--resume` can take more samples (once a server that stopped
        answering answers again, a proxy's notice is gone); False where the server answers the
        same requests the same way, so `--resume` stops the same way."""
        return self not in _NOT_RESUMABLE


_NOT_RESUMABLE = frozenset({StopReason.NOT_STREAMED, StopReason.REFUSED})
"""A server that ignores `stream: true`, or refuses the run's route, model or credentials,
answers every request of the run so. A page or a proxy's notice (`NOT_AN_ENDPOINT`: 'upstream
is down', a sign-in page) may be gone when the run is resumed."""


class ServerStop(ServerError):
    """A server's answer (or silence) that stops the run: the stop's reason and the URL asked."""

    reason = StopReason.ERROR

    def __init__(self, message: str, url: str, reason: StopReason | None = None) -> None:
        super().__init__(message)
        self.url = url
        """The URL the request went to (an inference route, or the flush URL)."""
        if reason is not None:
            self.reason = reason


@dataclass(frozen=True)
class StopLine:
    """The last line of a log whose run stopped part-way."""

    stopped: str
    """When (UTC, ISO 8601)."""
    reason: str
    """What stopped it: a `StopReason` value (a later k3diff's code is read as it is)."""
    resumable: bool
    """`--resume` with the same command can take more samples (`StopReason.resumable`)."""
    message: str
    """What stopped it, as the run's stderr line said (without what the log keeps)."""
    side: str | None = None
    """The side whose server stopped the run, None where none did (Ctrl-C) or it is not known."""


class LogStop(NamedTuple):
    """A log's stop, with the log it ends: `telemetry` of runs pooled (`--pool-runs`) names
    each stop's log (report66: its stops were listed without their logs)."""

    log: str | None
    """The log as given (None: a telemetry document written before it named them)."""
    stop: StopLine
    """Its stop line."""

    def said(self) -> str:
        """`stopped part-way (LOG): REASON … at TIME (MESSAGE); resumable: …` (`stop_said`)."""
        where = "" if self.log is None else f" ({self.log})"
        return f"stopped part-way{where}: {stop_said(self.stop)}"


def now() -> str:
    """The time a stop or a resume marker records: UTC, to the second."""
    moment = datetime.datetime.now(datetime.UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def stop_fields(stop: StopLine) -> dict[str, Any]:
    """The stop's fields as the log writes them (`side` only where known); `telemetry`'s
    JSON `stopped` holds the same."""
    fields: dict[str, Any] = {
        "stopped": stop.stopped,
        "reason": stop.reason,
        "resumable": stop.resumable,
        "message": stop.message,
    }
    if stop.side is not None:
        fields["side"] = stop.side
    return fields


def stop_line(stop: StopLine) -> bytes:
    """The stop line as written."""
    return json_line({"schema": SCHEMA, **stop_fields(stop)})


def stop_said(stop: StopLine) -> str:
    """The stop in words: `interrupted at TIME (MESSAGE); resumable: ...`."""
    side = f", {stop.side} side" if stop.side is not None else ""
    how = (
        "resumable: the same command with --resume takes the rest"
        if stop.resumable
        else "not resumable: --resume would stop the same way"
    )
    return f"{stop.reason}{side} at {stop.stopped} ({stop.message}); {how}"


def is_stop(value: Mapping[str, Any]) -> bool:
    """A schema line that is a stop line (the reader's test, before a resume marker's)."""
    return "stopped" in value


def read_stop(value: Mapping[str, Any], where: str) -> StopLine:
    """A stop line's object checked (`where` is `FILE:LINE`)."""
    for name in ("stopped", "reason", "message"):
        if not isinstance(value.get(name), str) or not value[name]:
            raise InputError(f"{where}: stop line '{name}' is not a non-empty string")
    resumable = value.get("resumable")
    if not isinstance(resumable, bool):
        raise InputError(f"{where}: stop line 'resumable' is {shown(resumable)}, not true or false")
    side = value.get("side")
    if side is not None and side not in SIDES:
        raise InputError(f"{where}: stop line 'side' is {shown(side)}, expected base or patch")
    return StopLine(value["stopped"], value["reason"], resumable, value["message"], side)
