"""Was each `--expect` axis exercised on every side? A side that shows none of it is coverage
debt (`not-exercised`), never a pass; a count the server never sent is "not reported", which
is said so and is no more a pass than zero."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from k3diff.sample.names import Mode
from k3diff.telemetry.accounting import Accounts
from k3diff.telemetry.model import (
    Expectation,
    KvReuse,
    ModeTelemetry,
    NotExercised,
    Speculation,
)
from k3diff.telemetry.positions import missing_lengths
from k3diff.telemetry.windows import lost_units


@dataclass(frozen=True)
class Coverage:
    """What the expectations are checked against."""

    expect: tuple[Expectation, ...]
    draft_lengths: int | None
    """K of `draft-lengths=1-K`."""
    sides: list[str]
    """Every side of the logs (also one whose every request failed, or that its run header
    names without a line in the log)."""
    modes: tuple[ModeTelemetry, ...]
    speculation: tuple[Speculation, ...]
    kv_reuse: tuple[KvReuse, ...]
    unread_metrics: Mapping[str, str] = field(default_factory=dict)
    """side -> `URL: problem` of a `/metrics` that could not be read when `sample` probed it
    (telem68: said beside its missing speculation counts)."""


CONTROL = Mode.CONTROL.value
CONTROL_NOTE = "the first prompt at temperature 1 before the modes, not the requests under test"
"""Why the control's samples (`--control`) are no evidence of what `--expect` claims."""


def _claimed(coverage: Coverage, side: str) -> list[ModeTelemetry]:
    """The side's rows `--expect` counts: its modes, not the control (telemetry66: the
    control's identical prompt hit the prefix cache, and passed `cache-reuse` for a side whose
    requests under test never did)."""
    return [m for m in coverage.modes if m.side == side and m.mode != CONTROL]


def _control(coverage: Coverage, side: str) -> ModeTelemetry | None:
    return next((m for m in coverage.modes if m.side == side and m.mode == CONTROL), None)


COLD_NOTE = (
    "the server ignored cache_salt or kept the prompt (use --flush-url), so its hits prove "
    "nothing of the warm requests"
)
"""Why a cold-warm cold request that hit the cache fails `cache-reuse` (as triage's
`not-exercised: the cold request was not cold`)."""


def cold_hits(rows: list[ModeTelemetry], kv: KvReuse | None) -> int:
    """Cold-warm cold requests that hit the cache: cached prompt tokens, or a reused KV block."""
    return sum(m.cold_hits for m in rows) + (kv.cold_hits if kv is not None else 0)


def _cold_requests(count: int) -> str:
    return f"{count} cold-warm cold request{'s' if count != 1 else ''}"


def cold_unread(rows: list[ModeTelemetry], kv: KvReuse | None) -> str | None:
    """Cold-warm cold requests whose counts were lost, per source (a failed request or
    `usage_invalid`, KV counts that are no counts, a `/perf_metrics` drain that cannot be
    read): each may have hit the cache, so each holds `cache-reuse` (telem67, left67, telem68:
    before, one whose usage was not valid, or whose drain was removed, passed the side on the
    warm requests' hits); None when there is none."""
    usage = sum(m.cold_unread for m in rows)
    parts = [f"{_cold_requests(usage)} failed or reported usage that is not valid"] if usage else []
    if kv is not None and kv.invalid_cold:
        parts.append(
            f"{_cold_requests(kv.invalid_cold)} reported kv_cache_metrics that are no counts "
            f"({kv_lost(kv)})"
        )
    if kv is not None and kv.unread_cold:  # telem68: its drain missing, or after a resume
        parts.append(
            f"{_cold_requests(kv.unread_cold)} whose /perf_metrics drain cannot be read "
            f"(first: {kv.unread})"
        )
    return "; ".join(parts) or None


def kv_lost(kv: KvReuse) -> str:
    """`2 requests' kv_cache_metrics not valid, lost (first: ...)`."""
    plural = "s'" if kv.invalid != 1 else "'s"
    return f"{kv.invalid} request{plural} kv_cache_metrics not valid, lost (first: {kv.lost})"


