"""SGLang's per-request speculation fields (`meta_info`), kept on a sample line as `spec_meta` so
that `telemetry` can attribute acceptance per draft position without the server's `/metrics`."""

from __future__ import annotations

from typing import Any

from k3diff.sample.usage import server_count, shown

SPEC_META_COUNTS = ("spec_verify_ct", "spec_accept_token_num", "spec_draft_token_num")
"""SGLang's per-request speculation counts in `meta_info`
(`python/sglang/srt/managers/tokenizer_manager.py`, `_calculate_spec_decoding_metrics`), under
the names `spec_meta` keeps them by, whichever generation of names the server sent."""
SPEC_META_HISTOGRAM = "spec_accept_histogram"
"""Its histogram: verify steps that accepted exactly n draft tokens, n = 0, 1, ..."""
SPEC_META_NAMES: dict[str, tuple[str, ...]] = {
    "spec_verify_ct": ("spec_verify_ct",),
    "spec_accept_token_num": (
        "spec_accept_token_num",
        "spec_num_correct_drafts",
        "spec_accepted_drafts",
    ),
    "spec_draft_token_num": (
        "spec_draft_token_num",
        "spec_num_proposed_drafts",
        "spec_proposed_drafts",
    ),
    SPEC_META_HISTOGRAM: (SPEC_META_HISTOGRAM, "spec_correct_drafts_histogram"),
}
"""Each kept field and the names SGLang has sent it by (telem68b): the first generation's;
newer SGLang's (sgl-project/sglang `tokenizer_manager.py` at 001067ff:
`spec_num_correct_drafts`, `spec_num_proposed_drafts`, `spec_correct_drafts_histogram`, beside
the aliases `spec_accepted_drafts`, `spec_proposed_drafts`, `spec_accept_histogram` it sends
"for backward compatibility", to be removed). Its rate fields (`spec_accept_rate`, and those by
position, null where nothing was proposed) are not read: the counts are."""
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
    kept: dict[str, Any] = {}
    invalid: list[str] = []
    for name, names in SPEC_META_NAMES.items():
        sent = [alias for alias in names if alias in meta]
        histogram = name == SPEC_META_HISTOGRAM
        valid = _valid_histogram if histogram else _valid_count
        what = f"not a list of 1 to {MAX_HISTOGRAM} counts" if histogram else "not a count"
        # A field sent as null is no count either (telem68): SGLang sets each of them from the
        # request's counts or leaves it out, never null, so a null is a count lost on the way.
        wrong = [
            f"{alias} is {shown(meta[alias])}, {what}" for alias in sent if not valid(meta[alias])
        ]
        if wrong:
            invalid.extend(wrong)
        elif any(meta[alias] != meta[sent[0]] for alias in sent):
            pairs = " but ".join(f"{alias} is {shown(meta[alias])}" for alias in sent)
            invalid.append(f"{pairs}: one count sent under two names, unlike")
        elif sent:
            kept[name] = meta[sent[0]]
    return kept, "; ".join(invalid) or None


def _valid_count(value: Any) -> bool:
    return server_count(value) is not None


def _valid_histogram(value: Any) -> bool:
    return (
        isinstance(value, list)
        and 0 < len(value) <= MAX_HISTOGRAM
        and all(server_count(n) is not None for n in value)
    )
