"""`k3diff telemetry`: what the servers reported about the run itself, and whether the run
exercised what it was meant to.

From the samples log (each sample's `usage`, `latency_s`, and the engines' own accounting
`sample` kept: vLLM's `/metrics` speculation counters, SGLang's `meta_info`) and
`perf_metrics.jsonl` beside it (TensorRT-LLM's `/perf_metrics`, aggregated or disaggregated), per
side and mode: latency percentiles, cached prompt tokens and reused KV blocks,
speculative-decoding acceptance with a Clopper-Pearson interval and a base-vs-patch test, and
per draft position where the engine reports positions (`k3diff.telemetry.engines`). With
`--expect cache-reuse`, `speculation` or `draft-lengths=1-K`, a side that shows none of it is a
`not-exercised` finding: coverage debt, never a pass. With `--fail-on acceptance-drop`, a
patch accepting fewer draft tokens than the base (pooled or at a draft position) by a
permutation test over units, requests or vLLM windows (`k3diff.telemetry.gate`), fails the run.
"""

# The names below are imported on first use (PEP 562), so that importing a module of this
# package (a document reader imports its model) never loads what its command runs with: the
# heavy libraries (scipy, httpx, pyelftools, rapidfuzz, matplotlib) load only when used.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Imported now: a submodule of the same name would otherwise shadow the function.
from k3diff.telemetry.summarize import TelemetryOptions, summarize

if TYPE_CHECKING:
    from k3diff.telemetry.model import Expectation, ModeTelemetry, Speculation, TelemetryReport

_LAZY = {
    "Expectation": ("k3diff.telemetry.model", "Expectation"),
    "ModeTelemetry": ("k3diff.telemetry.model", "ModeTelemetry"),
    "Speculation": ("k3diff.telemetry.model", "Speculation"),
    "TelemetryReport": ("k3diff.telemetry.model", "TelemetryReport"),
}
"""Exported name -> (module, attribute)."""

__all__ = [
    "Expectation",
    "ModeTelemetry",
    "Speculation",
    "TelemetryOptions",
    "TelemetryReport",
    "summarize",
]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(target[0]), target[1])
