"""A `k3diff.telemetry/1` document's `kv_reuse` (TensorRT-LLM `kv_cache_metrics`, per side):
written and read back, with the cold-warm cold requests that hit the cache and the requests
whose counts were no counts (telem67) or whose drain cannot be read (telem68), each written
only where there is one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from k3diff.fields import COUNT, POSITIVE, Fields, Within
from k3diff.sample.names import SIDES
from k3diff.telemetry.model import KvReuse


def kv_json(kv: KvReuse) -> dict[str, Any]:
    return (
        {
            "side": kv.side,
            "requests": kv.requests,
            "reused_blocks": kv.reused_blocks,
            "missed_blocks": kv.missed_blocks,
            "hits": kv.hits,
        }
        | ({"cold_hits": kv.cold_hits} if kv.cold_hits else {})
        | _kv_lost_json(kv)
        | ({"unread_cold": kv.unread_cold, "unread": kv.unread} if kv.unread_cold else {})
    )


def _kv_lost_json(kv: KvReuse) -> dict[str, Any]:
    """The requests whose `kv_cache_metrics` were no counts (telem67), only when there is one."""
    if not kv.invalid:
        return {}
    return {"invalid": kv.invalid, "invalid_cold": kv.invalid_cold, "lost": kv.lost}


@dataclass(frozen=True)
class TelemetryKv:
    """One side's KV-cache reuse (TensorRT-LLM `kv_cache_metrics`)."""

    side: str
    """base or patch."""
    requests: int
    """Requests that report it."""
    reused_blocks: int
    """Blocks reused, summed."""
    hits: int
    """Requests that reused a block."""
    cold_hits: int = 0
    """cold-warm: of `hits`, the cold requests' (no evidence of reuse; telem67)."""
    invalid: int = 0
    """Requests whose `kv_cache_metrics` were no counts: lost (telem67)."""
    invalid_cold: int = 0
    """Of `invalid`, cold-warm cold requests (whether they missed cannot be read)."""
    unread_cold: int = 0
    """cold-warm cold requests whose `/perf_metrics` drain cannot be read (telem68)."""


def part_of(fields: Fields, key: str, whole: int, of: str, within: Within = COUNT) -> int:
    """An optional count (0 when absent) that is part of the count `of` (`whole`), within
    `within` where written (POSITIVE: a count written only where there is one)."""
    part = fields.optional_integer(key, within) or 0
    if not 0 <= part <= whole:
        raise fields.fail(key, f"must be between 0 and {of} ({whole})")
    return part


def read_kv(fields: Fields) -> TelemetryKv:
    hits, invalid = fields.integer("hits"), fields.optional_integer("invalid", POSITIVE) or 0
    fields.hold_counts("missed_blocks")  # readers72: -1 was read
    return TelemetryKv(
        side=fields.string("side", SIDES),
        requests=fields.integer("requests"),
        reused_blocks=fields.integer("reused_blocks"),
        hits=hits,
        cold_hits=part_of(fields, "cold_hits", hits, "hits"),
        invalid=invalid,
        invalid_cold=part_of(fields, "invalid_cold", invalid, "invalid"),
        unread_cold=fields.optional_integer("unread_cold", POSITIVE) or 0,
    )
