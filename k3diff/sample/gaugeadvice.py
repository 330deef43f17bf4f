"""What a samples log's header says of a server asked for its running-requests gauge: that it
has none (HTTP 404 on `/metrics`, as `transformers serve`; or none of the known series), and the
advice that follows. Kept apart from `k3diff.sample.metrics` (which parses Prometheus text) so
that the readers of documents say it without loading a parser (telem68)."""

from __future__ import annotations

from collections.abc import Sequence

NO_GAUGE_PROBLEMS = frozenset({"HTTP 404", "none of the known series"})
"""Probe problems that mean the server answered and has no running-requests gauge (as
`transformers serve`, which answers 404 on `/metrics`), not that the URL was wrong or down."""


def exposes_no_gauge(entry: object) -> bool:
    """Whether a side's log-header `metrics` entry says its server was asked and exposes no
    running-requests gauge (HTTP 404, none of the known series, or only the cache counter)."""
    if not isinstance(entry, dict) or entry.get("running") is not None:
        return False
    problem = entry.get("problem")
    return problem is None or problem in NO_GAUGE_PROBLEMS


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
