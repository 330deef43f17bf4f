"""The server's counts a sample line holds, checked on their way in: a count is a non-negative
integer up to `k3diff.counts.MAX_COUNT` (JSON's exact-integer range), anything else is not
reported (`server_count`) or recorded as invalid (`checked_usage`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from k3diff.counts import MAX_COUNT


def checked_usage(value: Any) -> tuple[dict[str, Any] | None, str | None]:
    """(usage, None) when every count is a non-negative integer, else (None, why): a server's
    invalid usage is recorded as invalid, never silently kept or dropped."""
    if value is None:
        return None, None
    problem = _usage_problem(value, "usage") or _cached_past_prompt(value)
    if problem is not None:
        return None, problem
    assert isinstance(value, dict)
    return value, None


def sampled_usage(value: Any) -> tuple[dict[str, Any] | None, str | None]:
    """`checked_usage` of a usage as `sample` writes it: one that counts cached prompt tokens
    but no `prompt_tokens` is recorded as invalid too. Its cached count cannot be checked
    against the prompt's, so `telemetry` and `triage` count none of it (small78); the log says
    the same, so that no reader, of this version or another, takes it as evidence of reuse
    (small79: it was written as a valid usage). A log written before keeps being read. A
    cached count of null (or an object of counts) reports none, so it leaves the usage valid (review79b: it was written
    as invalid, its other counts lost); a count in either place is checked (a null OpenAI one
    does not hide SGLang's)."""
    usage, problem = checked_usage(value)
    if usage is None or is_count(usage.get("prompt_tokens")):
        return usage, problem
    counted = [place for place in _CACHED_PLACES if is_count(_at(usage, place))]
    if not counted:  # none, or null (or an object): no cached count reported
        return usage, None
    place = counted[0]
    return None, (
        f"usage.{'.'.join(place)} is {shown(_at(usage, place))} with no usage.prompt_tokens to check "
        "it against (a cache serves part of the prompt at most)"
    )


def reported_cached(usage: Mapping[str, Any] | None) -> int | None:
    """The cached prompt tokens a usage reports (OpenAI's `prompt_tokens_details`, else
    SGLang's top-level `cached_tokens`), unchecked; None when it reports none."""
    if not isinstance(usage, Mapping):
        return None
    place = _cached_place(usage)
    return None if place is None else server_count(_at(usage, place))


_CACHED_PLACES = (("prompt_tokens_details", "cached_tokens"), ("cached_tokens",))
"""Where a usage holds its cached prompt tokens (OpenAI's, then SGLang's top-level one)."""


def _at(usage: Mapping[str, Any], place: tuple[str, ...]) -> Any:
    value: Any = usage
    for name in place:
        value = value.get(name) if isinstance(value, Mapping) else None
    return value


def _cached_place(usage: Mapping[str, Any]) -> tuple[str, ...] | None:
    """Where the usage's cached count is: the first place holding one (a details object that
    names `cached_tokens` is the place even when its value is not a count), else None."""
    details = usage.get("prompt_tokens_details")
    if isinstance(details, Mapping) and "cached_tokens" in details:
        return _CACHED_PLACES[0]
    return _CACHED_PLACES[1] if "cached_tokens" in usage else None


def _cached_past_prompt(usage: dict[str, Any]) -> str | None:
    """Why a usage that counts more cached prompt tokens than its prompt holds is no usage, or
    None: a cache serves part of the prompt at most, so such a count is a server's invention,
    and `--expect cache-reuse` read it as reuse (hunt78: 1,000 cached of a 1-token prompt,
    exit 0)."""
    prompt = usage.get("prompt_tokens")
    if not is_count(prompt):
        return None
    for place in _CACHED_PLACES:
        value = _at(usage, place)
        if is_count(value) and value > prompt:
            return (
                f"usage.{'.'.join(place)} is {value}, more than the prompt's "
                f"{prompt} tokens (usage.prompt_tokens)"
            )
    return None


def _usage_problem(value: Any, where: str) -> str | None:
    if not isinstance(value, dict):
        return f"{where} is {shown(value)}, not an object of counts"
    for name, item in value.items():
        if isinstance(item, dict):
            problem = _usage_problem(item, f"{where}.{name}")
            if problem is not None:
                return problem
        elif item is not None and not is_count(item):
            return f"{where}.{name} is {shown(item)}, not a non-negative integer count"
    return None


def is_count(value: Any) -> bool:
    """A non-negative integer up to MAX_COUNT (a bool is no count)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


def server_count(value: Any) -> int | None:
    """A count as a server reported it: a non-negative integer up to MAX_COUNT; None for
    anything else (a bool, a float, a negative or huge number, a string): not reported."""
    return value if is_count(value) else None


def shown(value: Any) -> str:
    """A value as JSON for a message, cut to 40 characters."""
    text = json.dumps(value, ensure_ascii=True, default=str)
    return text if len(text) <= 40 else text[:39] + "…"
