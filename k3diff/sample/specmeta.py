"""SGLang's per-request speculation fields (`meta_info`), kept on a sample line as `spec_meta` so
that `telemetry` can attribute acceptance per draft position without the server's `/metrics`."""

from __future__ import annotations

from typing import Any

from k3diff.sample.usage import server_count

SPEC_META_COUNTS = ("spec_verify_ct", "spec_accept_token_num", "spec_draft_token_num")
"""SGLang's per-request speculation counts in `meta_info`
(`python/sglang/srt/managers/tokenizer_manager.py`, `_calculate_spec_decoding_metrics`)."""
SPEC_META_HISTOGRAM = "spec_accept_histogram"
"""Its histogram: verify steps that accepted exactly n draft tokens, n = 0, 1, ..."""
MAX_HISTOGRAM = 64


def spec_meta(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The speculation fields of SGLang's `meta_info` (the answer's own, else its first
    choice's: the first of them that holds any), each kept only when it is a valid count (the
    histogram: a list of at most MAX_HISTOGRAM counts); None when none is there. Of a stream,
    `k3diff.responses.sse` made each the last chunk's."""
    choices = obj.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    for meta in (obj.get("meta_info"), first.get("meta_info") if isinstance(first, dict) else None):
        kept = _kept(meta) if isinstance(meta, dict) else None
        if kept:
            return kept
    return None


def _kept(meta: dict[str, Any]) -> dict[str, Any]:
    kept = {
        name: meta[name] for name in SPEC_META_COUNTS if server_count(meta.get(name)) is not None
    }
    histogram = meta.get(SPEC_META_HISTOGRAM)
    if (
        isinstance(histogram, list)
        and 0 < len(histogram) <= MAX_HISTOGRAM
        and all(server_count(n) is not None for n in histogram)
    ):
        kept[SPEC_META_HISTOGRAM] = list(histogram)
    return kept
