"""Render a log scan as text, Markdown or JSON (`k3diff.logs/1`, written by `documents.logs`)."""

from __future__ import annotations

from functools import partial
from typing import assert_never

from tabulate import tabulate

from k3diff import escape
from k3diff.documents import logs as logs_document
from k3diff.documents.logsdowngrade import error_rule
from k3diff.documents.logsparts import downgraded_sentence
from k3diff.logs.model import Location, LogFinding, LogsReport, SideScan, place
from k3diff.output import OutputFormat, plural
from k3diff.report.markdown import capped, cell, inline_code, markdown_cell

SHOWN = 20
"""Findings listed per section in text and Markdown (JSON lists them all)."""


def render(report: LogsReport, fmt: OutputFormat) -> str:
    """The scan in the chosen format."""
    if fmt is OutputFormat.JSON:
        return logs_document.write(report)
    if fmt is OutputFormat.TEXT:
        return _text(report)
    if fmt is OutputFormat.MARKDOWN:
        return _markdown(report)
    assert_never(fmt)


def verdict_line(report: LogsReport) -> str:
    """The report's last line, naming the exit code."""
    code = int(report.exit_code)
    ignored = report.settings.ignored
    left_out = f"; {logs_document.ignored_sentence(ignored)}" if ignored else ""
    if report.patch.downgraded:  # records76
        left_out += f"; {downgraded_sentence(report.patch.downgraded)}"
    if report.failures:
        return f"Verdict: FAIL (exit {code}): {'; '.join(report.failures)}{left_out}"
    errors = sum(f.count for f in report.patch.findings if f.severity.value == "error")
    if errors:
        occur = "occurs" if errors == 1 else "occur"
        why = (
            f"the patch's {plural(errors, 'error match', 'error matches')} also {occur} on the base"
        )
        rose = [
            f"{rule.name} {rule.base:,} → {rule.patch:,}"
            for rule in report.rules
            if rule.severity.value == "error" and rule.patch > rule.base
        ]
        if rose:  # not new, so not failing; but an OK must not read as "no more than before"
            why += f"; more often on the patch than on the base: {', '.join(rose)}"
    else:
        why = "no error finding on the patch"
    return f"Verdict: OK (exit {code}): {why}{left_out}"


# Text and Markdown --------------------------------------------------------------------------


def _side_phrase(side: SideScan) -> str:
    parts = [plural(len(side.files), "file"), plural(side.lines, "line")]
    if side.skipped:
        parts.append(f"{plural(len(side.skipped), 'entry', 'entries')} not read")
    if side.links:
        parts.append(f"{plural(len(side.links), 'link')} to what it reads")
    return ", ".join(parts)


def _side_entries(side: SideScan) -> list[str]:
    """Each entry of the side not read, with why, and each link to what it reads anyway (read
    once, as its target), raw: the renderer escapes them."""
    return [f"not read: {s}" for s in side.skipped] + [
        f"link (read once, as its target): {k.name} → {k.target}" for k in side.links
    ]


def _rule_rows(report: LogsReport) -> list[list[str]]:
    return [
        [r.name, r.severity.value, str(r.base), str(r.patch), str(r.new_on_patch)]
        for r in report.rules
        if r.base or r.patch
    ]


_HEADERS = ["rule", "severity", "base", "patch", "new on patch"]


CONTEXT_WORDS = {"traceback": "traceback from"}
"""A context line's role as the text says it ("announced by" reads as it is)."""


def _consequence(finding: LogFinding) -> str:
    """', consequence of out-of-memory' for a finding that follows from a crash (logs64)."""
    return "" if finding.consequence_of is None else f", consequence of {finding.consequence_of[0]}"


