"""Reading the samples log and its perf metrics, and adding up what the servers reported."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k3diff import bounded
from k3diff.counts import FISHER_MAX_TOTAL, checked_count, checked_total
from k3diff.documents.samples import SampleLine, read_samples_log
from k3diff.errors import InputError
from k3diff.sample.log import PerfLog
from k3diff.telemetry.model import (
    Expectation,
    ModeTelemetry,
    NotExercised,
    Speculation,
    TelemetryReport,
)


@dataclass(frozen=True)
class TelemetryOptions:
    """What `k3diff telemetry` was asked."""

    expect: tuple[Expectation, ...] = ()
    alpha: float = 0.05


def _count(value: Any) -> int | None:
    """A token count as the server reported it; None for anything that is not a count."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def cached_tokens(usage: Mapping[str, Any] | None) -> int | None:
    """Cached prompt tokens of one sample's usage (OpenAI's `prompt_tokens_details`, or a
    top-level `cached_tokens` as SGLang and others write it); None when not reported."""
    if not isinstance(usage, Mapping):
        return None
    details = usage.get("prompt_tokens_details")
    if isinstance(details, Mapping) and "cached_tokens" in details:
        return _count(details["cached_tokens"])
    if "cached_tokens" in usage:
        return _count(usage["cached_tokens"])
    return None


def _cached(sample: SampleLine) -> int | None:
    """The sample's cached prompt tokens: its usage's, else the rise of the server's
    prefix-cache hit counter across it (`server_cache_hits`, cold-warm)."""
    found = cached_tokens(sample.usage)
    return sample.server_cache_hits if found is None else found


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    import numpy

    return float(numpy.percentile(values, q))


def _modes(samples: list[SampleLine]) -> tuple[ModeTelemetry, ...]:
    groups: dict[tuple[str, str], list[SampleLine]] = {}
    for sample in samples:
        if sample.error is None:
            groups.setdefault((sample.side, sample.mode), []).append(sample)
    result = []
    for (side, mode), group in sorted(groups.items()):
        latencies = [float(s.latency_s) for s in group]
        cached = [_cached(s) for s in group]
        reported = [c for c in cached if c is not None]
        prompt = [_count(s.usage.get("prompt_tokens")) for s in group if s.usage is not None]
        result.append(
            ModeTelemetry(
                side=side,
                mode=mode,
                samples=len(group),
                latency_p50=_percentile(latencies, 50),
                latency_p90=_percentile(latencies, 90),
                latency_p99=_percentile(latencies, 99),
                prompt_tokens=sum(p for p in prompt if p is not None),
                cached_tokens=sum(reported),
                cache_reported=len(reported),
                cache_hits=sum(1 for c in reported if c > 0),
            )
        )
    return tuple(result)


