"""The telemetry's acceptance by draft position: per position and side, the accepted drafts
and their interval, with the base-vs-patch test per position (split from `report.telemetry`)."""

from __future__ import annotations

from tabulate import tabulate

from k3diff.telemetry.model import TelemetryReport

NO_DRAFTS = "no drafts"
"""A position cell of a side that drafted nothing (its counters reported 0)."""


def position_lines(report: TelemetryReport, table: str) -> list[str]:
    """Acceptance per draft position and side, with the base-vs-patch test per position."""
    if not report.positions:
        return []
    tests = {t.position: t for t in report.position_tests}
    by_position: dict[int, dict[str, str]] = {}
    for rate in report.positions:
        # telem67: a side whose counters stayed at 0 drafted nothing; "0 of 0" read as a rate.
        cell = f"{rate.accepted} of {rate.drafts}" if rate.drafts else NO_DRAFTS
        if rate.rate is not None and rate.ci_low is not None and rate.ci_high is not None:
            cell += f" ({rate.rate:.1%}, {rate.ci_low:.1%}-{rate.ci_high:.1%})"
        by_position.setdefault(rate.position, {})[rate.side] = cell
    rows = []
    for position, cells in sorted(by_position.items()):
        test = tests.get(position)
        rows.append(
            [
                position,
                cells.get("base", "not reported"),
                cells.get("patch", "not reported"),
                "-" if test is None else f"{test.p:.3g}",
                "-" if test is None else f"{test.p_adjusted:.3g}",
            ]
        )
    level = f"{100 * (1 - report.alpha):g} %"
    headers = ["position", f"base ({level} CI)", f"patch ({level} CI)", "Fisher p", "Holm p"]
    return [
        "acceptance by draft position (drafts with at least that many tokens accepted):",
        tabulate(rows, headers=headers, tablefmt=table),
        "",
    ]
