"""Each engine's own accounting of speculative decoding and cache reuse, read under the field
names its source defines (a field an engine does not send is "not reported", never zero).

- TensorRT-LLM `/perf_metrics` (`tensorrt_llm/serve/_perf_metrics_schema.py`): an aggregated
  record (`WorkerPerfMetricsRecord`) holds `perf_metrics`; a disaggregated one
  (`DisaggPerfMetricsRecord`) holds `ctx_perf_metrics` and `gen_perf_metrics`, each a
  `WorkerPerfMetrics` with its own `perf_metrics`. Per request: `speculative_decoding`
  (`total_accepted_draft_tokens`, `total_draft_tokens`) and `kv_cache_metrics`
  (`num_reused_blocks`, `num_missed_blocks`). A disaggregated record is one request: its
  speculation is the generation part's (the context part drafts nothing; it is read only when
  the generation part carries none), its KV reuse the context part's (prefill is where a prefix
  is reused; the generation part's is read only when the context part carries none).
- vLLM `/metrics` counters (`vllm/v1/spec_decode/metrics.py`, `SpecDecodingProm`), read by
  `k3diff sample` around each window of requests (`k3diff.sample.spec`): the sample line's
  `server_spec`.
- SGLang `meta_info` (`python/sglang/srt/managers/tokenizer_manager.py`,
  `_calculate_spec_decoding_metrics`): `spec_verify_ct`, `spec_accept_token_num`,
  `spec_draft_token_num` and `spec_accept_histogram` (verify steps that accepted exactly n draft
  tokens, n = 0, 1, ...): the sample line's `spec_meta`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from k3diff.sample.lines import SampleLine
from k3diff.sample.usage import server_count

TRTLLM_PERF = "perf_metrics"
TRTLLM_CTX = "ctx_perf_metrics"
TRTLLM_GEN = "gen_perf_metrics"
TRTLLM_SPEC = "speculative_decoding"
TRTLLM_ACCEPTED = "total_accepted_draft_tokens"
TRTLLM_DRAFTED = "total_draft_tokens"
TRTLLM_KV = "kv_cache_metrics"
TRTLLM_REUSED = "num_reused_blocks"
TRTLLM_MISSED = "num_missed_blocks"
SGLANG_VERIFY = "spec_verify_ct"
SGLANG_ACCEPTED = "spec_accept_token_num"
SGLANG_DRAFTED = "spec_draft_token_num"
SGLANG_HISTOGRAM = "spec_accept_histogram"

SOURCE_TRTLLM = "TensorRT-LLM /perf_metrics"
SOURCE_VLLM = "vLLM /metrics"
SOURCE_SGLANG = "SGLang meta_info"

__all__ = ["server_count"]  # the one check of a server's count (k3diff.sample.usage)


@dataclass(frozen=True)
class RequestMetrics:
    """One request's TensorRT-LLM `perf_metrics`, as far as it reports them."""

    speculation: tuple[int, int] | None
    """(accepted, drafted) draft tokens; None when not reported or not a valid pair."""
    kv: tuple[int, int] | None
    """(reused, missed) KV-cache blocks; None when not reported."""
    disaggregated: bool
    """A `DisaggPerfMetricsRecord` (context and generation parts)."""
    invalid: str | None = None
    """Why the speculation it reported is no pair of counts (`token_pair`): the request's
    counts are lost, not unreported (left66)."""
    kv_invalid: str | None = None
    """Why the `kv_cache_metrics` it reported are no counts: lost, not unreported (telem67;
    before, read as "not reported")."""


def _perf(worker: Any) -> Mapping[str, Any] | None:
    perf = worker.get(TRTLLM_PERF) if isinstance(worker, Mapping) else None
    return perf if isinstance(perf, Mapping) else None


def token_pair(fields: Mapping[str, Any], names: tuple[str, str]) -> tuple[int, int] | str | None:
    """The (accepted, drafted) draft tokens a request reported under `names`; None when it
    reported neither; else, as a string, why they are no pair of counts (one missing or no
    count, more accepted than drafted). Such a request is a lost unit, as an invalid vLLM
    window is: read as "not reported", a patch's worst requests could leave the gate
    (left66)."""
    if not any(name in fields for name in names):
        return None
    accepted, drafted = (server_count(fields.get(name)) for name in names)
    if accepted is None or drafted is None:
        return f"{' or '.join(names)} missing or not a count"
    if accepted > drafted:
        return f"accepted tokens {accepted:,} above draft tokens {drafted:,}"
    return accepted, drafted