def _perf_entries(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each drained `/perf_metrics` document beside a samples log, and where it was read
    (`FILE:LINE`), through the capped reader (regular files only, every line under
    `--max-record-bytes`, strict JSON); none when the run drained none."""
    if not path.exists():
        return
    for number, line in bounded.file_lines(path, str(path), "perf-metrics log"):
        if not line.strip():
            continue
        try:
            entry = bounded.loads(line, f"{path}:{number}")
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}:{number}: malformed perf-metrics line: {exc}") from None
        if isinstance(entry, dict):
            yield f"{path}:{number}", entry


def _speculation_counts(metrics: Any, where: str) -> Iterator[tuple[int, int]]:
    """(accepted, drafted) of every request in one drained `/perf_metrics` document:
    TensorRT-LLM's `speculative_decoding.total_accepted_draft_tokens` / `total_draft_tokens`.
    A count that is not a non-negative integer up to 2^53 - 1 refuses the log (`where`)."""
    items = metrics if isinstance(metrics, list) else [metrics]
    for item in items:
        if not isinstance(item, dict):
            continue
        perf = item.get("perf_metrics", item)
        spec = perf.get("speculative_decoding") if isinstance(perf, dict) else None
        if isinstance(spec, dict):
            accepted = checked_count(
                spec.get("total_accepted_draft_tokens"),
                f"{where}: speculative_decoding.total_accepted_draft_tokens",
            )
            drafted = checked_count(
                spec.get("total_draft_tokens"), f"{where}: speculative_decoding.total_draft_tokens"
            )
            if accepted is not None and drafted is not None and accepted <= drafted:
                yield accepted, drafted


def _speculation(logs: tuple[Path, ...], alpha: float) -> tuple[Speculation, ...]:
    from scipy.stats import binomtest

    totals: dict[str, list[int]] = {}
    for log in logs:
        for where, entry in _perf_entries(log.parent / PerfLog.NAME):
            side = str(entry.get("side"))
            for accepted, drafted in _speculation_counts(entry.get("metrics"), where):
                total = totals.setdefault(side, [0, 0, 0])
                total[0] += accepted
                total[1] = checked_total([total[1], drafted], f"{where}: drafted tokens so far")
                total[2] += 1
    result = []
    for side, (accepted, drafted, requests) in sorted(totals.items()):
        low = high = None
        if drafted:
            ci = binomtest(accepted, drafted).proportion_ci(1 - alpha, method="exact")
            low, high = float(ci.low), float(ci.high)
        result.append(Speculation(side, accepted, drafted, requests, low, high))
    return tuple(result)


def _acceptance_p(speculation: tuple[Speculation, ...]) -> float | None:
    by_side = {s.side: s for s in speculation}
    base, patch = by_side.get("base"), by_side.get("patch")
    if base is None or patch is None or not base.drafted or not patch.drafted:
        return None
    if base.drafted + patch.drafted > FISHER_MAX_TOTAL:
        return None  # its cost grows with the total; the report says the test was not run
    from scipy.stats import fisher_exact

    table = [
        [base.accepted, base.drafted - base.accepted],
        [patch.accepted, patch.drafted - patch.accepted],
    ]
    return float(fisher_exact(table).pvalue)


def _not_exercised(
    expect: tuple[Expectation, ...],
    sides: list[str],
    modes: tuple[ModeTelemetry, ...],
    speculation: tuple[Speculation, ...],
) -> tuple[NotExercised, ...]:
    """Every side of the log (also one whose every request failed) is held to `expect`."""
    found: list[NotExercised] = []
    for expectation in expect:
        for side in sides:
            if expectation is Expectation.CACHE_REUSE:
                rows = [m for m in modes if m.side == side]
                reported = sum(m.cache_reported for m in rows)
                hits = sum(m.cache_hits for m in rows)
                if hits == 0:
                    detail = (
                        f"0 cached prompt tokens in {reported} samples that report the count"
                        if reported
                        else "the server reported no cached-token count in any sample"
                    )
                    found.append(NotExercised(expectation, side, detail))
            else:
                spec = next((s for s in speculation if s.side == side), None)
                if spec is None or spec.drafted == 0:
                    detail = (
                        "no speculation counts in perf_metrics.jsonl"
                        if spec is None
                        else f"0 drafted tokens in {spec.requests} requests"
                    )
                    found.append(NotExercised(expectation, side, detail))
    return tuple(found)


def summarize(logs: tuple[Path, ...], options: TelemetryOptions) -> TelemetryReport:
    """The telemetry of the runs whose samples logs are `logs`."""
    samples: list[SampleLine] = []
    for log in logs:
        samples.extend(read_samples_log(log).samples)
    if not samples:
        raise InputError(f"{', '.join(map(str, logs))}: no sample in the log")
    sides = sorted({s.side for s in samples})
    modes = _modes(samples)
    speculation = _speculation(logs, options.alpha)
    return TelemetryReport(
        logs=tuple(str(p) for p in logs),
        alpha=options.alpha,
        modes=modes,
        speculation=speculation,
        acceptance_p=_acceptance_p(speculation),
        expected=options.expect,
        not_exercised=_not_exercised(options.expect, sides, modes, speculation),
    )
