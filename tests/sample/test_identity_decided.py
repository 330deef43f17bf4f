"""How the one-server check decides from the counters it read (`k3diff.sample.identity`): one
server only where the base's series counted exactly the requests sent to the patch alone."""

from __future__ import annotations

from k3diff.sample.identity import PROBE_REQUESTS, counters, decided, went_down

SERIES = 'http_requests_total{handler="/v1/models",method="GET",status="2xx"}'


def test_the_base_counting_the_patchs_requests_is_one_server() -> None:
    found = decided([SERIES], {SERIES: PROBE_REQUESTS})
    assert (found.result, found.series) == ("one-server", SERIES)


def test_the_base_not_moving_is_two_servers() -> None:
    assert decided([SERIES], {SERIES: 0.0}).result == "two-servers"
    assert decided([SERIES], {}).result == "two-servers"  # the series not exposed there yet


def test_other_traffic_or_no_counter_is_unchecked_never_two() -> None:
    """A base that moved by another count may be one server with other clients: unchecked."""
    busy = decided([SERIES], {SERIES: PROBE_REQUESTS + 2})
    assert busy.result == "unchecked" and "moved by 5" in busy.why
    assert decided([], {SERIES: PROBE_REQUESTS}).result == "unchecked"


def test_a_hostile_label_stays_escaped() -> None:
    body = b'x_total{a="b\\nc"} 1\n' + f"{SERIES} 3\n".encode()
    assert list(counters(body)) == ['x_total{a="b\\nc"}', SERIES]


def test_a_counter_lower_or_gone_in_a_later_reading_is_another_process() -> None:
    """A process's counters never go down nor vanish: two readings that show it are of two
    processes (a server of several workers) or of a restart."""
    before = {SERIES: 4.0, "x_total{}": 1.0}
    assert went_down(before, {SERIES: 5.0, "x_total{}": 1.0, "new_total{}": 0.0}) is None
    assert went_down(before, {SERIES: 3.0, "x_total{}": 1.0}) == SERIES
    assert went_down(before, {SERIES: 4.0}) == "x_total{}"
