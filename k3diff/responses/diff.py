"""Compares one base record with one patch record.

Text is compared after the requested normalisations (reported with the result); hashes are of
the exact captured text, and `text_match` means byte-equal. Similarity is
`rapidfuzz.fuzz.ratio / 100` (normalised Indel similarity) of the compared texts: 1.0 only when
they are equal — a difference too small to show in six digits is clamped to 0.999999, so a
2 MB text with one changed character never reads as identical. Per-token logprobs are compared
over the common token prefix (`k3diff.responses.logprob_compare`). Other fields are compared
with deepdiff, volatile fields having been left out at load time unless asked for.
"""

from __future__ import annotations

import json
import math
import unicodedata
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import Any

from rapidfuzz import fuzz

from k3diff.responses.logprob_compare import compare_logprobs
from k3diff.responses.model import (
    LogprobTrace,
    Normalization,
    ResponseRecord,
    text_digest,
    token_ids_digest,
)
from k3diff.responses.results import (
    Divergence,
    FieldChange,
    LogprobGap,
    LogprobPoint,
    RecordDiff,
    SideSummary,
    Status,
)

SIMILARITY_METHOD = "rapidfuzz.fuzz.ratio/100"
CONTEXT_CHARS = 40
DIGITS = 6
BELOW_ONE = 1 - 10**-DIGITS
"""The highest similarity of two texts that differ."""


@dataclass(frozen=True)
class DiffOptions:
    """How pairs are compared."""

    normalize: tuple[Normalization, ...] = ()
    """Text normalisations applied before comparing, in canonical order."""
    include_volatile: bool = False
    """Compare ids, timestamps and fingerprints too."""
    logprob_tol: float = 0.0
    """`--logprob-tol`: the largest |Δ logprob| over the common token prefix that still agrees."""
    near_tie: float = 0.1
    """`--near-tie`: the largest gap (nats) at a divergence that is called a near tie."""


def normalize_text(text: str, normalizations: Sequence[Normalization]) -> str:
    """Apply the requested normalisations in their canonical order (NFC first)."""
    if Normalization.NFC in normalizations:
        text = unicodedata.normalize("NFC", text)
    if Normalization.TRAILING_WHITESPACE in normalizations:
        text = "\n".join(line.rstrip() for line in text.split("\n")).rstrip()
    return text


def summarize(record: ResponseRecord, display: str) -> SideSummary:
    """The report's view of one record of the file the user named `display`."""
    ids = record.token_ids
    return SideSummary(
        location=record.location(display),
        text_xxh3=text_digest(record.text),
        token_ids_xxh3=None if ids is None else token_ids_digest(ids),
        chars=len(record.text),
        tokens=None if ids is None else len(ids),
        finish_reason=record.finish_reason,
        fingerprint=record.fingerprint,
        error=record.error,
    )


def one_sided(key: str, record: ResponseRecord, display: str, is_base: bool) -> RecordDiff:
    """A key present on one side only (in the file the user named `display`)."""
    summary = summarize(record, display)
    return RecordDiff(
        key=key,
        status=Status.ONLY_BASE if is_base else Status.ONLY_PATCH,
        prompt_preview=record.prompt_preview,
        base=summary if is_base else None,
        patch=None if is_base else summary,
        text_match=None,
        normalized_match=False,
        token_match=None,
        similarity=None,
        divergence=None,
        field_changes=(),
    )


def similarity(base_text: str, patch_text: str) -> float:
    """rapidfuzz.fuzz.ratio/100, rounded; 1.0 only for equal texts."""
    if base_text == patch_text:
        return 1.0
    ratio: float = fuzz.ratio(base_text, patch_text)
    return float(min(round(ratio / 100, DIGITS), BELOW_ONE))


def evidence_missing(base: ResponseRecord, patch: ResponseRecord) -> tuple[str, ...]:
    """A note for each kind of evidence one side carries and the other lacks."""
    notes = []
    for name, base_has, patch_has in (
        ("token ids", base.token_ids is not None, patch.token_ids is not None),
        ("logprobs", base.logprobs is not None, patch.logprobs is not None),
    ):
        if base_has != patch_has:
            side = "base" if base_has else "patch"
            notes.append(f"evidence-missing: {name} only in {side}, not compared")
    return tuple(notes)