def _cache_debt(coverage: Coverage, side: str) -> str | None:
    """Why `side` shows no cache reuse in its modes: neither a cached prompt token nor a reused
    KV block (the control's requests not counted, nor cold-warm's cold ones), or a cold
    request that hit the cache (telem67: before, its hit passed `cache-reuse`)."""
    rows = _claimed(coverage, side)
    kv = next((k for k in coverage.kv_reuse if k.side == side), None)
    cold = cold_hits(rows, kv)
    reported = sum(m.cache_reported - m.cold_hits for m in rows)
    hits = sum(m.cache_hits - m.cold_hits for m in rows)
    kv_hits = kv.hits - kv.cold_hits if kv is not None else 0
    parts = []
    if not hits and not kv_hits:
        parts.append(
            f"0 cached prompt tokens in {reported} samples that report the count"
            if reported
            else "the server reported no cached-token count in any sample"
        )
        if unchecked := sum(m.cache_unchecked for m in rows):
            parts.append(
                f"{unchecked} sample{'s' if unchecked != 1 else ''} reported cached prompt "
                "tokens without usage.prompt_tokens to check them against, not counted"
            )
        if kv is not None:
            parts.append(
                f"no request reused a KV block ({kv.requests - kv.cold_hits} report "
                "kv_cache_metrics" + (f"; {kv_lost(kv)}" if kv.invalid else "") + ")"
            )
    if unread := cold_unread(rows, kv):
        parts.append(f"whether the cold request was cold cannot be read: {unread}")
    if cold:
        requests = "request" if cold == 1 else "requests"
        parts.append(
            f"the cold request was not cold: {cold} cold-warm cold {requests} hit "
            f"the cache, not counted: {COLD_NOTE}"
        )
    control = _control(coverage, side)
    if parts and control is not None and control.cache_hits:
        parts.append(
            f"the control's {control.cache_hits} samples with cached prompt tokens are not "
            f"counted ({CONTROL_NOTE})"
        )
    return "; ".join(parts) if parts else None


V0_NOTE = (
    "vLLM V0 /metrics: its speculative-decoding counters add the server's running totals at "
    "every log interval (a sum of sums), so no window's tokens can be read from them; V0 has "
    "no per-position counter"
)
"""Why a vLLM V0 side's speculation is not read as counts."""


def _speculation_debt(coverage: Coverage, side: str, accounts: Accounts) -> str | None:
    spec = next((s for s in coverage.speculation if s.side == side), None)
    lost = lost_units([r for r in accounts.resets if r.side == side])
    if spec is None and side in accounts.v0:
        return f"no speculation counts read ({V0_NOTE})"
    if spec is None:
        unread = coverage.unread_metrics.get(side)
        return (
            "no speculation counts reported (TensorRT-LLM /perf_metrics, "
            "vLLM /metrics, SGLang meta_info)"
            + (
                f"; its /metrics could not be read when sample probed it: {unread}"
                if unread
                else ""
            )
            + (f"; {lost} lost (counter-reset)" if lost else "")
        )
    if spec.drafted == 0:
        return f"0 drafted tokens in {spec.requests} requests ({spec.source})"
    control = _control(coverage, side)
    if control is not None and control.spec_drafted == spec.drafted:
        return (
            f"0 drafted tokens in the modes' requests ({spec.source}); the control's "
            f"{spec.drafted:,} are not counted ({CONTROL_NOTE})"
        )
    return None


def not_exercised(coverage: Coverage, accounts: Accounts) -> tuple[NotExercised, ...]:
    """Every side is held to every expectation."""
    found: list[NotExercised] = []
    for expectation in coverage.expect:
        for side in coverage.sides:
            if expectation is Expectation.CACHE_REUSE:
                detail = _cache_debt(coverage, side)
            elif expectation is Expectation.SPECULATION:
                detail = _speculation_debt(coverage, side, accounts)
            else:
                detail = missing_lengths(accounts, side, coverage.draft_lengths or 1)
            if detail is not None:
                found.append(NotExercised(expectation, side, detail))
    return tuple(found)