def _speculation(perf: Mapping[str, Any] | None) -> tuple[int, int] | str | None:
    spec = perf.get(TRTLLM_SPEC) if perf is not None else None
    if not isinstance(spec, Mapping):
        return None
    return token_pair(spec, (TRTLLM_ACCEPTED, TRTLLM_DRAFTED))


Pair = tuple[int, int] | str | None
"""Two counts; None when not reported; as a string, why what was reported is no counts."""


def _request(spec: Pair, kv: Pair, disaggregated: bool) -> RequestMetrics:
    return RequestMetrics(
        None if isinstance(spec, str) else spec,
        None if isinstance(kv, str) else kv,
        disaggregated,
        spec if isinstance(spec, str) else None,
        kv if isinstance(kv, str) else None,
    )


def _kv(perf: Mapping[str, Any] | None) -> Pair:
    """(reused, missed) KV-cache blocks; None when the request reported no `kv_cache_metrics`;
    else, as a string, why they are no counts (telem67: an invalid count is not a missing one)."""
    kv = perf.get(TRTLLM_KV) if perf is not None else None
    if kv is None:
        return None
    if not isinstance(kv, Mapping):
        return f"{TRTLLM_KV} is not an object"
    reused, missed = server_count(kv.get(TRTLLM_REUSED)), server_count(kv.get(TRTLLM_MISSED))
    if reused is None or missed is None:
        return f"{TRTLLM_REUSED} or {TRTLLM_MISSED} missing or not a count"
    return reused, missed


def trtllm_requests(metrics: Any) -> Iterator[RequestMetrics]:
    """Each request of one drained `/perf_metrics` document (a list of records, or one),
    aggregated or disaggregated, counted once."""
    items = metrics if isinstance(metrics, list) else [metrics]
    for item in items:
        if not isinstance(item, Mapping):
            continue
        if TRTLLM_CTX in item or TRTLLM_GEN in item:
            ctx, gen = _perf(item.get(TRTLLM_CTX)), _perf(item.get(TRTLLM_GEN))
            spec, kv = _speculation(gen), _kv(ctx)
            yield _request(
                spec if spec is not None else _speculation(ctx),
                kv if kv is not None else _kv(gen),
                True,
            )
        else:
            perf = _perf(item)
            if perf is None:
                # Older trtllm-serve releases listed the perf metrics at the record's top level.
                perf = item
            yield _request(_speculation(perf), _kv(perf), False)


def request_ids(metrics: Any) -> list[int] | None:
    """The `request_id` of each aggregated record of one drained `/perf_metrics` document, in
    the order `trtllm_requests` reads them (TensorRT-LLM's executor numbers requests as they
    are submitted: `GenerationExecutor._get_next_client_id`); None where one is disaggregated
    or names no `request_id` that is a count, or two name the same."""
    items = metrics if isinstance(metrics, list) else [metrics]
    ids = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        named = item.get("request_id")
        if TRTLLM_CTX in item or TRTLLM_GEN in item or type(named) is not int or named < 0:
            return None
        ids.append(named)
    return ids if len(set(ids)) == len(ids) else None


@dataclass(frozen=True)
class DraftCounts:
    """Speculation of one sample (vLLM: of the window of samples it closed), as reported."""

    source: str
    """SOURCE_VLLM or SOURCE_SGLANG."""
    accepted: int | None
    """Draft tokens accepted (None: not reported)."""
    drafted: int | None
    """Draft tokens proposed (None: not reported)."""
    drafts: int | None
    """Drafts (verify steps) the positions count over (None: not reported)."""
    at_least: tuple[int, ...]
    """Per draft position L = 1..K: drafts with at least L tokens accepted (empty: the engine
    reported no positions)."""
    requests: int = 1
    """Requests the counts cover (a vLLM window's samples)."""
    invalid: str | None = None
    """Why the counts are no counts (a vLLM window's rise, an SGLang request's tokens): they
    are lost, none above."""


def _histogram(value: Any) -> tuple[int, ...] | None:
    if not isinstance(value, list) or not value:
        return None
    counts = [server_count(item) for item in value]
    if any(count is None for count in counts):
        return None
    return tuple(count for count in counts if count is not None)


