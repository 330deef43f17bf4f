"""What the samples logs' headers say of each side's running-requests gauge: the series its
`/metrics` exposes, or why none (`gauges`), the sides asked that have none (`gaugeless`), and
those whose `--metrics-url` given answered 404 or without the gauge (`given_404`,
`given_no_gauge`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from k3diff.sample.gaugeadvice import answered_without_gauge, exposes_no_gauge, given_url_404
from k3diff.sample.reader import SamplesLog


def gauges(logs: Iterable[SamplesLog]) -> tuple[tuple[str, str | None, str | None], ...]:
    """Per side, the running-requests gauge the logs' headers say its `/metrics` exposes (the
    first log naming one wins), else why none."""
    found: dict[str, tuple[str | None, str | None]] = {}
    for log in logs:
        metrics = log.header.fields.get("metrics")
        for side in log.header.sides or ():
            entry = metrics.get(side) if isinstance(metrics, dict) else None
            running = entry.get("running") if isinstance(entry, dict) else None
            problem = entry.get("problem") if isinstance(entry, dict) else None
            if isinstance(running, str) or side not in found:
                found[side] = (
                    running if isinstance(running, str) else None,
                    problem if isinstance(problem, str) else None,
                )
    return tuple((side, *found[side]) for side in ("base", "patch") if side in found)


def _every_log(logs: Sequence[SamplesLog], said: Callable[[object], bool]) -> tuple[str, ...]:
    """The sides every log of which `said` of (its header's `metrics` entry for the side; a log
    that did not ask, `--metrics-url off`, says nothing)."""
    found: dict[str, list[bool]] = {}
    for log in logs:
        metrics = log.header.fields.get("metrics")
        for side in log.header.sides or ():
            entry = metrics.get(side) if isinstance(metrics, dict) else None
            found.setdefault(side, []).append(said(entry))
    return tuple(side for side in ("base", "patch") if found.get(side) and all(found[side]))


def gaugeless(logs: Sequence[SamplesLog]) -> tuple[str, ...]:
    """The sides every log of which says their server was asked for its running-requests gauge
    at its own `/metrics` and has none."""
    return _every_log(logs, exposes_no_gauge)


def given_no_gauge(logs: Sequence[SamplesLog]) -> tuple[str, ...]:
    """The sides every log of which says the URL asked answered without a running-requests
    gauge, one of them a `--metrics-url` given: a URL to check (left69: it read as a server
    without a gauge, which no `--metrics-url` can help)."""
    asked = gaugeless(logs)
    return tuple(s for s in _every_log(logs, answered_without_gauge) if s not in asked)


def given_404(logs: Iterable[SamplesLog]) -> tuple[str, ...]:
    """The sides a log's header says the `--metrics-url` given for answered HTTP 404: a URL to
    check, not a server without a gauge (left68b; triage69: the reason told the user to add the
    --metrics-url they had given)."""
    said = {
        side
        for log in logs
        for side in log.header.sides or ()
        if isinstance(metrics := log.header.fields.get("metrics"), dict)
        and given_url_404(metrics.get(side))
    }
    return tuple(side for side in ("base", "patch") if side in said)
