"""Which drained `/perf_metrics` document holds a cold-warm cold request's record (TensorRT-LLM),
read from how `sample` writes them (`k3diff.sample.modes.run_cold_warm`, telem68).

`sample` sends a record's cold request, then drains `/perf_metrics` on every server that offers
it, labelled with that request (side, key, `cold-warm`, its repeat), before the warm ones; a
server that answers nothing (or an error) leaves no line. TensorRT-LLM's records name no request
of the samples log (`request_id` is the engine's own counter, not the answer's `id`), so the
drain is matched to its request by its label and its place, and:

- a cold request whose drain is not in the file, on a side whose drains report KV-cache
  metrics, cannot be read (a run stopped between the request and its drain, or the line
  removed): it holds `--expect cache-reuse`, and is never evidence either way;
- the first cold request of each side after a resume cannot be read either: the first drain
  after a resume also holds whatever the server kept from before it (requests sent before the
  run was killed, never drained), and nothing tells its records apart;
- a cold request's drain after a drain of the same side and record labelled with a later
  repeat is not the cold request's (`sample` drains the cold one first): refused, exit 2.

The drain of a cold request read otherwise is the first labelled with it; its first record is
the cold request's (one record since telem67; before, the whole record's, the cold one first).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from k3diff.errors import InputError
from k3diff.sample.names import Mode, is_cold
from k3diff.sample.reader import SamplesLog
from k3diff.telemetry.engines import RequestMetrics

COLD_WARM = Mode.COLD_WARM.value

Ident = tuple[str, str, str, int]
"""(side, key, mode, repeat): the sample a drain is labelled with."""

MISSING = "no /perf_metrics drain after it in {name} (a run stopped before it, or the line removed)"
RESUMED = (
    "the first drain after a resume, which also holds what the server kept from before it "
    "(TensorRT-LLM's records name no request of the samples log)"
)


@dataclass
class ColdDrains:
    """What the drains say of the cold-warm cold requests of one perf log."""

    cold: set[int] = field(default_factory=set)
    """Positions of the drains whose first record is a cold request's."""
    unread: dict[str, list[str]] = field(default_factory=dict)
    """side -> the cold requests whose drain cannot be read, each with why."""


@dataclass(frozen=True)
class Drain:
    """One line of the perf log: a drained `/perf_metrics` document."""

    line: int
    """Its line number."""
    entry: Mapping[str, Any]
    """The line as written (`side`, `mode`, `key`, `repeat`, `metrics`)."""
    requests: Sequence[RequestMetrics]
    """Its records, read (`k3diff.telemetry.engines.trtllm_requests`)."""


def _ident(entry: Mapping[str, Any]) -> Ident | None:
    repeat = entry.get("repeat")
    if entry.get("mode") != COLD_WARM or type(repeat) is not int:
        return None
    return str(entry.get("side")), str(entry.get("key")), COLD_WARM, repeat


def _kv_sides(drains: Sequence[Drain]) -> set[str]:
    """Sides some drain of which (the control's aside) reports `kv_cache_metrics`, valid or not:
    the sides whose cold requests' drains are due."""
    return {
        str(drain.entry.get("side"))
        for drain in drains
        if drain.entry.get("mode") != Mode.CONTROL.value
        and any(r.kv is not None or r.kv_invalid is not None for r in drain.requests)
    }


def cold_drains(drains: Sequence[Drain], logs: Iterable[SamplesLog], perf: str) -> ColdDrains:
    """The cold requests of `logs` (the samples logs beside the perf log `perf`) matched to its
    `drains`; InputError for a drain out of the order `sample` writes."""
    found = ColdDrains()
    first: dict[Ident, int] = {}
    records: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for position, drain in enumerate(drains):
        ident = _ident(drain.entry)
        if ident is not None:
            first.setdefault(ident, position)
            records.setdefault(ident[:2], []).append((position, ident[3]))
    due = _kv_sides(drains)
    for log in logs:
        segments = log.segments or (0,) * len(log.samples)
        resumed: set[tuple[str, int]] = set()
        for sample, segment in zip(log.samples, segments, strict=True):
            if not is_cold(sample.mode, sample.repeat, sample.cold):
                continue
            after_resume = segment > 0 and (sample.side, segment) not in resumed
            resumed.add((sample.side, segment))
            at = first.get(sample.ident)
            if sample.side not in due or sample.error is not None:
                # A failed one holds the side already where its warm requests were answered
                # (left67c); its drain, where there is one, is read as before.
                if at is not None and not after_resume:
                    found.cold.add(at)
                continue
            said = f"the TensorRT-LLM request of {sample.key} {COLD_WARM} repeat {sample.repeat}"
            if after_resume:
                found.unread.setdefault(sample.side, []).append(f"{said}: {RESUMED}")
            elif at is None:
                missing = MISSING.format(name=perf.rsplit("/", 1)[-1])
                found.unread.setdefault(sample.side, []).append(f"{said}: {missing}")
            else:
                record = records[(sample.side, sample.key)]
                _refuse_out_of_order(drains, record, at, sample.ident, perf)
                found.cold.add(at)
    return found


def _refuse_out_of_order(
    drains: Sequence[Drain], record: list[tuple[int, int]], cold: int, ident: Ident, perf: str
) -> None:
    """InputError where a drain of the same side and record labelled with a later repeat
    (`record`: each drain's position and repeat) comes before the cold request's (at `cold`)."""
    side, key, _, repeat = ident
    for position, later in record:
        if position < cold and later > repeat:
            raise InputError(
                f"{perf}:{drains[cold].line}: the drain labelled with {side} {key!r} cold-warm "
                f"repeat {repeat}, the cold request, comes after line {drains[position].line}'s, "
                f"drained after repeat {later}: sample drains a record's cold request before its "
                "warm ones, so this drain holds other requests' records (the file was edited); "
                "sample the run again"
            )
