"""GitHub Actions workflow commands for a finding run: `::error` for each failing finding,
`::notice` for informational and waived ones (capped: GitHub shows 10 error and 10 notice
annotations per step, 50 per job).

Every value is escaped as the runner's own toolkit escapes it (`%`, CR, LF; and `:` `,` in
properties), after `escape.text`, so no input can end the command early or start another.
"""

from __future__ import annotations

from k3diff import escape
from k3diff.report.cifindings import CiResult, CiRun

MAX_ANNOTATIONS = 50
"""Annotations written; a last notice says how many more there were."""


def _data(value: str) -> str:
    return escape.text(value).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(value: str) -> str:
    return _data(value).replace(":", "%3A").replace(",", "%2C")


def _command(result: CiResult) -> str:
    kind = "error" if result.failing else "notice"
    props = []
    if result.artifact:
        props.append(f"file={_property(result.artifact)}")
    if result.line is not None:
        props.append(f"line={result.line}")
    title = result.rule if result.waiver is None else f"{result.rule} (waived)"
    props.append(f"title={_property(title)}")
    where = f"{result.member}: " if result.member else ""
    message = f"{where}{result.title}: {result.detail}"
    if result.waiver is not None:
        message += f" — waived by waiver {result.waiver.number}: {result.waiver.reason}"
    return f"::{kind} {','.join(props)}::{_data(message)}"


def workflow_commands(run: CiRun) -> list[str]:
    """The workflow-command lines, failing findings first."""
    results = [r for case in run.cases for r in case.results]
    results.sort(key=lambda r: not r.failing)
    lines = [_command(r) for r in results[:MAX_ANNOTATIONS]]
    if len(results) > MAX_ANNOTATIONS:
        more = len(results) - MAX_ANNOTATIONS
        lines.append(f"::notice title=k3diff::{more} more findings (see the report)")
    return lines
