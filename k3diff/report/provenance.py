"""Text and Markdown views of a source provenance report (the JSON view is
`documents.provenance.provenance_json`)."""

from __future__ import annotations

from collections.abc import Collection

from tabulate import tabulate

from k3diff import escape
from k3diff.provenance.check import FileSource, ProvenanceReport, SourceStatus
from k3diff.provenance.git import SHORT_ID_LENGTH
from k3diff.report.markdown import (
    capped_lines,
    cell,
    escape_inline,
    fenced,
    inline_code,
    markdown_cell,
)

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


Listed = Collection[tuple[str, str, str]]
"""(code, path, detail) of each finding the report lists in full (its failing findings): a
note written as one of them is said there, not again as a `Note:` (newuser68: a stated commit
outside OLD..NEW was printed twice, as a note and as the W408 detail)."""


def describe_source(report: ProvenanceReport, listed: Listed = ()) -> list[str]:
    """The lines that say what the files were compared with: full commit ids, the ref each
    revision named and what it resolved to, and what the repository says about its history
    (each note but those `listed` in full as findings)."""
    lines = [f"Source: {report.repo}, {report.object_format} object ids"]
    revisions = report.revisions
    if report.range is not None:
        lines.append(f"Range: {report.range} ({report.commits_examined} commits including OLD)")
        if len(revisions) == 2:
            lines += [f"Old: {revisions[0].describe()}", f"New: {revisions[1].describe()}"]
        else:
            lines += [f"Old: {report.old_commit}", f"New: {report.commit}"]
    else:
        lines.append(f"Commit: {revisions[0].describe() if revisions else report.commit}")
    counts = ", ".join(f"{n} {status}" for status, n in report.counts().items())
    lines += [f"Prefix: {report.layout.describe()}", f"Files: {counts}"]
    lines += [
        f"Note: {note.message}"
        for note in report.notes
        if (note.code, note.path, note.message) not in listed
    ]
    return lines


def _with_diff(report: ProvenanceReport) -> list[tuple[FileSource, str]]:
    return [(entry, entry.diff) for entry in report.files if entry.diff]


def _skipped(report: ProvenanceReport) -> list[str]:
    """One line per differing file compared by blob id only."""
    return [f"{e.path}: {e.status.value}, {e.diff_skipped}" for e in report.files if e.diff_skipped]


def _diff_title(entry: FileSource) -> str:
    title = f"{entry.path}: {entry.status.value}, +{entry.added}/-{entry.removed}"
    if entry.status is SourceStatus.STALE:
        title += f"; the wheel matches {short(entry.matched_commit)}"
    return title


def render_provenance_text(
    report: ProvenanceReport, diff_cap_lines: int = DEFAULT_DIFF_CAP_LINES, listed: Listed = ()
) -> str:
    """A readable report: what was compared, the table, and capped diffs of what differs."""
    parts = ["\n".join(escape.text(line) for line in describe_source(report, listed))]
    if report.files:
        rows = [[escape.text(text) for text in row] for row in provenance_rows(report)]
        parts.append(tabulate(rows, headers=PROVENANCE_HEADER))
    else:
        parts.append("No files checked.")
    if skipped := _skipped(report):
        parts.append("\n".join(skipped))
    for entry, diff in _with_diff(report):
        lines, note = capped_lines(escape.text_lines(diff.rstrip("\n")), diff_cap_lines)
        title = escape.text(_diff_title(entry))
        parts.append("\n".join([title, *lines, *([note] if note else [])]))
    return "\n\n".join(parts) + "\n"


def render_provenance_markdown(
    report: ProvenanceReport, diff_cap_lines: int = DEFAULT_DIFF_CAP_LINES, listed: Listed = ()
) -> str:
    """The same report as Markdown: a pipe table and one fenced ``diff`` block per file."""
    described = describe_source(report, listed)
    parts = ["### Source provenance", "  \n".join(map(escape_inline, described))]
    if report.files:
        rows = [
            [markdown_cell(inline_code(path)), *(cell(text) for text in rest)]
            for path, *rest in provenance_rows(report)
        ]
        parts.append(tabulate(rows, headers=PROVENANCE_HEADER, tablefmt="github"))
    else:
        parts.append("No files checked.")
    if skipped := _skipped(report):
        parts.append("  \n".join(escape_inline(line) for line in skipped))
    for entry, diff in _with_diff(report):
        lines, note = capped_lines(diff.rstrip("\n").split("\n"), diff_cap_lines)
        rest = _diff_title(entry).removeprefix(entry.path)
        title = inline_code(entry.path) + escape_inline(rest)
        block = fenced("\n".join(lines), "diff")
        parts.append(f"#### {title}\n\n{block}" + (f"\n\n{note}" if note else ""))
    return "\n\n".join(parts) + "\n"
