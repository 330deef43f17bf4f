"""The optional sections of the `k3diff wheels` text and Markdown reports (binary content,
native explanations, source provenance, execution surfaces, SBOMs): each is empty when its data
is absent, and its renderer is imported only when it has something to show."""

from __future__ import annotations

from collections.abc import Callable

from k3diff import escape
from k3diff.output import OutputFormat, plural
from k3diff.report.markdown import escape_inline, inline_code
from k3diff.wheel.kinds import EntryKind
from k3diff.wheels.model import WheelReport

DIFF_LINES = 40
"""Lines of each unified diff shown in text and Markdown (JSON carries all of it)."""
DIFFS_SHOWN = 20
"""Diffs shown in text and Markdown before the rest is left to JSON."""

ExtraSection = Callable[[WheelReport, OutputFormat], str]
"""Renders an optional section (provenance, native explanations) or '' when it has nothing."""


def _provenance_section(report: WheelReport, fmt: OutputFormat) -> str:
    if report.provenance is None:
        return ""
    from k3diff.report.provenance import render_provenance_markdown, render_provenance_text

    listed = {(f.code.name, f.path, f.detail) for f in report.failing}  # said in full there
    if fmt is OutputFormat.MARKDOWN:
        return render_provenance_markdown(report.provenance, DIFF_LINES, listed)
    return "Source provenance\n" + render_provenance_text(report.provenance, DIFF_LINES, listed)


def _explain_section(report: WheelReport, fmt: OutputFormat) -> str:
    explained = [e for e in report.notable if e.native is not None]
    if not explained:
        return _nothing_explained(report, fmt)
    from k3diff.report.explain import explain_markdown, explain_text_lines

    blocks: list[str] = []
    for entry in explained:
        assert entry.native is not None
        if fmt is OutputFormat.MARKDOWN:
            blocks.append(f"#### {inline_code(entry.path)}\n\n{explain_markdown(entry.native)}")
        else:
            lines = explain_text_lines(entry.native)
            blocks.append("\n".join([escape.text(entry.path), *(f"  {line}" for line in lines)]))
    title = "### Native explanations" if fmt is OutputFormat.MARKDOWN else "Native explanations"
    return "\n\n".join([title, *blocks])


def _nothing_explained(report: WheelReport, fmt: OutputFormat) -> str:
    """Under `--explain`, with no changed native entry: say so, so that the report shows the
    option was taken and found nothing, not that it was left out."""
    if not report.explain or report.summary[EntryKind.NATIVE].changed:
        return ""
    option = inline_code("--explain") if fmt is OutputFormat.MARKDOWN else "--explain"
    return f"{option}: no changed native entry to explain"


def _binary_section(report: WheelReport, fmt: OutputFormat) -> str:
    """Entries with a text name whose content is binary: each side's size and SHA-256."""
    binary = [e for e in report.notable if e.diff is not None and e.diff.binary is not None]
    if not binary:
        return ""
    markdown = fmt is OutputFormat.MARKDOWN
    lines = [
        f"- {inline_code(e.path)}: {escape_inline(e.diff.binary or '')}"
        if markdown
        else escape.text(f"{e.path}: {e.diff.binary}")
        for e in binary[:DIFFS_SHOWN]
        if e.diff is not None
    ]
    if len(binary) > DIFFS_SHOWN:
        lines.append(f"… {plural(len(binary) - DIFFS_SHOWN, 'more')}, see --format json")
    title = "### Binary content, not diffed" if markdown else "Binary content, not diffed"
    return "\n".join([title, *([""] if markdown else []), *lines])


def _surfaces_section(report: WheelReport, fmt: OutputFormat) -> str:
    if report.surfaces is None:
        return ""
    from k3diff.report.surfaces import wheels_surfaces_block

    return wheels_surfaces_block(report.surfaces, fmt)


def _sbom_section(report: WheelReport, fmt: OutputFormat) -> str:
    if report.sboms is None:
        return ""
    from k3diff.report.surfaces import sbom_block

    return sbom_block(report.sboms, fmt)


EXTRA_SECTIONS: tuple[ExtraSection, ...] = (
    _binary_section,
    _explain_section,
    _provenance_section,
    _surfaces_section,
    _sbom_section,
)
"""Sections shown when their data is present, after the differences and before findings."""
