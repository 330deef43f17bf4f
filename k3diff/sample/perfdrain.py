"""The lines of `perf_metrics.jsonl`, one per `/perf_metrics` drain attempt (telem68b).

`sample` writes a line for every attempt on every server it drains:

- a drain that answered (200, a JSON document): the document as `metrics`, an empty one too;
- a drain that failed (another status, no answer within the probe timeout, a connection
  error, an answer that is no JSON or is past `--max-response-bytes`): `error`, saying which,
  in k3diff's own words (capped at MAX_ERROR characters). The server may have kept the
  records a failed drain did not take (TensorRT-LLM, where the drain never reached its
  handler, which swaps its queue for an empty one before answering: telem69), and the next
  drain on that server then returns them too;
- the start-up drain of each run (a resumed one too), the probe that finds the servers that
  offer `/perf_metrics`: `start` (the run's segment: 0, then one more per `--resume`) with
  `records` (how many it took, not kept: they are no request of this run) or `error`.

- the closing drain of each run that finished (telem70): `end` (the run's segment) with
  `records` or `error`, as the start-up drain's: the drain after the run's last request on
  that server, which shows whether its record came late (before, the last cold-warm cold
  request of a run had no drain after it, and `telemetry` could not read it).

Before, a failed or empty drain left no line, and the start-up drain none, so `telemetry` could
not tell a cold request's drain that also held records a failed drain left behind, or whether
a resumed run started from a server with no records.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from k3diff import escape

ERROR = "error"
"""A failed attempt's field: why it failed."""
START = "start"
"""The start-up drain's field: the run's segment (the resume markers before it)."""
END = "end"
"""The closing drain's field: the run's segment (telem70)."""
RECORDS = "records"
"""The start-up drain's field: how many records it took."""
PERF_START_FIELD = "perf_start_drains"
"""The samples log header's `run` field saying its runs write their start-up drains (each
side whose server offers `/perf_metrics`, each run): a cold request's drain with no start-up
line of its run before it is then an edited file, not an older one (review69b)."""
PERF_BATCH_FIELD = "perf_batch_drains"
"""The samples log header's `run` field saying its concurrent and sweep batches are drained
each on its own server, labelled with a request of it (telem70): the requests a drain so
labelled follows are its batch's, all of them."""
MAX_ERROR = 200
"""Characters of an error kept (written) and shown (read)."""


def drain_error(status: int, metrics: Any) -> str | None:
    """Why a drain answered with `status` and `metrics` (None: no JSON) failed; None when it
    answered."""
    if status == 0:
        return "no answer (a timeout or a connection error)"
    if status != 200:
        return f"HTTP {status}"
    if metrics is None:
        return "an answer that is not JSON or is past --max-response-bytes"
    return None


def drained(entry: dict[str, Any], status: int, metrics: Any) -> dict[str, Any]:
    """The line of one drain labelled `entry` (side, mode, key, repeat)."""
    error = drain_error(status, metrics)
    if error is not None:
        return {**entry, ERROR: error[:MAX_ERROR]}
    return {**entry, "metrics": metrics}


def start_line(
    side: str, segment: int, status: int, metrics: Any, field: str = START
) -> dict[str, Any]:
    """The line of the start-up drain of `side`'s server in the run's `segment` (`field`
    END: its closing drain)."""
    entry: dict[str, Any] = {"side": side, field: segment}
    error = drain_error(status, metrics)
    if error is not None:
        return {**entry, ERROR: error[:MAX_ERROR]}
    records = len(metrics) if isinstance(metrics, list) else 1 if metrics else 0
    return {**entry, RECORDS: records}


def failed(entry: Mapping[str, Any]) -> str | None:
    """Why the attempt of a line read back failed (escaped and capped: the file may have been
    edited), None when it answered."""
    if ERROR not in entry:
        return None
    return escape.text(str(entry[ERROR])[:MAX_ERROR])


def start_segment(entry: Mapping[str, Any]) -> int | None:
    """The segment of a start-up drain's line, None for any other line."""
    segment = entry.get(START)
    return segment if type(segment) is int and segment >= 0 else None


def end_segment(entry: Mapping[str, Any]) -> int | None:
    """The segment of a closing drain's line, None for any other line."""
    segment = entry.get(END)
    return segment if type(segment) is int and segment >= 0 else None
