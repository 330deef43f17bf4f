"""Reads every logprob shape the supported servers return into one compact `LogprobTrace`, so
that one rule compares them all (`k3diff.responses.logprob_compare`).

- OpenAI completions: ``{"tokens": [...], "token_logprobs": [...], "top_logprobs": [{tok: lp}]}``
- OpenAI chat: ``{"content": [{"token", "logprob", "top_logprobs": [{"token", "logprob"}]}]}``
  (a bare list of such entries is accepted too).
- vLLM ``CompletionOutput.logprobs``: one ``{token_id: {"logprob", "rank", "decoded_token"}}``
  per generated token; the sampled token is the output's ``token_ids[i]``.
- SGLang ``meta_info.output_token_logprobs``: ``[[logprob, token_id, text_or_null], ...]`` with
  ``output_top_logprobs`` (per position, a list of the same triples).

A token with no text (vLLM without detokenisation, SGLang without ``return_text_in_logprobs``)
is named by its id, ``<id 3681>``.
"""

from __future__ import annotations

import math
import struct
import sys
from array import array
from collections.abc import Sequence
from typing import Any

from k3diff.errors import ResponseFormatError
from k3diff.responses.model import Alternatives, LogprobTrace

NAN = math.nan
"""A logprob the server did not give (null): a position the comparison skips."""
SENT_NAN: float = struct.unpack("<d", struct.pack("<Q", 0x7FF8_0000_0000_4E41))[0]
"""A logprob the server sent as NaN (a computation that failed): a NaN told apart from `NAN` by
its payload, which arrays and marshal keep, so that it differs from every real logprob
(`logprob_compare`; review63: it was skipped as if not given)."""
_SENT_BITS = struct.pack("<d", SENT_NAN)


def sent_nan(value: float) -> bool:
    """`value` is a NaN the server sent (not `NAN`, a logprob not given)."""
    return value != value and struct.pack("<d", value) == _SENT_BITS


def parse_logprobs(value: Any, where: str) -> LogprobTrace | None:
    """Turn an OpenAI-shaped `logprobs` value into a trace; None when absent or empty."""
    if value is None:
        return None
    if isinstance(value, dict) and "tokens" in value:
        return _from_completions(value, where)
    if isinstance(value, dict) and "content" in value:
        content = _list(value, "content", where)
        return None if content is None else _from_chat(content, where)
    if isinstance(value, list):
        return _from_chat(value, where)
    raise ResponseFormatError(f"{where}: logprobs in an unknown shape ({type(value).__name__})")


def _list(value: dict[str, Any], name: str, where: str) -> list[Any] | None:
    """`value[name]`: a list, or None when absent or null; a format error for anything else
    (review66: a number was an internal error, a string read as a list of characters)."""
    field = value.get(name)
    if field is None or isinstance(field, list):
        return field
    raise ResponseFormatError(f"{where}: logprobs {name} is not a list")


def _float(value: Any, where: str) -> float:
    if value is None:
        return NAN
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ResponseFormatError(f"{where}: logprob is not a number: {value!r}")
    number = float(value)
    return SENT_NAN if number != number else number


def _from_completions(value: dict[str, Any], where: str) -> LogprobTrace:
    tokens = _list(value, "tokens", where) or []
    chosen = _list(value, "token_logprobs", where) or [None] * len(tokens)
    tops = _list(value, "top_logprobs", where) or [None] * len(tokens)
    if not (len(tokens) == len(chosen) == len(tops)):
        raise ResponseFormatError(f"{where}: logprobs lists have different lengths")
    if not all(top is None or isinstance(top, dict) for top in tops):
        raise ResponseFormatError(f"{where}: top_logprobs entry is not an object")
    alternatives = [
        [] if top is None else [(str(tok), _float(lp, where)) for tok, lp in top.items()]
        for top in tops
    ]
    return _build(tokens, [_float(lp, where) for lp in chosen], alternatives, where)


