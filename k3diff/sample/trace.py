"""What a divergence analysis needs from one sampled answer, kept in its `samples.jsonl` line:
the token ids and, where the server sent logprobs, each position's token, its logprob and its
margin over the runner-up (the best alternative that is not the chosen token), and the first
position's reported alternatives (`first_top`: what triage's first-token test compares).

Bounded: at most `TRACE_POSITIONS` positions, the first ones (where greedy splits start); the
line says how many the answer had (`positions`) and how many it keeps (`kept`).
"""

from __future__ import annotations

import math
from array import array
from typing import Any

from k3diff.responses.model import LogprobTrace

TRACE_POSITIONS = 512
"""Positions a sample line keeps (the first ones)."""
DIGITS = 6
"""Decimals kept of a logprob or margin."""
FIRST_TOP = 64
"""Alternatives of the first position a sample line keeps at most (the most likely ones)."""


def token_trace(
    token_ids: array[int] | None, logprobs: LogprobTrace | None
) -> dict[str, Any] | None:
    """The `trace` object of a sample line, None when the server sent neither ids nor logprobs."""
    if token_ids is None and logprobs is None:
        return None
    positions = max(len(token_ids or ()), len(logprobs.tokens) if logprobs else 0)
    kept = min(positions, TRACE_POSITIONS)
    trace: dict[str, Any] = {"positions": positions, "kept": kept}
    trace["token_ids"] = None if token_ids is None else list(token_ids[:kept])
    if logprobs is None:
        trace["tokens"] = trace["logprobs"] = trace["margins"] = None
        return trace
    count = min(kept, len(logprobs.tokens))
    trace["tokens"] = list(logprobs.tokens[:count])
    trace["logprobs"] = [_number(logprobs.logprobs[i]) for i in range(count)]
    trace["margins"] = [margin(logprobs, i) for i in range(count)]
    trace["first_top"] = first_top(logprobs)
    return trace


def first_top(trace: LogprobTrace) -> list[list[str | float]] | None:
    """The first position's alternatives as the server ranked them, `[token, logprob]` each (at
    most `FIRST_TOP`, those without a logprob left out); None when it sent none there."""
    alternatives = trace.top[0] if trace.top else ()
    kept: list[list[str | float]] = [
        [token, round(float(lp), DIGITS)] for token, lp in alternatives if not math.isnan(lp)
    ]
    return kept[:FIRST_TOP] or None


def margin(trace: LogprobTrace, index: int) -> float | None:
    """The chosen token's logprob minus the best alternative's (negative when a less likely
    token was sampled); None when the alternatives are not known."""
    chosen = trace.logprobs[index]
    alternatives = trace.top[index] if index < len(trace.top) else ()
    token = trace.tokens[index]
    other = next((float(lp) for alt, lp in alternatives if alt != token), math.nan)
    if math.isnan(chosen) or math.isnan(other):
        return None
    return round(float(chosen) - other, DIGITS)


def _number(value: float) -> float | None:
    return None if math.isnan(value) else round(value, DIGITS)
