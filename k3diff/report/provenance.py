"""Text and Markdown views of a source provenance report (the JSON view is its ``to_json``)."""

from __future__ import annotations

import re

from tabulate import tabulate

from k3diff.output import plural
from k3diff.provenance.check import FileSource, ProvenanceReport, SourceStatus
from k3diff.provenance.git import SHORT_ID_LENGTH

PROVENANCE_HEADER: tuple[str, ...] = ("path", "status", "commit", "+/-")
"""Column titles matching `provenance_rows`."""

DEFAULT_DIFF_CAP_LINES = 40
"""Diff lines shown per file before the rest is left to ``--format json``."""


def short(commit: str | None) -> str:
    """A commit id as shown in tables, or '-' for none."""
    return commit[:SHORT_ID_LENGTH] if commit else "-"


def provenance_rows(report: ProvenanceReport) -> list[list[str]]:
    """One row per file: wheel path, status, matched commit, ``+added/-removed``."""
    return [
        [
            entry.path,
            entry.status.value,
            short(entry.matched_commit),
            f"+{entry.added}/-{entry.removed}" if entry.diff is not None else "",
        ]
        for entry in report.files
    ]


def describe_source(report: ProvenanceReport) -> list[str]:
    """The lines that say what the files were compared with."""
    origin = "detected" if report.prefix_detected else "given"
    if report.range is not None:
        compared = (
            f"range {report.range} ({short(report.old_commit)}..{short(report.commit)}, "
            f"{report.commits_examined} commits including OLD)"
        )
    else:
        compared = f"{report.rev} ({short(report.commit)})"
    counts = ", ".join(f"{n} {status}" for status, n in report.counts().items())
    return [
        f"Source: {report.repo} at {compared}, {report.object_format} object ids",
        f"Prefix: {report.prefix or '(repository root)'} ({origin})",
        f"Files: {counts}",
    ]


def capped_diff(diff: str, cap_lines: int) -> tuple[list[str], str | None]:
    """The first `cap_lines` lines of `diff`, and a note saying how many were left out."""
    lines = diff.splitlines()
    if len(lines) <= cap_lines:
        return lines, None
    hidden = len(lines) - cap_lines
    return lines[:cap_lines], f"… {plural(hidden, 'more line')}, see --format json"


def _with_diff(report: ProvenanceReport) -> list[tuple[FileSource, str]]:
    return [(entry, entry.diff) for entry in report.files if entry.diff]


def _diff_title(entry: FileSource) -> str:
    title = f"{entry.path}: {entry.status.value}, +{entry.added}/-{entry.removed}"
    if entry.status is SourceStatus.STALE:
        title += f"; the wheel matches {short(entry.matched_commit)}"
    return title


def render_provenance_text(
    report: ProvenanceReport, diff_cap_lines: int = DEFAULT_DIFF_CAP_LINES
) -> str:
    """A readable report: what was compared, the table, and capped diffs of what differs."""
    parts = ["\n".join(describe_source(report))]
    if report.files:
        parts.append(tabulate(provenance_rows(report), headers=PROVENANCE_HEADER))
    else:
        parts.append("No files checked.")
    for entry, diff in _with_diff(report):
        lines, note = capped_diff(diff, diff_cap_lines)
        parts.append("\n".join([_diff_title(entry), *lines, *([note] if note else [])]))
    return "\n\n".join(parts) + "\n"


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|")


def _code(text: str) -> str:
    # Inline code keeps '__init__.py' from turning into bold 'init.py'.
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    padding = " " if "`" in text else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def _fence(body: str) -> str:
    # A fence longer than any backtick run inside, so a diff of Markdown cannot close it early.
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


def render_provenance_markdown(
    report: ProvenanceReport, diff_cap_lines: int = DEFAULT_DIFF_CAP_LINES
) -> str:
    """The same report as Markdown: a pipe table and one fenced ``diff`` block per file."""
    parts = ["### Source provenance", "  \n".join(describe_source(report))]
    if report.files:
        rows = [
            [_markdown_cell(_code(path)), *(_markdown_cell(cell) for cell in rest)]
            for path, *rest in provenance_rows(report)
        ]
        parts.append(tabulate(rows, headers=PROVENANCE_HEADER, tablefmt="github"))
    else:
        parts.append("No files checked.")
    for entry, diff in _with_diff(report):
        lines, note = capped_diff(diff, diff_cap_lines)
        body = "\n".join(lines)
        fence = _fence(body)
        title = _diff_title(entry).replace(entry.path, _code(entry.path), 1)
        parts.append(
            f"#### {title}\n\n{fence}diff\n{body}\n{fence}" + (f"\n\n{note}" if note else "")
        )
    return "\n\n".join(parts) + "\n"
