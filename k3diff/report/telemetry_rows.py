"""What the telemetry text says right under its latency rows: the run's one server, the
samples failed and the records unlogged, none of them counted in the rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from k3diff.telemetry.failed import FailedSamples
from k3diff.telemetry.model import TelemetryReport
from k3diff.telemetry.unlogged import UnloggedRecords


def one_server_lines(report: TelemetryReport) -> list[str]:
    """Under the latency rows, where base and patch were one server: its rows are one server's
    latencies under two labels, no two builds compared (words72: a one-server run's rows read
    as a base and a patch)."""
    if not report.one_server:
        return []
    rows = "one server's latencies under two labels, not two builds compared"
    if len(report.logs) == 1:
        where = report.one_server[0][1]
        said = f"base and patch were sampled from one server ({where}): the rows above are {rows}"
        return [f"one server: {said}", ""]
    lines = [
        f"one server: {log}: base and patch were sampled from one server ({where}): its "
        f"samples in the rows above are {rows}"
        for log, where in report.one_server
    ]
    return [*lines, ""]


def failed_line(failed: FailedSamples, shown: Callable[[str], str]) -> str:
    """'failed: 3 of 6 patch samples, not counted above (most common error, 3 of them: ...)',
    as `sample` says them (triage70: without --expect, not said at all)."""
    error = " ".join(failed.error.split())
    error = error if len(error) <= ERROR_CHARS else error[: ERROR_CHARS - 1] + "…"
    return (
        f"failed: {failed.samples:,} of {failed.of:,} {failed.side} samples, not counted above "
        f"(most common error, {failed.error_samples:,} of them: {shown(error)})"
    )


ERROR_CHARS = 200
"""The most common error's characters a failed line shows (as `sample`'s summary)."""


SHOWN_RECORDS = 5
"""The records an unlogged line names (the rest counted; JSON lists every one)."""


def unlogged_lines(unlogged: Sequence[UnloggedRecords], shown: Callable[[str], str]) -> list[str]:
    """'unlogged: 1 of 3 records the run asked lacks base or patch lines in its log (b), ...':
    what the log lacks and the two ways it comes to lack it, each with what to do (one line
    for both sides where they lack the same records)."""
    if len(unlogged) > 1 and len({(u.records, u.of) for u in unlogged}) == 1:
        unlogged = [replace(unlogged[0], side=" or ".join(u.side for u in unlogged))]
    lines = []
    for found in unlogged:
        count = len(found.records)
        names = ", ".join(map(shown, found.records[:SHOWN_RECORDS]))
        more = f" and {count - SHOWN_RECORDS:,} more" if count > SHOWN_RECORDS else ""
        lines.append(
            f"unlogged: {count:,} of {found.of:,} records the run asked "
            f"{'lacks' if count == 1 else 'lack'} {found.side} lines in its log ({names}{more}), "
            "not counted above: the lines were removed from the log (a filter such as jq's "
            "select(.error == null) drops the failed ones: give the log as sample wrote it) or "
            "the run was killed before them (its sample command with --resume takes them)"
        )
    return lines
