"""Whether a request's fields sample (temperature > 0, or a sampling knob with the server's
default temperature): the condition under which triage judges outputs by their distribution and
`k3diff sample` says so in its summary."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from k3diff import jsontext

SAMPLING_KNOBS: dict[str, Callable[[float], bool]] = {
    "top_p": lambda v: v < 1,
    "top_k": lambda v: v > 1,
    "min_p": lambda v: v > 0,
}
"""Request fields that sample when the temperature is not given (the server's default then
applies, 1 for OpenAI-compatible servers)."""


def samples_sampled(params: Mapping[str, Any] | None) -> bool:
    """The request fields sample: temperature > 0, or no temperature but a top-p < 1, top-k > 1
    or min-p > 0. An unset temperature alone is not taken as sampling."""
    if not params:
        return False
    temperature = params.get("temperature")
    if _number(temperature):
        return float(temperature) > 0
    knobs = [(test, params.get(name)) for name, test in SAMPLING_KNOBS.items()]
    return any(test(float(value)) for test, value in knobs if _number(value))


def has_seed(params: Mapping[str, Any] | None) -> bool:
    """The request fields fix the sampler's seed (an integer `seed`, not a bool)."""
    seed = None if not params else params.get("seed")
    return isinstance(seed, int) and not isinstance(seed, bool)


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


NUMERIC_FIELDS = (
    "temperature",
    *SAMPLING_KNOBS,
    "seed",
    "max_tokens",
    "max_completion_tokens",
    "n",
    "presence_penalty",
    "frequency_penalty",
)
"""OpenAI request fields that hold a number, which k3diff reads (sampling) or compares
(the condition a sample repeats)."""


def boolean_number(params: Mapping[str, Any]) -> str | None:
    """`temperature is true, not a number` for the first of `NUMERIC_FIELDS` that holds a JSON
    bool, else None. Python's `True == 1` would take `true` for the number 1, and a server may
    read it as 1 or refuse it: which condition was sampled would be unknown."""
    for name in NUMERIC_FIELDS:
        value = params.get(name)
        if isinstance(value, bool):
            return f"{name} is {str(value).lower()}, not a number"
    return None


def non_finite(value: Any, where: str = "") -> str | None:
    """`temperature is NaN, which a JSON request cannot hold` for the first NaN or infinity in
    a request body (a prompts line or `--param` read by Python's lenient JSON), else None: the
    body is sent as RFC 8259 JSON, which has neither, and failed as an internal error."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{where or 'the request'} is {jsontext.finite(value)}, which a JSON request cannot hold"
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        inner = (
            f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}" if where else str(key)
        )
        if (problem := non_finite(item, inner)) is not None:
            return problem
    return None


@dataclass(frozen=True)
class RequestFields:
    """The request fields `samples_sampled` and `has_seed` read, as a sample logged them, and
    how many of a side's requests in one mode sent them: what decided a triage mode's
    `sampled` (recorded in `k3diff.triage/1` so that `report` checks the word against it)."""

    temperature: float | None
    """The temperature sent (None: absent, or not a number)."""
    top_p: float | None
    """top_p sent (None: absent, or not a number)."""
    top_k: float | None
    """top_k sent (None: absent, or not a number)."""
    min_p: float | None
    """min_p sent (None: absent, or not a number)."""
    seed: bool
    """An integer seed was sent."""
    count: int = 1
    """Requests that sent these fields."""

    @property
    def samples(self) -> bool:
        """These fields sample (`samples_sampled`)."""
        knobs = {"top_p": self.top_p, "top_k": self.top_k, "min_p": self.min_p}
        return samples_sampled({"temperature": self.temperature, **knobs})


def request_fields(params: Mapping[str, Any] | None) -> RequestFields:
    """The fields of one request that decide whether it samples, and whether it was seeded."""
    found = params or {}

    def number(name: str) -> float | None:
        value = found.get(name)
        return float(value) if _number(value) else None

    return RequestFields(
        number("temperature"), number("top_p"), number("top_k"), number("min_p"), has_seed(found)
    )


def counted_fields(requests: Iterable[RequestFields]) -> tuple[RequestFields, ...]:
    """The distinct field sets among `requests`, each with its count, in first-seen order."""
    counts: dict[RequestFields, int] = {}
    for fields in requests:
        key = RequestFields(
            fields.temperature, fields.top_p, fields.top_k, fields.min_p, fields.seed
        )
        counts[key] = counts.get(key, 0) + fields.count
    return tuple(
        RequestFields(k.temperature, k.top_p, k.top_k, k.min_p, k.seed, c)
        for k, c in counts.items()
    )
