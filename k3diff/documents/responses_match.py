"""The `records` item of an identical pair (`k3diff.responses.matchpair.MatchRow`), encoded
straight from the row's fields: the same text as `responses.record_line` of its diff encoded
by the record spool (compact items, `json.JSONEncoder`'s separators, ASCII), without building
the diff, its dictionary or walking it. Tests compare the two on every kind of value."""

from __future__ import annotations

import json
import sys
from json.encoder import encode_basestring_ascii
from operator import itemgetter

from xxhash import xxh3_128_hexdigest

from k3diff.responses.matchpair import MatchRow, ids_digest
from k3diff.responses.packed import (
    CONDITION,
    FINGERPRINT,
    FINISH,
    INDEX,
    LABEL,
    LINE,
    MEMBER,
    MODEL,
    PREVIEW,
    PROMPT,
    TEXT,
    TOKEN_IDS,
    Packed,
    location,
)

_STRICT = json.JSONEncoder(allow_nan=False)
MAX_CONDITIONS = 4096
"""Encoded request conditions remembered (a run holds a handful)."""
_CONDITIONS: dict[str, str] = {}


def _string(value: str | None) -> str:
    return "null" if value is None else str(encode_basestring_ascii(value))


def _request(condition: str | None) -> str | None:
    """The side's `request` member (the condition decoded, encoded again); None when it holds a
    value the strict encoder refuses (a non-finite float: the general writer words it)."""
    if condition is None:
        return "null"
    text = _CONDITIONS.get(condition)
    if text is None:
        try:
            text = _STRICT.encode(json.loads(condition))
        except ValueError:
            return None
        if len(_CONDITIONS) < MAX_CONDITIONS:
            _CONDITIONS[condition] = text
    return text


def _tail(
    finish: str | None,
    fingerprint: str | None,
    prompt: str | None,
    condition: str | None,
    model: str | None,
) -> str | None:
    """A side's members from `finish_reason` on (None: see `_request`)."""
    cache_key = (finish, fingerprint, prompt, condition, model)
    text = _TAILS.get(cache_key)
    if text is None:
        request = _request(condition)
        if request is None:
            return None
        text = (
            f'"finish_reason": {_string(finish)}, "fingerprint": {_string(fingerprint)}, '
            f'"model": {_string(model)}, '
            f'"error": null, "prompt_xxh3": {_string(prompt)}, "request": {request}}}'
        )
        if len(_TAILS) < MAX_CONDITIONS:
            _TAILS[cache_key] = text
    return text


_TAILS: dict[tuple[str | None, ...], str] = {}
_TAIL_FIELDS = itemgetter(FINISH, FINGERPRINT, PROMPT, CONDITION, MODEL)
"""A packed side's fields `_tail` is made of, in its order (its cache key)."""
_DISPLAYS: dict[str, str] = {}


def _location(packed: Packed, display: str) -> str:
    """`_string(location(packed, display))`; the escaped path made once (escapes are made
    character by character, so the pieces can be escaped apart)."""
    if packed[MEMBER] is not None or packed[INDEX] is not None:
        return _string(location(packed, display))
    escaped = _DISPLAYS.get(display)
    if escaped is None:
        escaped = _string(display)[:-1]  # without its closing quote
        if len(_DISPLAYS) < MAX_CONDITIONS:
            _DISPLAYS[display] = escaped
    return f'{escaped}:{packed[LINE]}"'


_LITTLE_ENDIAN = sys.byteorder == "little"
"""The spill's int64 token ids are the digest's bytes as they are (else `ids_digest` swaps)."""


def match_line(row: MatchRow) -> str | None:
    """The row's `records` item as the spool writes it; None when only the general writer can
    write it (see `_request`). One frame: each helper it would call (`text_digest`,
    `ids_digest`, `_location`, `_string`) costs as much as its work, 100,000 times a run."""
    base, patch = row.base, row.patch
    # Each side's tail from the cache when its fields repeat (one C call for the cache key).
    base_tail = _TAILS.get(_TAIL_FIELDS(base)) or _tail(*_TAIL_FIELDS(base))
    patch_tail = _TAILS.get(_TAIL_FIELDS(patch)) or _tail(*_TAIL_FIELDS(patch))
    if base_tail is None or patch_tail is None:
        return None
    text = base[TEXT]
    ids = base[TOKEN_IDS]
    # Both sides' texts and token ids are equal: one middle serves both. The digests are hex.
    tokens: int | str
    if ids is None:
        ids_text = tokens = "null"
    else:
        digest = xxh3_128_hexdigest(ids) if _LITTLE_ENDIAN else ids_digest(ids)
        ids_text, tokens = f'"{digest}"', len(ids) // 8
    middle = (
        f'"text_xxh3": "{xxh3_128_hexdigest(text.encode("utf-8", "surrogatepass"))}", '
        f'"token_ids_xxh3": {ids_text}, "chars": {len(text)}, "tokens": {tokens}, '
    )
    if base[LABEL] is None is patch[LABEL] and base[PREVIEW] is None is patch[PREVIEW]:
        named = '"prompt_preview": null, "label": null'  # a bare response object names nothing
    else:
        named = f'"prompt_preview": {_string(row.prompt_preview)}, "label": {_string(row.label)}'
    base_display, patch_display = row.displays
    if base[MEMBER] is None is base[INDEX] and base_display in _DISPLAYS:
        base_location = f'{_DISPLAYS[base_display]}:{base[LINE]}"'
    else:
        base_location = _location(base, base_display)
    if patch[MEMBER] is None is patch[INDEX] and patch_display in _DISPLAYS:
        patch_location = f'{_DISPLAYS[patch_display]}:{patch[LINE]}"'
    else:
        patch_location = _location(patch, patch_display)
    return (
        f'{{"key": {encode_basestring_ascii(row.key)}, "status": "match", {named}, '
        f'"base": {{"location": {base_location}, {middle}{base_tail}, '
        f'"patch": {{"location": {patch_location}, {middle}{patch_tail}, '
        f'"text_match": true, "normalized_match": false, '
        f'"token_match": {"null" if ids is None else "true"}, "similarity": 1.0, '
        '"divergence": null, "field_changes": [], "logprobs": null, "notes": [], '
        '"run_state": [], "lm_eval": null}'
    )