def _from_chat(content: Sequence[Any], where: str) -> LogprobTrace:
    tokens: list[str] = []
    chosen: list[float] = []
    alternatives: list[list[tuple[str, float]]] = []
    for entry in content:
        if not isinstance(entry, dict) or "token" not in entry:
            raise ResponseFormatError(f"{where}: logprobs content entry without a token")
        tokens.append(entry["token"])
        chosen.append(_float(entry.get("logprob"), where))
        top = _list(entry, "top_logprobs", where) or []
        if not all(isinstance(alt, dict) for alt in top):
            raise ResponseFormatError(f"{where}: top_logprobs entry is not an object")
        alternatives.append(
            [(str(alt.get("token")), _float(alt.get("logprob"), where)) for alt in top]
        )
    return _build(tokens, chosen, alternatives, where)


def _id_token(token_id: Any, text: Any) -> str:
    return text if isinstance(text, str) else f"<id {token_id}>"


def from_vllm(value: Any, token_ids: Any, where: str) -> LogprobTrace | None:
    """vLLM's per-position ``{token_id: Logprob}`` dicts, with the output's sampled ids."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(pos, dict) for pos in value):
        raise ResponseFormatError(f"{where}: vLLM logprobs is not a list of objects")
    if not isinstance(token_ids, list) or len(token_ids) != len(value):
        raise ResponseFormatError(f"{where}: vLLM logprobs and token_ids have different lengths")
    tokens: list[str] = []
    chosen: list[float] = []
    alternatives: list[list[tuple[str, float]]] = []
    for sampled, position in zip(token_ids, value, strict=True):
        alts: list[tuple[str, float]] = []
        token, logprob = f"<id {sampled}>", NAN
        for token_id, entry in position.items():
            info = entry if isinstance(entry, dict) else {"logprob": entry}
            name = _id_token(token_id, info.get("decoded_token"))
            lp = _float(info.get("logprob"), where)
            alts.append((name, lp))
            if str(token_id) == str(sampled):
                token, logprob = name, lp
        tokens.append(token)
        chosen.append(logprob)
        alternatives.append(alts)
    return _build(tokens, chosen, alternatives, where)


def _triple(entry: Any, where: str) -> tuple[str, float]:
    if not isinstance(entry, list | tuple) or len(entry) < 2:
        raise ResponseFormatError(f"{where}: SGLang logprob entry is not [logprob, id, text]")
    text = entry[2] if len(entry) > 2 else None
    return _id_token(entry[1], text), _float(entry[0], where)


def from_sglang(token_logprobs: Any, top_logprobs: Any, where: str) -> LogprobTrace | None:
    """SGLang's ``output_token_logprobs`` and ``output_top_logprobs``."""
    if token_logprobs is None:
        return None
    if not isinstance(token_logprobs, list):
        raise ResponseFormatError(f"{where}: output_token_logprobs is not a list")
    chosen = [_triple(entry, where) for entry in token_logprobs]
    tops = top_logprobs if isinstance(top_logprobs, list) else [None] * len(chosen)
    if len(tops) != len(chosen):
        raise ResponseFormatError(f"{where}: output_top_logprobs has a different length")
    if not all(top is None or isinstance(top, list) for top in tops):
        raise ResponseFormatError(f"{where}: output_top_logprobs entry is not a list")
    alternatives = [[] if top is None else [_triple(entry, where) for entry in top] for top in tops]
    return _build([token for token, _ in chosen], [lp for _, lp in chosen], alternatives, where)


def _ranked(alts: list[tuple[str, float]]) -> Alternatives:
    ranked = sorted(alts, key=lambda alt: -alt[1] if not math.isnan(alt[1]) else math.inf)
    return tuple((sys.intern(token), lp) for token, lp in ranked)


def _build(
    tokens: Sequence[Any],
    chosen: list[float],
    alternatives: list[list[tuple[str, float]]],
    where: str,
) -> LogprobTrace:
    if not all(isinstance(token, str) for token in tokens):
        raise ResponseFormatError(f"{where}: logprobs token is not a string")
    return LogprobTrace(
        tokens=tuple(sys.intern(token) for token in tokens),
        logprobs=array("d", chosen),
        top=tuple(_ranked(alts) for alts in alternatives),
        top_k=max((len(alts) for alts in alternatives), default=0),
        not_given=chosen.count(NAN),  # `_float`'s NAN itself: list.count matches by identity
    )
