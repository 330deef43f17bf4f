"""What the telemetry text says right under its latency rows: the run's one server, the
samples failed, none of them counted in the rows (the records unlogged:
`telemetry_unlogged`)."""

from __future__ import annotations

from collections.abc import Callable

from k3diff.telemetry.failed import FailedSamples
from k3diff.telemetry.model import TelemetryReport


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
