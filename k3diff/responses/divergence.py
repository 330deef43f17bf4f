"""Where two texts part: the first differing character and token, the context around it, the
code points there when either side is not ASCII (a look-alike), the logprob gap at the token,
and which normalisations not asked for would have made the texts equal."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from k3diff.responses.gap import logprob_gap
from k3diff.responses.model import Normalization, ResponseRecord
from k3diff.responses.prefix import common_prefix_length
from k3diff.responses.results import Divergence

CONTEXT_CHARS = 40


CONTEXT_CHARS = 40


def normalize_text(text: str, normalizations: Sequence[Normalization]) -> str:
    """Apply the requested normalisations in their canonical order (NFC first)."""
    if Normalization.NFC in normalizations:
        text = unicodedata.normalize("NFC", text)
    if Normalization.TRAILING_WHITESPACE in normalizations:
        text = "\n".join(line.rstrip() for line in text.split("\n")).rstrip()
    return text


def _cluster(text: str, start: int) -> str:
    """The character at `start` with the combining marks that follow it."""
    end = min(start + 1, len(text))
    while end < len(text) and unicodedata.combining(text[end]):
        end += 1
    return text[start:end]


def codepoints_at(
    base_text: str, patch_text: str, offset: int | None
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """Code points at the divergence when either side is not ASCII there (a look-alike)."""
    if offset is None:
        return None
    start = offset
    # A divergence inside a combining sequence starts at its base character.
    while start > 0 and any(
        start < len(t) and unicodedata.combining(t[start]) for t in (base_text, patch_text)
    ):
        start -= 1
    clusters = (_cluster(base_text, start), _cluster(patch_text, start))
    if all(cluster.isascii() for cluster in clusters):
        return None
    base, patch = (tuple(f"U+{ord(char):04X}" for char in cluster) for cluster in clusters)
    return base, patch


def equal_after(base: str, patch: str, normalizations: Sequence[Normalization]) -> tuple[str, ...]:
    """Normalisations not asked for that would make the texts equal (each on its own)."""
    return tuple(
        extra.value
        for extra in Normalization
        if extra not in normalizations
        and normalize_text(base, [*normalizations, extra])
        == normalize_text(patch, [*normalizations, extra])
    )


def divergence_of(
    base: ResponseRecord,
    patch: ResponseRecord,
    base_text: str,
    patch_text: str,
    token_match: bool | None,
    near_tie: float,
) -> Divergence:
    """Where the compared texts (and token ids, when they differ) part, with context; equal
    texts without token ids part where the sampled tokens their logprobs name do
    (`sampled_tokens_differ`)."""
    char_offset = None if base_text == patch_text else common_prefix_length(base_text, patch_text)
    token_index = None
    if token_match is False:
        assert base.token_ids is not None and patch.token_ids is not None
        token_index = common_prefix_length(base.token_ids, patch.token_ids)
    elif char_offset is None and base.logprobs is not None and patch.logprobs is not None:
        token_index = common_prefix_length(base.logprobs.tokens, patch.logprobs.tokens)
    start = None if char_offset is None else max(0, char_offset - CONTEXT_CHARS)
    end = None if char_offset is None else char_offset + CONTEXT_CHARS
    return Divergence(
        char_offset=char_offset,
        token_index=token_index,
        context_start=start,
        base_context=None if start is None else base_text[start:end],
        patch_context=None if start is None else patch_text[start:end],
        logprobs=logprob_gap(base.logprobs, patch.logprobs, token_index, char_offset, near_tie),
    )


def sampled_tokens_differ(base: ResponseRecord, patch: ResponseRecord) -> bool:
    """Both sides name their sampled tokens in logprobs, and the tokens differ: without token
    ids the only evidence of the token path (review66: `Hel`+`lo` against `He`+`llo`, one
    text, matched, exit 0; a different count was a logprobs shape change)."""
    if base.logprobs is None or patch.logprobs is None:
        return False
    return base.logprobs.tokens != patch.logprobs.tokens
