"""Whether a request's fields sample (temperature > 0, or a sampling knob with the server's
default temperature): the condition under which triage judges outputs by their distribution and
`k3diff sample` says so in its summary."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeGuard

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


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)
