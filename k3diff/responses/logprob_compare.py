"""One logprob rule for every shape: per-token logprobs compared over the common token prefix.

Both sides' traces (OpenAI completions or chat, vLLM, SGLang — all read into `LogprobTrace`)
are walked from the first token while the sampled tokens agree; at each position the sampled
token's logprob is compared (a position where either side gave none is skipped; a NaN the
server sent differs from every number: `logprobs.SENT_NAN`). The largest
|Δ| and its position are reported; above `--logprob-tol` (default 0: any difference) the record
is `logprobs-differ` when its text and token ids agree.
"""

from __future__ import annotations

import math

from k3diff.responses.logprobs import sent_nan
from k3diff.responses.model import LogprobTrace
from k3diff.responses.prefix import common_prefix_length
from k3diff.responses.results import LogprobDelta


def compare_logprobs(
    base: LogprobTrace | None,
    patch: LogprobTrace | None,
    tolerance: float,
    limit: int | None = None,
) -> LogprobDelta | None:
    """The comparison, or None unless both sides carry logprobs. `limit`: the first diverging
    token where the token ids or texts show it (token texts alone can agree past it: llama.cpp
    gives `""` for every partial UTF-8 token)."""
    if base is None or patch is None:
        return None
    prefix = common_prefix_length(base.tokens, patch.tokens)
    if limit is not None:
        prefix = min(prefix, limit)
    if base.logprobs[:prefix] == patch.logprobs[:prefix]:
        return LogprobDelta(prefix, 0.0, None, tolerance)  # the common case, compared in C
    largest, where, compared = 0.0, None, 0
    for index in range(prefix):
        first, second = base.logprobs[index], patch.logprobs[index]
        if math.isnan(first) or math.isnan(second):
            if _not_given(first) or _not_given(second):
                continue
            # A NaN the server sent differs from every number and agrees with another NaN sent.
            delta = 0.0 if first != first and second != second else math.inf
        else:
            delta = abs(first - second)
        compared += 1
        if delta > largest:
            largest, where = delta, index
    return LogprobDelta(compared, largest, where, tolerance)


def _not_given(value: float) -> bool:
    """The server gave no logprob here (`logprobs.NAN`, not a NaN it sent)."""
    return value != value and not sent_nan(value)
