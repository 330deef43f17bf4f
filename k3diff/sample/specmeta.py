"""SGLang's per-request speculation fields (`meta_info`), kept on a sample line as `spec_meta` so
that `telemetry` can attribute acceptance per draft position without the server's `/metrics`."""

from __future__ import annotations

from typing import Any

from k3diff.sample.usage import server_count, shown

SPEC_META_COUNTS = ("spec_verify_ct", "spec_accept_token_num", "spec_draft_token_num")
"""SGLang's per-request speculation counts in `meta_info`
(`python/sglang/srt/managers/tokenizer_manager.py`, `_calculate_spec_decoding_metrics`)."""
SPEC_META_HISTOGRAM = "spec_accept_histogram"
"""Its histogram: verify steps that accepted exactly n draft tokens, n = 0, 1, ..."""
MAX_HISTOGRAM = 64


SpecMeta = tuple[dict[str, Any] | None, str | None]
"""(the valid speculation fields, None when none; why one sent is no count, None when none)."""


def spec_meta(obj: dict[str, Any]) -> SpecMeta:
    """The speculation fields of SGLang's `meta_info` (the answer's own, else its first
    choice's: the first of them that holds any), each kept when it is a valid count (the
    histogram: a list of at most MAX_HISTOGRAM counts); and, when one sent is not, why
    (`spec_meta_invalid`: telemetry then counts the request as lost, not as one that sent no
    counts; telem67: before, an invalid field was dropped alone, and a request whose counts
    were all invalid read as one that sent none). Of a stream, `k3diff.responses.sse` made
    each the last chunk's."""
    choices = obj.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    for meta in (obj.get("meta_info"), first.get("meta_info") if isinstance(first, dict) else None):
        if isinstance(meta, dict):
            kept, invalid = _kept(meta)
            if kept or invalid:
                return kept or None, invalid
    return None, None


def _kept(meta: dict[str, Any]) -> SpecMeta:
    kept = {
        name: meta[name] for name in SPEC_META_COUNTS if server_count(meta.get(name)) is not None
    }
    # A field sent as null is no count either (telem68): SGLang sets each of them from the
    # request's counts or leaves it out, never null, so a null is a count lost on the way.
    invalid = [
        f"{name} is {shown(meta[name])}, not a count"
        for name in SPEC_META_COUNTS
        if name in meta and name not in kept
    ]
    histogram = meta.get(SPEC_META_HISTOGRAM)
    if (
        isinstance(histogram, list)
        and 0 < len(histogram) <= MAX_HISTOGRAM
        and all(server_count(n) is not None for n in histogram)
    ):
        kept[SPEC_META_HISTOGRAM] = list(histogram)
    elif SPEC_META_HISTOGRAM in meta:
        invalid.append(
            f"{SPEC_META_HISTOGRAM} is {shown(histogram)}, not a list of 1 to {MAX_HISTOGRAM} "
            "counts"
        )
    return kept, "; ".join(invalid) or None