def sglang_counts(meta: Mapping[str, Any]) -> DraftCounts:
    """SGLang's `meta_info` speculation fields of one request."""
    histogram = _histogram(meta.get(SGLANG_HISTOGRAM))
    pair = token_pair(meta, (SGLANG_ACCEPTED, SGLANG_DRAFTED))
    if isinstance(pair, str):  # lost, as a vLLM window whose counts are no counts (left66)
        return DraftCounts(SOURCE_SGLANG, None, None, None, (), invalid=pair)
    accepted, drafted = pair if pair is not None else (None, None)
    steps = [server_count(meta.get(SGLANG_VERIFY)), sum(histogram) if histogram else None]
    if drafted and 0 in steps:  # tokens drafted in no verify step: no counts (telem67)
        why = f"draft tokens {drafted:,} in 0 verify steps"
        return DraftCounts(SOURCE_SGLANG, None, None, None, (), invalid=why)
    if histogram is None:
        return DraftCounts(SOURCE_SGLANG, accepted, drafted, None, ())
    # histogram[n]: verify steps that accepted exactly n draft tokens, so a step reached
    # position L when it accepted L or more.
    at_least = tuple(sum(histogram[length:]) for length in range(1, len(histogram)))
    return DraftCounts(SOURCE_SGLANG, accepted, drafted, sum(histogram), at_least)


def _positions_sound(at_least: tuple[int, ...], drafts: int | None) -> bool:
    """Drafts reaching position L are a subset of the drafts, and of those reaching L - 1: a
    count above the drafts, or one that rises with the position, is no count of drafts."""
    if not at_least:
        return True
    if drafts is None or at_least[0] > drafts:
        return False
    return all(later <= earlier for earlier, later in pairwise(at_least))


VLLM_SPEC_FIELDS = ("drafts", "draft_tokens", "accepted_tokens", "accepted_per_position")
"""The speculation fields of a `server_spec` window (`k3diff.sample.spec.rise` writes all four,
or none: a window of a server that does not speculate)."""


def _vllm_invalid(spec: Mapping[str, Any]) -> str | None:
    """Why a window's rise is no set of counts one server life gives, None when it is (or
    carries no speculation): a field missing (the samples reader holds each present one to a
    count), accepted tokens above the draft tokens, drafts reaching a position above the drafts
    or rising with the position."""
    if not any(name in spec for name in VLLM_SPEC_FIELDS):
        return None
    missing = [name for name in VLLM_SPEC_FIELDS if name not in spec]
    per_position = spec.get("accepted_per_position")
    if missing or not isinstance(per_position, list):
        return f"{', '.join(missing) or 'accepted_per_position'} missing or not a list"
    counts = [server_count(spec[name]) for name in VLLM_SPEC_FIELDS[:3]]
    at_least = [server_count(count) for count in per_position]
    drafts, drafted, accepted = counts
    if None in counts or None in at_least:
        return "a field not a count"
    if accepted is not None and drafted is not None and accepted > drafted:
        return f"accepted tokens {accepted:,} above draft tokens {drafted:,}"
    if drafts is not None and drafted is not None and (drafts > drafted or drafts == 0 < drafted):
        # Each draft proposes at least one token: draft tokens without a draft (or drafts
        # without their tokens) are no counts, and passed `--expect speculation` (telem67).
        return f"draft tokens {drafted:,} in {drafts:,} drafts"
    if not _positions_sound(tuple(c for c in at_least if c is not None), drafts):
        return (
            f"drafts reaching each position {per_position} above the {drafts:,} drafts or "
            "rising with the position"
        )
    return None


def vllm_counts(spec: Mapping[str, Any]) -> DraftCounts:
    """A `server_spec` window (the rise of vLLM's counters across it); a window whose rise is
    no set of counts (`_vllm_invalid`) reports none, and says why (`invalid`)."""
    requests = max(1, server_count(spec.get("samples")) or 1)
    invalid = _vllm_invalid(spec)
    if invalid is not None or not any(name in spec for name in VLLM_SPEC_FIELDS):
        return DraftCounts(SOURCE_VLLM, None, None, None, (), requests, invalid)
    per_position = spec["accepted_per_position"]
    return DraftCounts(
        SOURCE_VLLM,
        server_count(spec["accepted_tokens"]),
        server_count(spec["draft_tokens"]),
        server_count(spec["drafts"]),
        tuple(c for c in map(server_count, per_position) if c is not None),
        requests,
    )


def sample_counts(sample: SampleLine) -> DraftCounts | None:
    """The speculation a sample line carries: vLLM's window first, else SGLang's meta_info."""
    if sample.server_spec is not None:
        return vllm_counts(sample.server_spec)
    if sample.spec_meta_invalid is not None:  # lost, not unreported (telem67)
        return DraftCounts(SOURCE_SGLANG, None, None, None, (), invalid=sample.spec_meta_invalid)
    if sample.spec_meta is not None:
        return sglang_counts(sample.spec_meta)
    return None
