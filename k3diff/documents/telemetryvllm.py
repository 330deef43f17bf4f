"""What a `k3diff.telemetry/1` document says of vLLM beside speculation, written and read
typed: counters that went down across a window and every other window whose counts were lost
(`counter_resets`), preemptions per side (`preemptions`), and the sides whose vLLM V0
speculation series were not read as counts (`v0_sides`); and a run stopped part-way
(`stopped`, `unsampled`). Each is absent from a document without one (and from older
documents)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from k3diff.documents.telemetrystops import stops_json
from k3diff.fields import Fields
from k3diff.sample.names import SIDES
from k3diff.telemetry.engines import SOURCE_SGLANG, SOURCE_TRTLLM, SOURCE_VLLM
from k3diff.telemetry.model import Preemptions, TelemetryReport
from k3diff.telemetry.windows import CounterReset

UNIT_SOURCES = (SOURCE_VLLM, SOURCE_TRTLLM, SOURCE_SGLANG)


@dataclass(frozen=True)
class TelemetryVllm:
    """vLLM's resets, preemptions and V0 sides, as the document states them."""

    counter_resets: tuple[CounterReset, ...] = ()
    preemptions: tuple[Preemptions, ...] = ()
    v0_sides: tuple[str, ...] = ()

    @property
    def new_preemption(self) -> Preemptions | None:
        """The patch's preemptions where the base, read as well, had none."""
        by_side = {p.side: p for p in self.preemptions}
        base, patch = by_side.get("base"), by_side.get("patch")
        if base is None or patch is None or base.preemptions or not patch.preemptions:
            return None
        return patch


def _reset(fields: Fields) -> CounterReset:
    return CounterReset(
        side=fields.string("side", SIDES),
        metric=fields.string("metric"),
        window=fields.string("window"),
        samples=fields.integer("samples"),
        lost=fields.boolean("lost"),
        reason=fields.optional_string("reason"),
        source=_source(fields),
    )


def _source(fields: Fields) -> str:
    """Whose unit: vLLM's when absent (documents before left66 name no other)."""
    return fields.optional_string("source", UNIT_SOURCES) or SOURCE_VLLM


def _preemptions(fields: Fields) -> Preemptions:
    return Preemptions(
        side=fields.string("side", SIDES),
        preemptions=fields.integer("preemptions"),
        windows=fields.integer("windows"),
    )


def read_vllm(fields: Fields) -> TelemetryVllm:
    """The document's vLLM lists (empty where absent)."""
    return TelemetryVllm(
        counter_resets=fields.each("counter_resets", _reset)
        if fields.has("counter_resets")
        else (),
        preemptions=fields.each("preemptions", _preemptions) if fields.has("preemptions") else (),
        v0_sides=fields.strings("v0_sides") if fields.has("v0_sides") else (),
    )


def vllm_json(report: TelemetryReport) -> dict[str, Any]:
    """vLLM's counter resets, preemptions and V0 sides, each only when there is one (a
    document without them reads as before)."""
    found: dict[str, Any] = {}
    if report.counter_resets:
        found["counter_resets"] = [
            {
                "side": r.side,
                "metric": r.metric,
                "window": r.window,
                "samples": r.samples,
                "lost": r.lost,
                **({"reason": r.reason} if r.reason is not None else {}),
                **({"source": r.source} if r.source != SOURCE_VLLM else {}),
            }
            for r in report.counter_resets
        ]
    if report.preemptions:
        found["preemptions"] = [
            {"side": p.side, "preemptions": p.preemptions, "windows": p.windows}
            for p in report.preemptions
        ]
    if report.v0_sides:
        found["v0_sides"] = list(report.v0_sides)
    found.update(stops_json(report.stops, report.unsampled))  # telstop65
    return found
