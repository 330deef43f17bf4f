"""The `GET /metrics` answers of the fault server (tests/sample/fault_server.py `--metrics
KIND`): each engine's running-requests gauge and prefix-cache counter as that engine names them
(Prometheus text; TensorRT-LLM's JSON iteration stats), and hostile answers (`garbage`, `huge`)."""

from __future__ import annotations

from typing import Any

from spec_counters import SpecCounters

KINDS = (
    "vllm", "vllm-spec", "sglang", "tgi", "trtllm", "garbage", "huge", "bulky", "slow", "flaky",
    "wide", "restarting", "vllm-dp",
)  # fmt: skip
"""What `--metrics` takes (`slow`, `flaky` and `restarting` are the handler's: a stall, then
`vllm` once and `garbage` after, and `vllm-spec` whose speculation counters go back to zero at
every 4th read from the 6th (reads 1-4 are `sample`'s probes), a server restarting; `flaky` has no speculation counters, so it never gives
`telemetry` a counter-reset: `restarting` does, every 2nd serial window; `bulky` is `vllm` with 1.5 MiB of histogram buckets beside it, a large
data-parallel server's body, under the cap; `wide` is `vllm` after a 100 KiB comment line, a
line prometheus_client's parser takes quadratic time over; `vllm-dp` is a data-parallel vLLM
that puts each running request on an engine of its own, a series per engine, each reading 1)."""


def trtllm_stats(running: int) -> list[dict[str, Any]]:
    """TensorRT-LLM's `/metrics` JSON: one iteration's stats with `running` active requests."""
    return [{"iter": 1, "numActiveRequests": running, "numQueuedRequests": 0}]


def metrics_text(
    kind: str, running: int, hits: int, spec: SpecCounters, handled: dict[str, int] | None = None
) -> tuple[bytes, str]:
    """The body and Content-Type of a Prometheus-text `/metrics` answer of `kind` (`vllm`,
    `vllm-spec`, `sglang`, `tgi`, `garbage`, `huge`) with `running` requests running and `hits`
    cached prompt tokens so far; `vllm`'s with `handled` (GETs of /v1/models answered so far)
    as vLLM's HTTP request counter (prometheus-fastapi-instrumentator's `http_requests_total`)."""
    if kind == "garbage":
        return b"vllm:num_requests_running{oops 1\n{{{ garbage\n", "text/plain"
    if kind == "huge":
        return b"# padding\n" * ((32 << 20) // 10), "text/plain"
    spec_lines: list[str] = []
    if kind == "bulky":
        kind, spec_lines = "vllm", _buckets(3 << 19)
    if kind == "vllm-spec":
        kind, spec_lines = "vllm", spec.series()
    if kind == "wide":
        body, content_type = metrics_text("vllm", running, hits, spec, handled)
        return b"# " + b" " * (100 << 10) + b"x\n" + body, content_type
    if kind == "vllm-dp":
        return _data_parallel(running), "text/plain; version=0.0.4"
    series = {
        "vllm": [
            "# HELP vllm:num_requests_running Number of requests in model execution batches.",
            "# TYPE vllm:num_requests_running gauge",
            f'vllm:num_requests_running{{engine="0",model_name="fault"}} {float(running)}',
            "# TYPE vllm:prefix_cache_hits counter",
            f'vllm:prefix_cache_hits_total{{engine="0",model_name="fault"}} {float(hits)}',
            "# TYPE vllm:prefix_cache_queries counter",
            'vllm:prefix_cache_queries_total{engine="0",model_name="fault"} 99.0',
            "# TYPE http_requests_total counter",
            *(
                f'http_requests_total{{handler="{path}",method="GET",status="2xx"}} {float(count)}'
                for path, count in sorted((handled or {}).items())
            ),
        ],
        "sglang": [
            "# TYPE sglang:num_running_reqs gauge",
            f'sglang:num_running_reqs{{model_name="fault"}} {running}',
            "# TYPE sglang:cached_tokens counter",
            f'sglang:cached_tokens_total{{model_name="fault",cache_source="device"}} {hits}',
        ],
        "tgi": [f"tgi_batch_current_size {running}"],
    }[kind]
    series += spec_lines
    return ("\n".join(series) + "\n").encode(), "text/plain; version=0.0.4"


def _data_parallel(running: int) -> bytes:
    """vLLM's gauge as a data-parallel server writes it, `running` requests on as many engines
    (one each; engine 0 reads 0 while none runs)."""
    lines = ["# TYPE vllm:num_requests_running gauge"] + [
        f'vllm:num_requests_running{{engine="{engine}",model_name="fault"}} '
        f"{1.0 if engine < running else 0.0}"
        for engine in range(max(running, 1))
    ]
    return ("\n".join(lines) + "\n").encode()


def _buckets(size: int) -> list[str]:
    """A latency histogram's bucket lines, per engine, until they fill about `size` bytes."""
    lines = ["# TYPE vllm:e2e_request_latency_seconds histogram"]
    total, index = 0, 0
    while total < size:
        engine, bucket = divmod(index, 1000)
        line = (
            f'vllm:e2e_request_latency_seconds_bucket{{engine="{engine}",model_name="fault",'
            f'le="{bucket / 10:.1f}"}} {float(index)}'
        )
        lines.append(line)
        total += len(line) + 1
        index += 1
    return lines
