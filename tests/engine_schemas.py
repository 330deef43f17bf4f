"""The engines' published record shapes, as field names by type, and records built from them.

Written down from the engines' sources (not imported: none of them is installed here):

- TensorRT-LLM `tensorrt_llm/serve/_perf_metrics_schema.py` (NVIDIA/TensorRT-LLM, read at commit
  4856bb733b35c4d512770ef1d109d35d2faf930d): the TypedDicts below, field for field.
- vLLM `vllm/v1/spec_decode/metrics.py` (`SpecDecodingProm`): the counter names and the
  per-position counter's `position` label.
- SGLang `python/sglang/srt/managers/tokenizer_manager.py` (`_calculate_spec_decoding_metrics`,
  and `_handle_batch_output` for the histogram): the `meta_info` keys.
"""

from __future__ import annotations

from typing import Any

TRTLLM_TYPES: dict[str, frozenset[str]] = {
    "KvCacheMetrics": frozenset(
        {
            "num_total_allocated_blocks",
            "num_new_allocated_blocks",
            "num_reused_blocks",
            "num_missed_blocks",
        }
    ),
    "SpeculativeDecodingMetrics": frozenset(
        {"acceptance_rate", "total_accepted_draft_tokens", "total_draft_tokens"}
    ),
    "PerfMetrics": frozenset(
        {"timing_metrics", "first_iter", "last_iter", "kv_cache_metrics", "speculative_decoding"}
    ),
    "WorkerPerfMetrics": frozenset(
        {"request_id", "perf_metrics", "ctx_request_id", "time_breakdown_metrics"}
    ),
    "WorkerPerfMetricsRecord": frozenset(
        {
            "request_id",
            "perf_metrics",
            "ctx_request_id",
            "time_breakdown_metrics",
            "status",
            "disagg_request_id",
        }
    ),
    "DisaggPerfMetricsRecord": frozenset(
        {
            "ctx_server",
            "gen_server",
            "disagg_server_arrival_time",
            "disagg_ctx_dispatch_time",
            "disagg_server_first_token_time",
            "status",
            "disagg_request_id",
            "ctx_perf_metrics",
            "gen_perf_metrics",
        }
    ),
}
VLLM_COUNTERS = frozenset(
    {
        "vllm:spec_decode_num_drafts",
        "vllm:spec_decode_num_draft_tokens",
        "vllm:spec_decode_num_accepted_tokens",
        "vllm:spec_decode_num_accepted_tokens_per_pos",
    }
)
VLLM_POSITION_LABEL = "position"
SGLANG_META_INFO = frozenset(
    {
        "spec_accept_rate",
        "spec_accept_length",
        "spec_verify_ct",
        "spec_accept_token_num",
        "spec_draft_token_num",
        "spec_accept_histogram",
    }
)

SGLANG_META_INFO_CURRENT = frozenset(
    {
        "spec_accept_rate",
        "spec_accept_length",
        "spec_num_correct_drafts",
        "spec_num_proposed_drafts",
        "spec_verify_ct",
        "spec_accepted_drafts",
        "spec_proposed_drafts",
        "spec_correct_drafts_histogram",
        "spec_accept_histogram",
    }
)
"""Newer SGLang's names (sgl-project/sglang `python/sglang/srt/managers/tokenizer_manager.py`,
`_calculate_spec_decoding_metrics`, read at commit 001067fffe33427bee0ed2f007fb7551a1d76b44):
`spec_num_correct_drafts` and `spec_num_proposed_drafts` (verify steps times the draft tokens
per step less one), and their aliases `spec_accepted_drafts` and `spec_proposed_drafts`, the
histogram `spec_correct_drafts_histogram` and its alias `spec_accept_histogram` ("backward-compat
aliases, remove in next release")."""


def _timing() -> dict[str, Any]:
    return {"arrival_time": 1.0, "first_token_time": 1.1, "last_token_time": 1.5}


