"""Fields that identify a run rather than its output (ids, timestamps, backend fingerprints).

They are left out of the structural comparison unless the user asks for them
(`--include-volatile`), so that a field diff means something about the outputs.
"""

from __future__ import annotations

import functools
from typing import Any

VOLATILE_NAMES = frozenset(
    {
        "id",
        "created",
        "timestamp",
        "time",
        "system_fingerprint",
        "fingerprint",
    }
)
VOLATILE_SUFFIXES = ("_id", "_at", "_time", "_timestamp")
"""Latency and timing fields are run state instead (`k3diff.responses.runstate`)."""


@functools.lru_cache(maxsize=4096)
def is_volatile(name: str) -> bool:
    """True for a field name that identifies a run rather than describing its output."""
    lowered = name.lower()
    return lowered in VOLATILE_NAMES or lowered.endswith(VOLATILE_SUFFIXES)


def drop_volatile(value: Any) -> Any:
    """A copy of `value` without volatile keys, at any depth."""
    if isinstance(value, dict):
        return {
            k: drop_volatile(v) if isinstance(v, dict | list) else v
            for k, v in value.items()
            if not is_volatile(str(k))
        }
    if isinstance(value, list):
        return [drop_volatile(v) if isinstance(v, dict | list) else v for v in value]
    return value
