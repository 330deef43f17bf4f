"""Readers of one optional field of a `samples.jsonl` line (`k3diff.sample.lines.read_line`):
each returns the field's value, None when absent or null, or raises InputError naming the line
and the field."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from k3diff.errors import InputError
from k3diff.sample.usage import is_count, shown

__all__ = ["in_flight", "level", "optional_count", "status", "strings", "time", "trace"]


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