def _over(finding: LogFinding, side: SideScan) -> str:
    """', over built-in error rule cuda-error' for a user warning finding that took a line of
    an error rule its side's `downgraded` names for its rule: the one its quoted line matches,
    or each named where every line of its rule was taken (polish76: only the verdict line named
    the error rule, the finding read `gpu-noise (warning, ×1)`)."""
    taken = [(over, lines) for rule, over, lines in side.downgraded if rule == finding.rule]
    overs = sorted({over for over, _lines in taken})
    if not overs:
        return ""
    found = next((r for e in finding.examples if (r := error_rule(e.text, overs))), None)
    if found is None and sum(n for _o, n in taken) < side.count(finding.rule):
        return ""  # its rule's other lines took them; this one's quoted line matches none
    named = [found] if found is not None else overs
    return f", over built-in error {'rule' if len(named) == 1 else 'rules'} {', '.join(named)}"


def _finding_lines(finding: LogFinding, side: SideScan) -> list[str]:
    said = _consequence(finding) + _over(finding, side)
    lines = [
        f"  {finding.rule} ({finding.severity.value}, ×{finding.count}"
        f"{escape.text(said)}): {escape.text(finding.message)}"
    ]
    for e in finding.examples:
        lines.append(f"    {place(escape.text(e.file), e.line)}: {escape.text(e.text)}")
        # A traceback's own lines, under the exception line it is located at (polish63)
        lines += [
            f"      {CONTEXT_WORDS.get(c.role, c.role)} line {c.line}: {escape.text(c.text)}"
            for c in e.context
        ]
    return lines


def _finding_block(finding: LogFinding, side: SideScan) -> str:
    return "\n".join(_finding_lines(finding, side))


def _text(report: LogsReport) -> str:
    lines = []
    for title, side in (("Base: ", report.base), ("Patch:", report.patch)):
        lines.append(f"{title} {escape.text(', '.join(side.paths))}: {_side_phrase(side)}")
        lines += [f"  {escape.text(entry)}" for entry in _side_entries(side)]
    lines.append("")
    rows = _rule_rows(report)
    lines.append(tabulate(rows, headers=_HEADERS) if rows else "No rule matched on either side.")
    for title, findings, side in (
        ("New on the patch", report.new_on_patch, report.patch),
        ("Only on the base", report.gone_on_patch, report.base),
    ):
        if findings:
            lines += ["", f"{title}:"]
            lines += capped(findings, SHOWN, partial(_finding_block, side=side))
    if report.patch.overflow or report.base.overflow:
        lines += [
            "",
            f"Distinct-message cap reached: base {report.base.overflow}, patch "
            f"{report.patch.overflow:,} lines counted by rule only (see --format json)",
        ]
    lines += ["", escape.text(verdict_line(report))]
    return "\n".join(lines)


def _md_finding(finding: LogFinding, side: SideScan) -> str:
    where = "; ".join(f"{place(e.file, e.line)}{_md_context(e)}" for e in finding.examples)
    return (
        f"| {cell(finding.rule + _consequence(finding) + _over(finding, side))} | {finding.severity.value} | "
        f"{finding.count} | "
        f"{markdown_cell(inline_code(escape.markdown_code(finding.message)))} | {cell(where)} |"
    )


def _md_context(where: Location) -> str:
    """' (traceback from line 5)' after a crash's place."""
    lines = [c.line for c in where.context if c.role == "traceback"]
    return f" (traceback from line {lines[0]})" if lines else ""


def _markdown(report: LogsReport) -> str:
    lines = ["# Server logs", ""]
    for title, side in (("Base", report.base), ("Patch", report.patch)):
        lines.append(f"- {title}: {cell(', '.join(side.paths))}: {_side_phrase(side)}")
        lines += [f"  - {cell(entry)}" for entry in _side_entries(side)]
    lines.append("")
    rows = _rule_rows(report)
    if rows:
        lines.append(tabulate(rows, headers=_HEADERS, tablefmt="github"))
    else:
        lines.append("No rule matched on either side.")
    for title, findings, side in (
        ("New on the patch", report.new_on_patch, report.patch),
        ("Only on the base", report.gone_on_patch, report.base),
    ):
        if findings:
            lines += [
                "",
                f"## {title}",
                "",
                "| rule | severity | count | message | first seen |",
                "|---|---|---|---|---|",
            ]
            lines += capped(findings, SHOWN, partial(_md_finding, side=side))
    lines += ["", f"**{escape.markdown_prose(verdict_line(report))}**"]
    return "\n".join(lines)
