"""How the one-server check decides from the counters it read (`k3diff.sample.identity`): one
server only where a series the patch counted its GETs on read on the base exactly as on the
patch, before and after (one counter); two where the base's read one value throughout."""

from __future__ import annotations

import asyncio

from k3diff.sample.identity import (
    PROBE_REQUESTS,
    TOGETHER,
    Reading,
    Seen,
    counters,
    decided,
    probe_identity,
    together,
    went_down,
)

SERIES = 'http_requests_total{handler="/v1/models",method="GET",status="2xx"}'
URLS = {"base": "http://base/metrics", "patch": "http://patch/metrics"}


def _at(value: float | None) -> Reading:
    return {} if value is None else {SERIES: (value, value)}


def _seen(base: tuple[float | None, float | None], patch: tuple[float | None, float]) -> Seen:
    return Seen(_at(base[0]), _at(patch[0]), _at(patch[1]), _at(base[1]))


def test_the_base_reading_the_patchs_counter_is_one_server() -> None:
    found = decided(_seen((10, 13), (10, 13)))
    assert (found.result, found.series) == ("one-server", SERIES)
    assert decided(_seen((None, 3), (None, 3))).result == "one-server"  # first counted now


def test_the_base_not_moving_is_two_servers() -> None:
    assert decided(_seen((5, 5), (0, 3))).result == "two-servers"
    assert decided(_seen((None, None), (0, 3))).result == "two-servers"  # not exposed there yet


def test_a_base_moved_as_far_by_other_clients_is_unchecked_never_one() -> None:
    """samples74: a busy base whose counter moved by exactly the probe's GETs from other
    clients read one server; its counter reads other values than the patch's."""
    busy = decided(_seen((1000, 1000 + PROBE_REQUESTS), (0, PROBE_REQUESTS)))
    assert busy.result == "unchecked"
    assert (
        f"moved by {PROBE_REQUESTS}" in busy.why
        and "but read 1003 where the patch's read 3" in (busy.why)
    )


def test_other_traffic_or_no_counter_is_unchecked_never_two() -> None:
    """A base that moved by another count may be one server with other clients: unchecked."""
    busy = decided(_seen((0, PROBE_REQUESTS + 2), (0, PROBE_REQUESTS)))
    assert busy.result == "unchecked" and "moved by 5" in busy.why
    assert decided(_seen((0, 3), (0, 0))).result == "unchecked"


def test_readings_at_once_that_disagree_decide_nothing() -> None:
    """A base whose bodies read at once disagree (several processes, or other traffic) is
    neither one server nor two: behind a front end keeping a connection to one worker per
    route, readings at once reach the others."""
    seen = Seen({SERIES: (0.0, 0.0)}, _at(0), _at(3), {SERIES: (0.0, 3.0)})
    found = decided(seen)
    assert found.result == "unchecked"
    assert f"read 0 to 3 in {TOGETHER} readings at once" in found.why
    patch_split = Seen(_at(0), _at(0), {SERIES: (0.0, 3.0)}, _at(0))
    assert decided(patch_split).result == "unchecked"  # the patch counted nothing exactly


def test_a_hostile_label_stays_escaped() -> None:
    body = b'x_total{a="b\\nc"} 1\n' + f"{SERIES} 3\n".encode()
    assert list(counters(body)) == ['x_total{a="b\\nc"}', SERIES]


def test_bodies_read_at_once_span_their_values() -> None:
    assert together([{SERIES: 2.0}, {SERIES: 2.0}]) == {SERIES: (2.0, 2.0)}
    assert together([{SERIES: 2.0}, {}]) == {SERIES: (0.0, 2.0)}  # not yet counted there


def test_a_counter_lower_or_gone_in_a_later_reading_is_another_process() -> None:
    """A process's counters never go down nor vanish: two readings that show it are of two
    processes (a server of several workers) or of a restart."""
    before = {SERIES: (4.0, 4.0), "x_total{}": (1.0, 1.0)}
    later = {SERIES: (5.0, 6.0), "x_total{}": (1.0, 1.0), "new_total{}": (0.0, 0.0)}
    assert went_down(before, later) is None
    assert went_down(before, {SERIES: (3.0, 5.0), "x_total{}": (1.0, 1.0)}) == SERIES
    assert went_down(before, {SERIES: (4.0, 4.0)}) == "x_total{}"
    assert went_down({SERIES: (4.0, 6.0)}, {SERIES: (5.0, 7.0)}) == SERIES  # 5 after a 6


class _Servers:
    """Two servers' `/metrics`: the base's counter moved by `others` other clients' GETs for
    each GET sent to the patch."""

    def __init__(self, base: float, others: int, shared: bool = False) -> None:
        self.counts = {"base": base, "patch": base if shared else 0.0}
        self.others, self.shared = others, shared

    async def fetch(self, url: str) -> tuple[int, bytes | None]:
        side = "base" if url == URLS["base"] or self.shared else "patch"
        return 200, f"{SERIES} {self.counts[side]}\n".encode()

    async def send_patch(self) -> None:
        self.counts["patch"] += 1
        self.counts["base"] += 1 if self.shared else self.others


def _probe(servers: _Servers) -> str:
    return asyncio.run(probe_identity(servers.fetch, URLS, servers.send_patch)).result


def test_a_busy_base_counting_as_many_is_not_one_server() -> None:
    """Failed before samples74 (`one-server`, triage held two servers as one): two servers, the
    base's other clients sending one GET of /v1/models for each the check sent the patch."""
    assert _probe(_Servers(1000.0, others=1)) == "unchecked"
    assert _probe(_Servers(1000.0, others=0)) == "two-servers"
    assert _probe(_Servers(7.0, others=0, shared=True)) == "one-server"
