"""What the logprobs say at the first diverging token: each side's top alternatives, and a
label that is true.

- ``near-tie``: the gap between the two sampled tokens (on a side that lists the other's token,
  its own token's logprob minus the other's; the larger of the two sides) is within
  ``--near-tie`` — a flip a numerical change may cause.
- ``decisive``: the gap is beyond ``--near-tie``; shown with the gap.
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
    gap = _gap(base, patch, index)
    label = None if gap is None else ("near-tie" if gap <= near_tie else "decisive")
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


def _lp_of(trace: LogprobTrace, index: int, token: str) -> float | None:
    for alternative, logprob in trace.top[index]:
        if alternative == token and not math.isnan(logprob):
            return logprob
    return None


def _gap(base: LogprobTrace | None, patch: LogprobTrace | None, index: int) -> float | None:
    """On each side that lists the other's token: own token's logprob minus the other's; the
    larger (the more decisive) of those. None when no side lists the other's token."""
    if base is None or patch is None or index >= len(base.tokens) or index >= len(patch.tokens):
        return None
    gaps = []
    for own, other in ((base, patch), (patch, base)):
        mine, theirs = own.logprobs[index], _lp_of(own, index, other.tokens[index])
        if theirs is not None and not math.isnan(mine):
            gaps.append(mine - theirs)
    return max(gaps) if gaps else None


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
    )


def _swapped(base: LogprobPoint | None, patch: LogprobPoint | None) -> bool:
    """The two sampled tokens are the top two on *both* sides."""
    if base is None or patch is None or base.token == patch.token:
        return False
    chosen = {base.token, patch.token}
    return chosen == {base.top1[0], base.top2[0]} and chosen == {patch.top1[0], patch.top2[0]}
