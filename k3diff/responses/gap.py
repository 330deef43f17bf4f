"""What the logprobs say at the first diverging token: each side's top alternatives, and a
label that is true.

The **gap** of one side is its sampled token's logprob minus the best *other* token's (the most
likely alternative that is not the sampled token). It is negative when the sampled token was not
the most likely one: a penalty (llama.cpp's repeat penalty) or sampling applied after the
logprobs were computed.

- ``near-tie``: on every side that has a gap, |gap| is within ``--near-tie`` — a flip a
  numerical change may cause.
- ``decisive``: some side's |gap| is beyond ``--near-tie``; shown with that gap (sign kept).
- ``in-top-N swap`` (vLLM's ``check_logprobs_close`` rule): each side's token is among the other
  side's top-N alternatives; reported beside either label.
- ``swapped_top2`` only when the two tokens are the top two on *both* sides.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate

from k3diff.responses.model import LogprobTrace
from k3diff.responses.prefix import common_prefix_length
from k3diff.responses.results import LogprobGap, LogprobPoint

DIGITS = 6


def logprob_gap(
    base: LogprobTrace | None,
    patch: LogprobTrace | None,
    token_index: int | None,
    char_offset: int | None,
    near_tie: float,
) -> LogprobGap | None:
    """The logprobs of both sides at the first diverging token, and what they say about it."""
    index = token_index
    if index is None:
        index = _token_at(base, patch, char_offset)
    if index is None:
        return None
    base_point, patch_point = _point(base, index), _point(patch, index)
    if base_point is None and patch_point is None:
        return None
    gaps = [p.sampled_gap for p in (base_point, patch_point) if p and p.sampled_gap is not None]
    gap = max(gaps, key=abs) if gaps else None
    label = None if gap is None else ("near-tie" if abs(gap) <= near_tie else "decisive")
    in_top, top_n = _in_top_n(base, patch, index)
    return LogprobGap(
        index,
        base_point,
        patch_point,
        _swapped(base_point, patch_point),
        gap=None if gap is None else round(gap, DIGITS),
        label=label,
        in_top_n=in_top,
        top_n=top_n,
    )


def _token_at(
    base: LogprobTrace | None, patch: LogprobTrace | None, char_offset: int | None
) -> int | None:
    """The first diverging token without token ids: the common prefix of the token texts, cut
    at the text's first differing character. Token texts alone can run past it: llama.cpp gives
    `""` for each token that holds part of a UTF-8 character, so different partial tokens read
    as equal."""
    index = None
    if base is not None and patch is not None:
        index = common_prefix_length(base.tokens, patch.tokens)
    if char_offset is not None:
        trace = base if base is not None else patch
        if trace is not None:
            before = _tokens_before(trace.tokens, char_offset)
            index = before if index is None else min(index, before)
    return index


def _tokens_before(tokens: tuple[str, ...], char_offset: int) -> int:
    """How many tokens lie wholly before `char_offset`; empty (partial-character) tokens at the
    boundary belong to the character that follows them, so they are not counted."""
    count = bisect_right(list(accumulate(len(t) for t in tokens)), char_offset)
    while count and not tokens[count - 1]:
        count -= 1
    return count


def _sampled_gap(trace: LogprobTrace, index: int) -> float | None:
    """The sampled token's logprob minus the best other alternative's (None when either is
    unknown)."""
    mine, token = trace.logprobs[index], trace.tokens[index]
    others = [lp for alt, lp in trace.top[index] if alt != token and not math.isnan(lp)]
    if math.isnan(mine) or not others:
        return None
    return round(mine - max(others), DIGITS)


def _in_top_n(
    base: LogprobTrace | None, patch: LogprobTrace | None, index: int
) -> tuple[bool, int]:
    if base is None or patch is None or index >= len(base.tokens) or index >= len(patch.tokens):
        return False, 0
    base_top, patch_top = base.top[index], patch.top[index]
    top_n = min(len(base_top), len(patch_top))
    if not top_n:
        return False, 0
    inside = base.tokens[index] in {t for t, _ in patch_top} and patch.tokens[index] in {
        t for t, _ in base_top
    }
    return inside, top_n


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
        sampled_gap=_sampled_gap(trace, index),
    )


def _swapped(base: LogprobPoint | None, patch: LogprobPoint | None) -> bool:
    """The two sampled tokens are the top two on *both* sides."""
    if base is None or patch is None or base.token == patch.token:
        return False
    chosen = {base.token, patch.token}
    return chosen == {base.top1[0], base.top2[0]} and chosen == {patch.top1[0], patch.top2[0]}
