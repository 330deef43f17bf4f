"""The `records` item of an identical pair (`k3diff.responses.matchpair.MatchRow`), encoded
straight from the row's fields: the same text as `responses.record_line` of its diff encoded
by the record spool (compact items, `json.JSONEncoder`'s separators, ASCII), without building
the diff, its dictionary or walking it. Tests compare the two on every kind of value."""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii

from k3diff.responses.matchpair import MatchRow

_STRICT = json.JSONEncoder(allow_nan=False)
MAX_CONDITIONS = 4096
"""Encoded request conditions remembered (a run holds a handful)."""
_CONDITIONS: dict[str, str] = {}


def _string(value: str | None) -> str:
    return "null" if value is None else str(encode_basestring_ascii(value))


def _number(value: int | None) -> str:
    return "null" if value is None else int.__repr__(value)


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


def _side(row: MatchRow, is_base: bool) -> str | None:
    location, text, ids, chars, tokens, finish, fingerprint, _error, prompt, condition = row.side(
        is_base
    )
    request = _request(condition)
    if request is None:
        return None
    return (
        f'{{"location": {_string(location)}, "text_xxh3": {_string(text)}, '
        f'"token_ids_xxh3": {_string(ids)}, "chars": {_number(chars)}, '
        f'"tokens": {_number(tokens)}, "finish_reason": {_string(finish)}, '
        f'"fingerprint": {_string(fingerprint)}, "error": null, '
        f'"prompt_xxh3": {_string(prompt)}, "request": {request}}}'
    )


def match_line(row: MatchRow) -> str | None:
    """The row's `records` item as the spool writes it; None when only the general writer can
    write it (see `_request`)."""
    base = _side(row, True)
    patch = _side(row, False)
    if base is None or patch is None:
        return None
    token_match = "null" if row.token_match is None else "true"
    return (
        f'{{"key": {_string(row.key)}, "status": "match", '
        f'"prompt_preview": {_string(row.prompt_preview)}, "label": {_string(row.label)}, '
        f'"base": {base}, "patch": {patch}, "text_match": true, "normalized_match": false, '
        f'"token_match": {token_match}, "similarity": 1.0, "divergence": null, '
        f'"field_changes": [], "logprobs": null, "notes": [], "run_state": [], "lm_eval": null}}'
    )
