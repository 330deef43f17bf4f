"""A `k3diff.telemetry/1` document's `stopped` (telstop65): each log's stop line, with the log
as given (`log`, report66; absent from a document written before), written and read back; and
`unsampled`, the sides a run stopped before."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from k3diff.fields import Fields
from k3diff.sample.names import SIDES
from k3diff.sample.stopline import LogStop, StopLine, stop_fields


def stops_json(stops: Sequence[LogStop], unsampled: Sequence[str]) -> dict[str, Any]:
    """`stopped` and `unsampled`, each only where there is one."""
    found: dict[str, Any] = {}
    if stops:
        found["stopped"] = [{"log": s.log, **stop_fields(s.stop)} for s in stops]
    if unsampled:
        found["unsampled"] = list(unsampled)
    return found


def _stop(fields: Fields) -> LogStop:
    side = fields.optional_string("side")
    if side is not None and side not in SIDES:
        raise fields.fail("side", "must be base or patch")
    stop = StopLine(
        fields.string("stopped"),
        fields.string("reason"),
        fields.boolean("resumable"),
        fields.string("message"),
        side,
    )
    return LogStop(fields.optional_string("log"), stop)


def read_stops(fields: Fields) -> tuple[LogStop, ...]:
    """The document's stops (empty where it has none)."""
    return fields.each("stopped", _stop) if fields.has("stopped") else ()
