"""What telemetry's text says of the lines a samples log lacks of what its run owed (`unlogged:`),
and of a log that cannot show it (no `run.log_format`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from k3diff.telemetry.unlogged import UnloggedRecords

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


def unlisted_line(log: str, shown: Callable[[str], str]) -> str:
    """What telemetry says of a log whose header does not state what its run owed (samples72:
    before, nothing, where triage holds its records `unlogged`)."""
    return (
        f"unlogged: {shown(log)} does not state what its run owed (no run.log_format: a log "
        "written before k3diff stated it): lines removed from it cannot be told from lines "
        "never owed, so the rows above may lack some, and triage clears none of its records; "
        "re-sample with this version"
    )
