"""The `trace` object of a sample line as triage reads it: token ids, tokens and margins for the
split analysis, and the first position's chosen logprob and reported alternatives for the
first-token test (`k3diff.triage.firsttoken`).

Every field is optional (logs written before a field existed lack it); a field present but of
the wrong shape fails with one line naming the line and the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from k3diff.errors import InputError


@dataclass(frozen=True)
class Trace:
    """A sample line's `trace`: what a split analysis needs, bounded by the sampler."""

    token_ids: tuple[int, ...] | None
    """Generated token ids (the first `kept`)."""
    tokens: tuple[str, ...] | None
    """Generated token strings (from logprobs)."""
    margins: tuple[float | None, ...] | None
    """Per position, the chosen token's logprob minus the runner-up's."""
    positions: int
    """Tokens the answer had."""
    kept: int
    """Tokens the line kept (the first ones)."""
    first_logprob: float | None = None
    """The first token's logprob as the server reported it (None: not reported)."""
    first_top: tuple[tuple[str, float], ...] | None = None
    """The first position's reported alternatives, (token, logprob), most likely first (None:
    not reported, or a log written before the field)."""


def read_trace(value: Any, where: str) -> Trace | None:
    """The optional `trace` object, checked."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InputError(f"{where}: 'trace' is not an object")
    positions, kept = value.get("positions"), value.get("kept")
    for name, number in (("positions", positions), ("kept", kept)):
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise InputError(f"{where}: 'trace.{name}' is not a non-negative integer")
    assert isinstance(positions, int) and isinstance(kept, int)
    logprobs = _numbers(value.get("logprobs"), f"{where}: 'trace.logprobs'")
    return Trace(
        token_ids=_items(value.get("token_ids"), int, f"{where}: 'trace.token_ids'"),
        tokens=_items(value.get("tokens"), str, f"{where}: 'trace.tokens'"),
        margins=_numbers(value.get("margins"), f"{where}: 'trace.margins'"),
        positions=positions,
        kept=kept,
        first_logprob=logprobs[0] if logprobs else None,
        first_top=_first_top(value.get("first_top"), f"{where}: 'trace.first_top'"),
    )


def _items(value: Any, kind: type[Any], what: str) -> tuple[Any, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(
        isinstance(item, kind) and not isinstance(item, bool) for item in value
    ):
        raise InputError(f"{what} is not a list of {kind.__name__}")
    return tuple(value)


def _finite(item: Any) -> bool:
    return isinstance(item, int | float) and not isinstance(item, bool) and math.isfinite(item)


def _numbers(value: Any, what: str) -> tuple[float | None, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(item is None or _finite(item) for item in value):
        raise InputError(f"{what} is not a list of numbers and nulls")
    return tuple(None if item is None else float(item) for item in value)


def _first_top(value: Any, what: str) -> tuple[tuple[str, float], ...] | None:
    if value is None:
        return None
    ok = isinstance(value, list) and all(
        isinstance(pair, list)
        and len(pair) == 2
        and isinstance(pair[0], str)
        and _finite(pair[1])
        and pair[1] <= 0
        for pair in value
    )
    if not ok:
        raise InputError(f"{what} is not a list of [token, logprob <= 0] pairs")
    return tuple((str(token), float(lp)) for token, lp in value)