def diff_pair(
    key: str,
    base: ResponseRecord,
    patch: ResponseRecord,
    displays: tuple[str, str],
    options: DiffOptions,
) -> RecordDiff:
    """Compare two records that share a key (`displays`: the base and patch paths as named)."""
    if base.error is not None or patch.error is not None:
        return _failed_request(key, base, patch, displays)
    normalizations = options.normalize
    base_text = normalize_text(base.text, normalizations)
    patch_text = normalize_text(patch.text, normalizations)
    compared_equal = base_text == patch_text
    token_match = None
    if base.token_ids is not None and patch.token_ids is not None:
        token_match = base.token_ids == patch.token_ids
    changes = field_changes(base, patch, options.include_volatile)
    logprobs = compare_logprobs(base.logprobs, patch.logprobs, options.logprob_tol)
    divergence = None
    if not compared_equal or token_match is False:
        divergence = _divergence(base, patch, base_text, patch_text, token_match)
        if not compared_equal:
            divergence = replace(
                divergence,
                codepoints=_codepoints_at(base_text, patch_text, divergence.char_offset),
                equal_after_normalize=_equal_after(base.text, patch.text, normalizations),
            )
    status = Status.MATCH
    if not compared_equal:
        status = Status.TEXT_DIFFERS
    elif token_match is False:
        status = Status.TOKENS_DIFFER
    elif logprobs is not None and not logprobs.within_tolerance:
        status = Status.LOGPROBS_DIFFER
    elif changes:
        status = Status.FIELDS_DIFFER
    text_match = base.text == patch.text
    return RecordDiff(
        key=key,
        status=status,
        prompt_preview=base.prompt_preview or patch.prompt_preview,
        base=summarize(base, displays[0]),
        patch=summarize(patch, displays[1]),
        text_match=text_match,
        normalized_match=compared_equal and not text_match,
        token_match=token_match,
        similarity=similarity(base_text, patch_text),
        divergence=divergence,
        field_changes=changes,
        logprobs=logprobs,
        notes=evidence_missing(base, patch),
    )


def _failed_request(
    key: str, base: ResponseRecord, patch: ResponseRecord, displays: tuple[str, str]
) -> RecordDiff:
    """A pair where a request failed: nothing to compare, and a difference whatever the other
    side holds (even the same error: no output is no evidence)."""
    return RecordDiff(
        key=key,
        status=Status.ERROR,
        prompt_preview=base.prompt_preview or patch.prompt_preview,
        base=summarize(base, displays[0]),
        patch=summarize(patch, displays[1]),
        text_match=None,
        normalized_match=False,
        token_match=None,
        similarity=None,
        divergence=None,
        field_changes=(),
    )


