"""`k3diff telemetry`: what the servers reported about the run itself, and whether the run
exercised what it was meant to.

From the samples log (each sample's `usage`, `latency_s`, and the engines' own accounting
`sample` kept: vLLM's `/metrics` speculation counters, SGLang's `meta_info`) and
`perf_metrics.jsonl` beside it (TensorRT-LLM's `/perf_metrics`, aggregated or disaggregated), per
side and mode: latency percentiles, cached prompt tokens and reused KV blocks,
speculative-decoding acceptance with a Clopper-Pearson interval and a base-vs-patch test, and
per draft position where the engine reports positions (`k3diff.telemetry.engines`). With
`--expect cache-reuse`, `speculation` or `draft-lengths=1-K`, a side that shows none of it is a
`not-exercised` finding: coverage debt, never a pass.
"""

from k3diff.telemetry.model import Expectation, ModeTelemetry, Speculation, TelemetryReport
from k3diff.telemetry.summarize import TelemetryOptions, summarize

__all__ = [
    "Expectation",
    "ModeTelemetry",
    "Speculation",
    "TelemetryOptions",
    "TelemetryReport",
    "summarize",
]
