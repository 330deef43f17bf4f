"""Reading the samples log and its perf metrics, and adding up what the servers reported."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from k3diff.counts import FISHER_MAX_TOTAL, checked_total
from k3diff.errors import InputError
from k3diff.sample.gaugeadvice import NO_GAUGE_PROBLEMS
from k3diff.sample.lines import SampleLine
from k3diff.sample.names import is_cold
from k3diff.sample.reader import SamplesLog, read_samples_log
from k3diff.sample.runs import check_pooled
from k3diff.sample.stopline import LogStop, stop_said
from k3diff.sample.usage import reported_cached
from k3diff.telemetry.accounting import Accounts, account
from k3diff.telemetry.blocks import within_caps
from k3diff.telemetry.coldsent import shared_server
from k3diff.telemetry.coverage import Coverage, not_exercised
from k3diff.telemetry.engines import server_count
from k3diff.telemetry.failed import failed_samples
from k3diff.telemetry.gate import acceptance_gate
from k3diff.telemetry.model import (
    DEFAULT_ALPHA,
    Expectation,
    Gate,
    ModeTelemetry,
    Speculation,
    TelemetryReport,
)
from k3diff.telemetry.positions import position_rates, position_tests
from k3diff.telemetry.unlogged import unlogged_records


@dataclass(frozen=True)
class TelemetryOptions:
    """What `k3diff telemetry` was asked."""

    expect: tuple[Expectation, ...] = ()
    alpha: float = DEFAULT_ALPHA
    draft_lengths: int | None = None
    """K of `--expect draft-lengths=1-K` (with Expectation.DRAFT_LENGTHS in `expect`)."""
    fail_on: tuple[Gate, ...] = ()
    """`--fail-on` gates."""
    pool_runs: bool = False
    """`--pool-runs`: logs of different runs may be pooled (a sample of a run given twice
    never is)."""
    allow_same_server: bool = False
    """`--allow-same-server`: the gate judges a run of one server (an A/A calibration run)
    where it would hold it."""


def cached_tokens(usage: Mapping[str, Any] | None) -> int | None:
    """Cached prompt tokens of one sample's usage (OpenAI's `prompt_tokens_details`, or a
    top-level `cached_tokens` as SGLang and others write it); None when not reported, or when
    the usage holds no `prompt_tokens` count to check them against (`cache_unchecked`)."""
    if not isinstance(usage, Mapping) or server_count(usage.get("prompt_tokens")) is None:
        return None
    return reported_cached(usage)


def cache_unchecked(usage: Mapping[str, Any] | None) -> bool:
    """Whether a usage counts cached prompt tokens but no `prompt_tokens`: sampling checks a
    cached count against the prompt's (hunt78), which such a usage skips, so its count is no
    evidence of reuse (review78c: 1,000 cached tokens and no prompt count passed
    `--expect cache-reuse`, exit 0)."""
    return (
        isinstance(usage, Mapping)
        and server_count(usage.get("prompt_tokens")) is None
        and reported_cached(usage) is not None
    )


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
    failed_cold: Counter[tuple[str, str, str]] = Counter()  # may have hit (left67c)
    for sample in samples:
        if sample.error is None:
            groups.setdefault((sample.side, sample.mode), []).append(sample)
        elif is_cold(sample.mode, sample.repeat, sample.cold):
            failed_cold[(sample.side, sample.mode, sample.key)] += 1
    result = []
    for (side, mode), group in sorted(groups.items()):
        latencies = [float(s.latency_s) for s in group]
        cached = [_cached(s) for s in group]
        unchecked = [
            cache_unchecked(s.usage) and c is None for s, c in zip(group, cached, strict=True)
        ]
        reported = [c for c in cached if c is not None]
        prompt = [server_count(s.usage.get("prompt_tokens")) for s in group if s.usage is not None]
        # A cold-warm record's cold request: its hit is no reuse (telem67).
        # One whose usage was not valid (left67), or that failed (left67c), may have hit: it
        # holds the side.
        cold = [
            (s, c) for s, c in zip(group, cached, strict=True) if is_cold(s.mode, s.repeat, s.cold)
        ]
        # A failed one counts where its record's warm requests were answered, one each at most
        # (its own hit cannot be told from theirs): a part of the row's samples.
        failed = 0
        if failed_cold:
            warm = Counter(s.key for s in group if not is_cold(s.mode, s.repeat, s.cold))
            failed = sum(
                min(n, warm[k])
                for (sd, md, k), n in failed_cold.items()
                if (sd, md) == (side, mode)
            )
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
                cold_hits=sum(1 for _, c in cold if c),
                cold_unread=failed
                + sum(
                    1
                    for s, c in cold
                    if c is None and (s.usage_invalid is not None or cache_unchecked(s.usage))
                ),
                cache_unchecked=sum(unchecked),
            )
        )
    return tuple(result)


def _speculation(
    accounts: Accounts, sides: list[str], alpha: float, where: str
) -> tuple[Speculation, ...]:
    from scipy.stats import binomtest

    result = []
    for side in sides:
        found = accounts.source(side)
        if found is None:
            continue
        source, counts = found
        # Each count is one (server_count); their sum over requests is held to the same bound
        # before scipy sees it.
        checked_total([counts.drafted], f"{where}: {source} drafted tokens of the {side} side")
        low = high = None
        if counts.drafted:
            ci = binomtest(counts.accepted, counts.drafted).proportion_ci(1 - alpha, method="exact")
            low, high = float(ci.low), float(ci.high)
        result.append(
            Speculation(side, counts.accepted, counts.drafted, counts.requests, low, high, source)
        )
    return tuple(result)


def _with_spec(modes: tuple[ModeTelemetry, ...], accounts: Accounts) -> tuple[ModeTelemetry, ...]:
    """Each side and mode's speculation counts from the side's source."""
    result = []
    for mode in modes:
        found = accounts.source(mode.side)
        totals = found[1].by_mode.get(mode.mode) if found is not None else None
        if totals is not None:
            mode = replace(mode, spec_accepted=totals[0], spec_drafted=totals[1])
        result.append(mode)
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


def summarize(
    logs: tuple[Path, ...], options: TelemetryOptions, read: Sequence[SamplesLog] = ()
) -> TelemetryReport:
    """The telemetry of the runs whose samples logs are `logs`; `read`, where given, holds
    them as already read (`report` runs `telemetry` again on the bytes it hashed, not reading
    them a second time: telemetry63)."""
    samples: list[SampleLine] = []
    probed: dict[str, dict[str, bool]] = {}
    read_logs = tuple(read) if read else tuple(read_samples_log(log) for log in logs)
    # A log given twice (or a copy of it) would count each window twice: twice the units
    # turned a gate that could not decide into a pass (review65).
    check_pooled(read_logs, options.pool_runs)
    for read_log in read_logs:
        samples.extend(read_log.samples)
        for side, (problem, unread) in _metrics_problems(read_log.header.fields).items():
            probed.setdefault(side, {})[problem] = unread
    problems = {side: _said(found) for side, found in probed.items()}
    stops = tuple(
        LogStop(str(path), log.stop)
        for path, log in zip(logs, read_logs, strict=True)
        if log.stop is not None
    )
    if not samples:
        # newuser65: a run stopped before its first sample said only this, not why; of logs
        # pooled, each stop with its log (report66).
        why = "".join(
            f"; the run {s.said()}"
            if len(logs) > 1
            else f"; the run stopped part-way: {stop_said(s.stop)}"
            for s in stops
        )
        raise InputError(f"{', '.join(map(str, logs))}: no sample in the log{why}")
    # Every side a run sampled, also one with no line in its log (a run stopped before its
    # first patch sample): review65, `--expect speculation` said "every side exercised" of a
    # run whose patch was never sampled.
    sides = sorted({s.side for s in samples}.union(*(log.header.sides or () for log in read_logs)))
    accounts = account(logs, samples, read_logs)
    modes = _with_spec(_modes(samples), accounts)
    speculation = _speculation(accounts, sides, options.alpha, ", ".join(map(str, logs)))
    rates = position_rates(accounts, sides, options.alpha)
    kv_reuse = accounts.kv_reuse()
    # The sides of the samples, as `speculation` lists them (what report adds the units up to);
    # past the gate's caps, in blocks (stop 62: `k3diff.telemetry.blocks`).
    units = within_caps({side: found for side, found in accounts.units().items() if side in sides})
    one_server = tuple(
        (str(path), found)
        for path, log in zip(logs, read_logs, strict=True)
        if (found := shared_server(log)) is not None
    )
    gate = None
    if Gate.ACCEPTANCE_DROP in options.fail_on:
        held = (one_server, options.allow_same_server)
        gate = acceptance_gate(units, options.alpha, accounts.resets, held)
    return TelemetryReport(
        logs=tuple(str(p) for p in logs),
        alpha=options.alpha,
        modes=modes,
        speculation=speculation,
        acceptance_p=_acceptance_p(speculation),
        expected=options.expect,
        not_exercised=not_exercised(
            Coverage(
                options.expect,
                options.draft_lengths,
                sides,
                modes,
                speculation,
                kv_reuse,
                {side: text for side, (text, unread) in problems.items() if unread},
            ),
            accounts,
        ),
        kv_reuse=kv_reuse,
        positions=rates,
        position_tests=position_tests(rates),
        draft_lengths=options.draft_lengths,
        metrics_problems=tuple((side, *found) for side, found in sorted(problems.items())),
        fail_on=options.fail_on,
        acceptance_gate=gate,
        acceptance_units=units,
        counter_resets=tuple(accounts.resets),
        preemptions=accounts.preemptions(),
        v0_sides=tuple(sorted(accounts.v0)),
        stops=stops,
        unsampled=tuple(side for side in sides if side not in {m.side for m in modes}),
        failed=failed_samples(samples),
        unlogged=unlogged_records(read_logs),
        unlisted=tuple(log.path for log in read_logs if not log.header.listed),
        one_server=one_server,
        allow_same_server=options.allow_same_server,
    )


SHOWN_PROBLEMS = 3
"""`/metrics` problems said per side where pooled logs recorded several (the rest counted)."""


def _said(problems: Mapping[str, bool]) -> tuple[str, bool]:
    """A side's `/metrics` problems over the logs pooled (`URL: problem` -> could not be read)
    as one: the unreadable ones first, at most SHOWN_PROBLEMS (the rest counted), and whether
    any could not be read (telem69: before, each log's replaced the one before, so a failed
    probe of the first log read as a server that exposes no counters where the next log's
    answered 404)."""
    ordered = sorted(problems, key=lambda problem: not problems[problem])
    more = len(ordered) - SHOWN_PROBLEMS
    text = "; ".join(ordered[:SHOWN_PROBLEMS]) + (
        f"; and {more} more in the logs' headers" if more > 0 else ""
    )
    return text, any(problems.values())


def _metrics_problems(header: Mapping[str, Any]) -> dict[str, tuple[str, bool]]:
    """Per side, `URL: problem` of a `/metrics` the run header says gave no reading, and
    whether it could not be read (an error; not HTTP 404 or a body without the known series,
    a server that exposes none: telem68)."""
    found: dict[str, tuple[str, bool]] = {}
    metrics = header.get("metrics")
    for side, probe in metrics.items() if isinstance(metrics, Mapping) else ():
        if isinstance(probe, Mapping) and isinstance(probe.get("problem"), str):
            url = probe.get("url")
            where = f"{url}: " if isinstance(url, str) else ""
            unread = probe["problem"] not in NO_GAUGE_PROBLEMS
            found[str(side)] = (f"{where}{probe['problem']}", unread)
    return found
