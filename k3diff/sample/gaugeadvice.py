"""What a samples log's header says of a server asked for its running-requests gauge: that it
has none (HTTP 404 on `/metrics`, as `transformers serve`; or none of the known series), or that
a `--metrics-url` given answered 404 or without the gauge (a URL to check), and the advice that
follows (`gauge_advice`). Kept apart from `k3diff.sample.metrics` (which parses Prometheus text) so
that the readers of documents say it without loading a parser (telem68)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

NO_GAUGE_PROBLEMS = frozenset({"HTTP 404", "none of the known series"})
"""Probe problems that mean the server answered and has no running-requests gauge (as
`transformers serve`, which answers 404 on `/metrics`), not that the URL was wrong or down."""


GIVEN_URL_404 = "HTTP 404 at the --metrics-url given: check it"
"""The probe's problem where a `--metrics-url` the user gave answered 404: a mistyped path on a
server that serves its metrics elsewhere, not a server without a gauge (the default probe's
`HTTP 404` on the server's `/metrics` is that)."""


def given_problem(problem: str | None, given: bool) -> str | None:
    """The problem to record for a probe of a `--metrics-url` the user gave (`given`) or of the
    server's `/metrics`: a given URL's 404 is `GIVEN_URL_404`."""
    return GIVEN_URL_404 if given and problem == "HTTP 404" else problem


def given_url_404(entry: object) -> bool:
    """Whether a side's log-header `metrics` entry says the `--metrics-url` given answered 404."""
    return isinstance(entry, dict) and entry.get("problem") == GIVEN_URL_404


ANSWERED_404 = "answered HTTP 404"
"""What `given_url_advice` says of a `--metrics-url` given that answered 404."""
ANSWERED_NO_GAUGE = "answered without a running-requests gauge"
"""What `given_url_advice` says of one that answered without the gauge (left69)."""


def given_url_advice(sides: Sequence[str], answered: str = ANSWERED_404) -> str:
    """What to do where the `--metrics-url` given for `sides` `answered` (HTTP 404, or without a
    running-requests gauge): check it, not drop the mode for a server that has none."""
    many = len(sides) > 1
    return (
        f"the --metrics-url given for the {' and '.join(sides)} {answered}: check "
        f"{'them' if many else 'it'} (the default is the server's /metrics); "
        "--mode serial still checks batch-1 parity"
    )


def answered_without_gauge(entry: object) -> bool:
    """Whether a side's log-header `metrics` entry says the URL asked answered and exposes no
    running-requests gauge (HTTP 404, none of the known series, or only the cache counter)."""
    if not isinstance(entry, dict) or entry.get("running") is not None:
        return False
    problem = entry.get("problem")
    return problem is None or problem in NO_GAUGE_PROBLEMS


def _given(entry: object) -> bool:
    """The entry's URL is a `--metrics-url` the user gave (a log written before the field, which
    does not say, is read as the server's own `/metrics`)."""
    return isinstance(entry, dict) and entry.get("given") is True


def exposes_no_gauge(entry: object) -> bool:
    """Whether a side's log-header `metrics` entry says its server was asked at its own
    `/metrics` and exposes no running-requests gauge (`answered_without_gauge`)."""
    return answered_without_gauge(entry) and not _given(entry)


def given_url_no_gauge(entry: object) -> bool:
    """Whether a side's log-header `metrics` entry says the `--metrics-url` given answered
    without a running-requests gauge: a URL to check (left69: it read as a server without a
    gauge, whose advice is that no `--metrics-url` can help)."""
    return answered_without_gauge(entry) and _given(entry)


def no_gauge_advice(sides: Sequence[str], modes: str) -> str:
    """What to do when `sides` (their servers expose no running-requests gauge) left `modes`
    (`--mode concurrent`, or 'its batched modes') unproven: no `--metrics-url` can help."""
    many = len(sides) > 1
    return (
        f"the {' and '.join(sides)} server{'s' if many else ''} expose{'' if many else 's'} no "
        f"running-requests gauge at {'their' if many else 'its'} metrics URL (asked, and "
        f"answered without one), so co-batching cannot be proven on {'them' if many else 'it'} "
        f"and {modes} cannot be cleared there: drop {'it' if modes.startswith('--') else 'them'}, "
        "or sample a server that exports the gauge (--mode serial still checks batch-1 parity)"
    )


def gauge_advice(
    modes: str,
    gaugeless: Sequence[str],
    given_404: Sequence[str],
    given_no_gauge: Sequence[str],
) -> str | None:
    """What to do for `modes` left unproven, from the sides whose server has no gauge
    (`no_gauge_advice`: no `--metrics-url` can help), whose `--metrics-url` given answered 404
    or without the gauge (`given_url_advice`: check it), in that order; None where none."""
    if gaugeless:
        return no_gauge_advice(gaugeless, modes)
    if given_404:
        return given_url_advice(given_404, ANSWERED_404)
    if given_no_gauge:
        return given_url_advice(given_no_gauge, ANSWERED_NO_GAUGE)
    return None


def header_advice(metrics: Mapping[str, object], modes: str) -> str | None:
    """What a samples log header's `metrics` entries advise for `modes` left unproven
    (`gauge_advice`), or None."""
    said = [
        [side for side in ("base", "patch") if test(metrics.get(side))]
        for test in (exposes_no_gauge, given_url_404, given_url_no_gauge)
    ]
    return gauge_advice(modes, *said)
