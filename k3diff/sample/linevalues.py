"""Readers of one field of a `samples.jsonl` line (`k3diff.sample.lines.read_line`): each
returns the field's value (an optional one's None when absent or null), or raises InputError
naming the line and the field."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from k3diff.errors import InputError
from k3diff.responses.model import text_digest
from k3diff.sample.names import Mode
from k3diff.sample.proof import PROOFS
from k3diff.sample.usage import checked_usage, is_count, shown

__all__ = [
    "MAX_SPEC_POSITIONS",
    "UNREAD",
    "attempts",
    "checked_digest",
    "cold",
    "in_flight",
    "latency",
    "level",
    "nullable",
    "optional_count",
    "overlap_proof",
    "request_params",
    "required_string",
    "spec_counts",
    "status",
    "strings",
    "time",
    "trace",
    "usage",
]


def optional_count(value: Mapping[str, Any], name: str, where: str) -> int | None:
    item = value.get(name)
    if item is not None and not is_count(item):
        raise InputError(f"{where}: '{name}' is neither null nor a non-negative integer")
    return item


STATUSES = range(100, 1000)
"""What a status line's three digits can say: RFC 9110 defines 100-599, and httpx passes on a
server's 600-999 (h11 takes any three digits from 200), which the log records as answered."""


def status(value: Mapping[str, Any], where: str, failed: bool) -> int | None:
    """The HTTP status of a sample's last attempt (None: no answer arrived); that of an answer
    (not `failed`: no error logged) 200, the only one `sample` takes an answer from (review71e:
    a 503 line with its error removed was read as an answer, and triage passed on it)."""
    item = value.get("status")
    if item is not None and (not is_count(item) or item not in STATUSES):
        raise InputError(
            f"{where}: 'status' is neither null nor an HTTP status (100 to 999): {shown(item)}"
        )
    if not failed and item != 200:
        raise InputError(
            f"{where}: status {shown(item)} with no 'error': sample logs an answer only from a "
            "200, and every other status with its error"
        )
    return item


def time(value: Mapping[str, Any], name: str, where: str) -> float | None:
    item = value.get(name)
    if item is None:
        return None
    if isinstance(item, bool) or not isinstance(item, int | float) or not 0 <= item < math.inf:
        raise InputError(f"{where}: '{name}' is neither null nor a non-negative time: {item!r}")
    return float(item)


def level(value: Mapping[str, Any], where: str) -> int | None:
    item = value.get("level")
    if item is not None and (not is_count(item) or item < 1):
        raise InputError(f"{where}: 'level' is neither null nor a positive integer")
    return item


def in_flight(value: Mapping[str, Any], where: str) -> int | None:
    item = value.get("in_flight")
    if item is not None and (not is_count(item)):
        raise InputError(f"{where}: 'in_flight' is neither null nor a non-negative integer")
    return item


def trace(value: Mapping[str, Any], where: str) -> Mapping[str, Any] | None:
    trace = value.get("trace")
    if trace is not None and not isinstance(trace, dict):
        raise InputError(f"{where}: 'trace' is not an object")
    return trace


def strings(value: Mapping[str, Any], name: str, where: str) -> list[str] | None:
    item = value.get(name)
    if item is not None and not (isinstance(item, list) and all(isinstance(s, str) for s in item)):
        raise InputError(f"{where}: '{name}' is neither null nor a list of strings")
    return item


def required_string(value: Mapping[str, Any], name: str, where: str) -> str:
    item = value.get(name)
    if not isinstance(item, str) or not item:
        raise InputError(f"{where}: '{name}' is missing or not a non-empty string")
    return item


def cold(value: Mapping[str, Any], mode: str, where: str) -> bool | None:
    cold = value.get("cold")
    if cold is not None and (cold is not True or mode != Mode.COLD_WARM.value):
        raise InputError(f"{where}: 'cold' is written only as true, on a cold-warm sample")
    return cold


def nullable(value: Mapping[str, Any], name: str, kind: type, where: str) -> Any:
    item = value.get(name)
    if item is not None and (not isinstance(item, kind) or isinstance(item, bool)):
        raise InputError(f"{where}: '{name}' is neither null nor a {kind.__name__}")
    return item


def overlap_proof(value: Mapping[str, Any], where: str) -> str | None:
    item = value.get("overlap_proof")
    if item is not None and item not in PROOFS:
        raise InputError(
            f"{where}: 'overlap_proof' is {shown(item)}; expected one of {', '.join(PROOFS)}"
        )
    return item


def request_params(value: Mapping[str, Any], where: str) -> Mapping[str, Any] | None:
    item = value.get("request_params")
    if item is not None and not isinstance(item, dict):
        raise InputError(f"{where}: 'request_params' is neither null nor an object")
    return item


UNREAD = "/metrics not read"
"""`server_reset` of a vLLM window whose `/metrics` reading before or after it failed (its
counts are lost, as across a restart)."""
MAX_SPEC_POSITIONS = 64
"""Longest per-position list a `server_spec` or `spec_meta` field holds."""


def spec_counts(value: Mapping[str, Any], name: str, where: str) -> Mapping[str, Any] | None:
    """An object of server counts: each value a count or a list of at most
    MAX_SPEC_POSITIONS counts."""
    item = value.get(name)
    if item is None:
        return None
    if not isinstance(item, dict):
        raise InputError(f"{where}: '{name}' is not an object")
    for field, count in item.items():
        counts = count if isinstance(count, list) else [count]
        if len(counts) > MAX_SPEC_POSITIONS or not all(is_count(c) for c in counts):
            raise InputError(
                f"{where}: '{name}.{field}' is neither a non-negative integer nor a list of "
                f"at most {MAX_SPEC_POSITIONS}"
            )
    return item


def checked_digest(value: Mapping[str, Any], text: str | None, where: str) -> str:
    """The text's digest of a successful sample, checked against the text when present."""
    digest = value.get("text_xxh3")
    if not isinstance(digest, str):
        raise InputError(f"{where}: a successful sample ('error': null) without 'text_xxh3'")
    if text is not None and text_digest(text) != digest:
        raise InputError(f"{where}: 'text_xxh3' is not the xxh3-128 of 'text'")
    return digest


def usage(value: Mapping[str, Any], where: str) -> tuple[Mapping[str, Any] | None, str | None]:
    invalid = nullable(value, "usage_invalid", str, where)
    usage = value.get("usage")
    if invalid is not None and usage is not None:
        raise InputError(f"{where}: 'usage' recorded although 'usage_invalid' says it was not")
    kept, problem = checked_usage(usage)
    if problem is not None:
        raise InputError(f"{where}: {problem}")
    return kept, invalid


def latency(value: Mapping[str, Any], where: str) -> float:
    latency = value.get("latency_s", 0.0)
    if (
        isinstance(latency, bool)
        or not isinstance(latency, int | float)
        or not 0 <= latency < math.inf
    ):
        raise InputError(f"{where}: 'latency_s' is not a non-negative number: {latency!r}")
    return float(latency)


def attempts(value: Mapping[str, Any], where: str) -> int:
    attempts = value.get("attempts", 1)
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
        raise InputError(f"{where}: 'attempts' is not a positive integer: {attempts!r}")
    return attempts
