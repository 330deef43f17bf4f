"""Two sides whose `/metrics` show processes started together are never `two-servers`
(oneserver75): the workers of one server, each counting its own requests, the base's readings
answered by one and the patch's by another, look like two servers to the counters alone."""

from __future__ import annotations

import asyncio
import math

from prometheus_client.samples import Sample

from k3diff.sample.identity import probe_identity
from k3diff.sample.identityprocess import (
    START_SERIES,
    STARTED_TOGETHER_S,
    process_starts,
    started_together,
)

SERIES = 'http_requests_total{handler="/v1/models",method="GET",status="2xx"}'
URLS = {"base": "http://base/metrics", "patch": "http://patch/metrics"}


def test_a_bodys_start_times_are_its_finite_ones_labelled_or_prefixed_too() -> None:
    samples = [
        Sample(START_SERIES, {}, 100.25),
        Sample(START_SERIES, {"pid": "7"}, 5.0),  # review75b: a start time all the same
        Sample(f"llm_{START_SERIES}", {}, 6.0),
        Sample(START_SERIES, {}, math.nan),
        Sample(START_SERIES, {}, math.inf),
        Sample("process_cpu_seconds_total", {}, 3.0),
    ]
    assert process_starts(samples) == {100.25, 5.0, 6.0}


def test_start_times_within_the_window_are_started_together() -> None:
    assert started_together({100.0}, {100.02}) == (100.0, 100.02)
    assert started_together({100.0, 300.0}, {50.0, 300.5, 900.0}) == (300.0, 300.5)
    assert started_together({100.0}, {100.0 + STARTED_TOGETHER_S}) == (100.0, 101.0)
    assert started_together({100.0}, {100.01 + STARTED_TOGETHER_S}) is None
    assert started_together({100.0}, set()) is None and started_together(set(), {1.0}) is None
    many = {float(start) for start in range(0, 20_000, 2)}
    assert started_together(many, {10_001.0 + 0.5}) == (10_002.0, 10_001.5)


class _Workers:
    """Each side's `/metrics` answered by a process of its own, started at `starts[side]`
    (None: no process collector); the patch's counter counts the GETs, the base's stays put."""

    def __init__(self, base: float | None, patch: float | None) -> None:
        self.starts = {"base": base, "patch": patch}
        self.counted = 0

    async def fetch(self, url: str) -> tuple[int, bytes | None]:
        side = "base" if url == URLS["base"] else "patch"
        started = self.starts[side]
        shown = "" if started is None else f"{START_SERIES} {started}\n"
        return 200, f"{SERIES} {self.counted if side == 'patch' else 0}\n{shown}".encode()

    async def send_patch(self) -> None:
        self.counted += 1


def _probe(workers: _Workers) -> tuple[str, str]:
    found = asyncio.run(probe_identity(workers.fetch, URLS, workers.send_patch))
    return found.result, found.why


def test_processes_started_together_are_unchecked_never_two_servers() -> None:
    """Failed before oneserver75 (`two-servers`): the base's counter stayed put, but its
    process started 0.02 s from the patch's, as two workers of one server do."""
    result, why = _probe(_Workers(1000.0, 1000.02))
    assert result == "unchecked"
    assert "showed a process started at 1000.00" in why and "started at 1000.02" in why
    assert "0.02 s apart" in why and "two servers started within 1 s" in why
    assert _probe(_Workers(1000.0, 1000.0))[0] == "unchecked"  # one tick: one value


def test_processes_started_apart_or_not_shown_are_still_two_servers() -> None:
    assert _probe(_Workers(1000.0, 1000.01 + STARTED_TOGETHER_S))[0] == "two-servers"
    assert _probe(_Workers(None, None))[0] == "two-servers"  # multiprocess mode: no process
    assert _probe(_Workers(1000.0, None))[0] == "two-servers"


class _Shown(_Workers):
    """Each side's process start time as a server's own exposition writes it (`line`: the
    start time line, `{started}` its value)."""

    def __init__(self, base: float, patch: float, line: str) -> None:
        super().__init__(base, patch)
        self.line = line

    async def fetch(self, url: str) -> tuple[int, bytes | None]:
        side = "base" if url == URLS["base"] else "patch"
        shown = self.line.format(started=self.starts[side])
        return 200, f"{SERIES} {self.counted if side == 'patch' else 0}\n{shown}\n".encode()


def test_whole_second_start_times_one_second_apart_are_started_together() -> None:
    """Failed on the merge of oneserver75, bbb971b0 (`two-servers`, triage exit 0): Node's
    prom-client rounds the start time to whole seconds, so two workers started 0.02 s apart across a half second (1000.49, 1000.51) show 1000 and
    1001, exactly `STARTED_TOGETHER_S` apart, which read as started apart."""
    result, why = _probe(_Shown(1000, 1001, START_SERIES + " {started}"))
    assert result == "unchecked", why
    assert "(epoch seconds, 1.00 s apart)" in why
    assert _probe(_Shown(1000, 1002, START_SERIES + " {started}"))[0] == "two-servers"


def test_labelled_or_prefixed_start_times_are_read_too() -> None:
    """Failed on the merge of oneserver75, bbb971b0 (`two-servers`): prom-client's default
    labels (`{app="llm"}` on every series) and a prefix or namespace (prom-client's `prefix`,
    client_golang's `Namespace`) hid the workers' start times, and the counters alone read one
    server of two workers split by a front end as two servers. A start time read only ever
    turns `two-servers` into `unchecked`, so every one a body shows counts."""
    labelled = START_SERIES + '{{app="llm",worker="a"}} {started}'
    assert _probe(_Shown(1000.0, 1000.02, labelled))[0] == "unchecked"
    prefixed = "llm_" + START_SERIES + " {started}"
    assert _probe(_Shown(1000.0, 1000.02, prefixed))[0] == "unchecked"
    assert _probe(_Shown(1000.0, 1005.0, labelled))[0] == "two-servers"