def perf_metrics(
    spec: tuple[int, int] | None = None, kv: tuple[int, int] | None = None
) -> dict[str, Any]:
    """A `PerfMetrics` with speculation (accepted, drafted) and KV blocks (reused, missed)."""
    perf: dict[str, Any] = {"timing_metrics": _timing(), "first_iter": 1, "last_iter": 9}
    if spec is not None:
        accepted, drafted = spec
        perf["speculative_decoding"] = {
            "acceptance_rate": accepted / drafted if drafted else 0.0,
            "total_accepted_draft_tokens": accepted,
            "total_draft_tokens": drafted,
        }
    if kv is not None:
        reused, missed = kv
        perf["kv_cache_metrics"] = {
            "num_total_allocated_blocks": reused + missed,
            "num_new_allocated_blocks": missed,
            "num_reused_blocks": reused,
            "num_missed_blocks": missed,
        }
    assert set(perf) <= TRTLLM_TYPES["PerfMetrics"]
    return perf


def aggregated_record(
    spec: tuple[int, int] | None = None, kv: tuple[int, int] | None = None
) -> dict[str, Any]:
    """A `WorkerPerfMetricsRecord` (aggregated serving)."""
    record = {"request_id": 7, "status": "finished", "perf_metrics": perf_metrics(spec, kv)}
    assert set(record) <= TRTLLM_TYPES["WorkerPerfMetricsRecord"]
    return record


def disaggregated_record(
    gen_spec: tuple[int, int] | None, ctx_kv: tuple[int, int] | None
) -> dict[str, Any]:
    """A `DisaggPerfMetricsRecord`: the context server prefilled (and reused KV blocks), the
    generation server decoded speculatively."""
    ctx = {"request_id": 11, "perf_metrics": perf_metrics(kv=ctx_kv)}
    gen = {"request_id": 12, "ctx_request_id": 11, "perf_metrics": perf_metrics(spec=gen_spec)}
    record = {
        "ctx_server": "http://ctx:8001",
        "gen_server": "http://gen:8002",
        "disagg_server_arrival_time": 1.0,
        "disagg_ctx_dispatch_time": 1.01,
        "disagg_server_first_token_time": 1.2,
        "status": "finished",
        "disagg_request_id": 99,
        "ctx_perf_metrics": ctx,
        "gen_perf_metrics": gen,
    }
    assert set(record) <= TRTLLM_TYPES["DisaggPerfMetricsRecord"]
    assert set(ctx) <= TRTLLM_TYPES["WorkerPerfMetrics"]
    assert set(gen) <= TRTLLM_TYPES["WorkerPerfMetrics"]
    return record


def sglang_meta_info(histogram: list[int], draft_per_step: int) -> dict[str, Any]:
    """SGLang's `meta_info` speculation fields for a request whose verify steps accepted
    n draft tokens histogram[n] times."""
    steps = sum(histogram)
    accepted = sum(n * count for n, count in enumerate(histogram))
    meta = {
        "spec_verify_ct": steps,
        "spec_accept_token_num": accepted,
        "spec_draft_token_num": steps * draft_per_step,
        "spec_accept_rate": accepted / (steps * draft_per_step),
        "spec_accept_length": 1 + accepted / steps,
        "spec_accept_histogram": histogram,
    }
    assert set(meta) <= SGLANG_META_INFO
    return meta


def sglang_meta_info_current(
    histogram: list[int], draft_per_step: int, aliases: bool = True
) -> dict[str, Any]:
    """`sglang_meta_info` as newer SGLang names it (with its aliases, or without them: the
    release that removes them)."""
    old = sglang_meta_info(histogram, draft_per_step)
    meta = {
        "spec_verify_ct": old["spec_verify_ct"],
        "spec_num_correct_drafts": old["spec_accept_token_num"],
        "spec_num_proposed_drafts": old["spec_draft_token_num"],
        "spec_accept_rate": old["spec_accept_rate"],
        "spec_accept_length": old["spec_accept_length"],
        "spec_correct_drafts_histogram": histogram,
    }
    if aliases:
        meta |= {
            "spec_accepted_drafts": old["spec_accept_token_num"],
            "spec_proposed_drafts": old["spec_draft_token_num"],
            "spec_accept_histogram": histogram,
        }
    assert set(meta) <= SGLANG_META_INFO_CURRENT
    return meta