def common_prefix_length(first: Sequence[Any], second: Sequence[Any]) -> int:
    """Length of the longest common prefix, by binary search over slice comparisons (in C)."""
    low, high = 0, min(len(first), len(second))
    while low < high:
        middle = (low + high + 1) // 2
        if first[:middle] == second[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _cluster(text: str, start: int) -> str:
    """The character at `start` with the combining marks that follow it."""
    end = min(start + 1, len(text))
    while end < len(text) and unicodedata.combining(text[end]):
        end += 1
    return text[start:end]


def _codepoints_at(
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


def _equal_after(base: str, patch: str, normalizations: Sequence[Normalization]) -> tuple[str, ...]:
    """Normalisations not asked for that would make the texts equal (each on its own)."""
    return tuple(
        extra.value
        for extra in Normalization
        if extra not in normalizations
        and normalize_text(base, [*normalizations, extra])
        == normalize_text(patch, [*normalizations, extra])
    )


def _divergence(
    base: ResponseRecord,
    patch: ResponseRecord,
    base_text: str,
    patch_text: str,
    token_match: bool | None,
) -> Divergence:
    char_offset = None if base_text == patch_text else common_prefix_length(base_text, patch_text)
    token_index = None
    if token_match is False:
        assert base.token_ids is not None and patch.token_ids is not None
        token_index = common_prefix_length(base.token_ids, patch.token_ids)
    start = None if char_offset is None else max(0, char_offset - CONTEXT_CHARS)
    end = None if char_offset is None else char_offset + CONTEXT_CHARS
    return Divergence(
        char_offset=char_offset,
        token_index=token_index,
        context_start=start,
        base_context=None if start is None else base_text[start:end],
        patch_context=None if start is None else patch_text[start:end],
        logprobs=_logprob_gap(base.logprobs, patch.logprobs, token_index, char_offset),
    )


def _logprob_gap(
    base: LogprobTrace | None,
    patch: LogprobTrace | None,
    token_index: int | None,
    char_offset: int | None,
) -> LogprobGap | None:
    index = token_index
    if index is None and base is not None and patch is not None:
        index = common_prefix_length(base.tokens, patch.tokens)
    elif index is None and char_offset is not None:
        trace = base if base is not None else patch
        if trace is not None:
            index = bisect_right(list(accumulate(len(t) for t in trace.tokens)), char_offset)
    if index is None:
        return None
    base_point, patch_point = _point(base, index), _point(patch, index)
    if base_point is None and patch_point is None:
        return None
    return LogprobGap(index, base_point, patch_point, _swapped(base_point, patch_point))


def _number(value: float) -> float | None:
    return None if math.isnan(value) else round(value, DIGITS)


def _point(trace: LogprobTrace | None, index: int) -> LogprobPoint | None:
    if trace is None or index >= len(trace.tokens):
        return None
    top = trace.top[index]
    first = top[0] if top else (None, math.nan)
    second = top[1] if len(top) > 1 else (None, math.nan)
    top1, top2 = _number(first[1]), _number(second[1])
    return LogprobPoint(
        token=trace.tokens[index],
        logprob=_number(trace.logprobs[index]),
        top1=(first[0], top1),
        top2=(second[0], top2),
        gap=None if top1 is None or top2 is None else round(top1 - top2, DIGITS),
    )


def _swapped(base: LogprobPoint | None, patch: LogprobPoint | None) -> bool:
    if base is None or patch is None or base.token == patch.token:
        return False
    chosen = {base.token, patch.token}
    return chosen == {base.top1[0], base.top2[0]} or chosen == {patch.top1[0], patch.top2[0]}


def _compared(record: ResponseRecord, include_volatile: bool) -> dict[str, Any]:
    fields: dict[str, Any] = json.loads(record.other)
    fields["finish_reason"] = record.finish_reason
    fields["usage"] = record.usage
    fields["logprobs"] = None if record.logprobs is None else record.logprobs.shape()
    if include_volatile:
        fields["fingerprint"] = record.fingerprint
    return fields


def _cheap_view(record: ResponseRecord, include_volatile: bool) -> tuple[Any, ...]:
    shape = None if record.logprobs is None else record.logprobs.shape()
    fingerprint = record.fingerprint if include_volatile else None
    return (record.other, record.finish_reason, record.usage, shape, fingerprint)


CHANGE_NAMES = {
    "dictionary_item_added": "added",
    "iterable_item_added": "added",
    "dictionary_item_removed": "removed",
    "iterable_item_removed": "removed",
}


def field_changes(
    base: ResponseRecord, patch: ResponseRecord, include_volatile: bool
) -> tuple[FieldChange, ...]:
    """deepdiff of everything but the text and token ids, as plain sorted changes."""
    if _cheap_view(base, include_volatile) == _cheap_view(patch, include_volatile):
        return ()  # deepdiff is slow; most pairs in a large run are structurally equal
    # Imported here: deepdiff costs ~0.2 s to import, and most runs need it for few records.
    from deepdiff import DeepDiff
    from deepdiff.helper import notpresent

    tree = DeepDiff(
        _compared(base, include_volatile), _compared(patch, include_volatile), view="tree"
    )
    changes = [
        FieldChange(
            path=_dotted(level.path(output_format="list")),
            change=CHANGE_NAMES.get(report_type, "changed"),
            base=None if level.t1 is notpresent else level.t1,
            patch=None if level.t2 is notpresent else level.t2,
        )
        for report_type, levels in tree.items()
        for level in levels
    ]
    return tuple(sorted(changes, key=lambda change: (change.path, change.change)))


def _dotted(parts: Sequence[Any]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
