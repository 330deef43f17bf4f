"""Reads the two logprob shapes OpenAI-compatible servers return into a compact `LogprobTrace`.

- completions: ``{"tokens": [...], "token_logprobs": [...], "top_logprobs": [{tok: lp}, ...]}``
- chat: ``{"content": [{"token": t, "logprob": lp, "top_logprobs": [{"token", "logprob"}]}]}``
  (a bare list of such entries is accepted too).
"""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Sequence
from typing import Any

from k3diff.errors import ResponseFormatError
from k3diff.responses.model import LogprobTrace

NAN = math.nan


def parse_logprobs(value: Any, where: str) -> LogprobTrace | None:
    """Turn a `logprobs` value into a trace; None when absent or empty."""
    if value is None:
        return None
    if isinstance(value, dict) and "tokens" in value:
        return _from_completions(value, where)
    if isinstance(value, dict) and "content" in value:
        content = value["content"]
        return None if content is None else _from_chat(content, where)
    if isinstance(value, list):
        return _from_chat(value, where)
    raise ResponseFormatError(f"{where}: logprobs in an unknown shape ({type(value).__name__})")


def _float(value: Any, where: str) -> float:
    if value is None:
        return NAN
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ResponseFormatError(f"{where}: logprob is not a number: {value!r}")
    return float(value)


def _from_completions(value: dict[str, Any], where: str) -> LogprobTrace:
    tokens = value.get("tokens") or []
    chosen = value.get("token_logprobs") or [None] * len(tokens)
    tops = value.get("top_logprobs") or [None] * len(tokens)
    if not (len(tokens) == len(chosen) == len(tops)):
        raise ResponseFormatError(f"{where}: logprobs lists have different lengths")
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
        top = entry.get("top_logprobs") or []
        alternatives.append(
            [(str(alt.get("token")), _float(alt.get("logprob"), where)) for alt in top]
        )
    return _build(tokens, chosen, alternatives, where)


def _build(
    tokens: Sequence[Any],
    chosen: list[float],
    alternatives: list[list[tuple[str, float]]],
    where: str,
) -> LogprobTrace:
    if not all(isinstance(token, str) for token in tokens):
        raise ResponseFormatError(f"{where}: logprobs token is not a string")
    top1_tokens: list[str | None] = []
    top2_tokens: list[str | None] = []
    top1 = array("d")
    top2 = array("d")
    for alts in alternatives:
        ranked = sorted(alts, key=lambda alt: -alt[1] if not math.isnan(alt[1]) else math.inf)
        first = ranked[0] if ranked else (None, NAN)
        second = ranked[1] if len(ranked) > 1 else (None, NAN)
        top1_tokens.append(sys.intern(first[0]) if first[0] is not None else None)
        top1.append(first[1])
        top2_tokens.append(sys.intern(second[0]) if second[0] is not None else None)
        top2.append(second[1])
    return LogprobTrace(
        tokens=tuple(sys.intern(token) for token in tokens),
        logprobs=array("d", chosen),
        top1_tokens=tuple(top1_tokens),
        top1_logprobs=top1,
        top2_tokens=tuple(top2_tokens),
        top2_logprobs=top2,
        top_k=max((len(alts) for alts in alternatives), default=0),
    )
