"""Render an audit as text, Markdown or JSON (`k3diff.audit/2`, written by `documents.audit`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, assert_never

from k3diff import escape
from k3diff.audit.model import ArtifactAudit, AuditReport, ManifestCheck
from k3diff.output import OutputFormat, plural
from k3diff.report import waived
from k3diff.report.entries import entries_phrase
from k3diff.report.markdown import cell, escape_inline, inline_code, markdown_cell
from k3diff.report.surfaces import audit_surfaces_block
from k3diff.wheel.codes import Finding, Severity
from k3diff.wheel.findingorder import order_key

if TYPE_CHECKING:  # loaded only when something fails
    from k3diff.report.auditsteps import Failing

FINDINGS_SHOWN = 200
"""Findings listed per artifact in text and Markdown (JSON lists them all, in the run's order)."""


def render(report: AuditReport, fmt: OutputFormat) -> str:
    """The audit in the chosen format."""
    if fmt is OutputFormat.JSON:
        # Imported for the format chosen: the document writer is not loaded for text.
        from k3diff.documents import audit as audit_document

        return audit_document.write(report, json_steps(report))
    if fmt is OutputFormat.TEXT:
        return _text(report)
    if fmt is OutputFormat.MARKDOWN:
        return _markdown(report)
    assert_never(fmt)


def verdict_text(report: AuditReport) -> str:
    """The one-line verdict (the report's last line), naming the report's exit code."""
    code = int(report.exit_code)
    located = report.located_findings()
    errors = report.errors
    waived = sum(report.policy.waiver(f, (artifact,)) is not None for f, artifact in located)
    warnings = plural(len(located) - errors - waived, "warning")  # the waived: the clause's
    artifacts = plural(len(report.artifacts), "artifact")
    waivers = report.waiver_outcome()
    clause = escape.text(waivers.verdict_clause()) if waivers else ""  # reasons are input
    if errors:
        # newuser71: `FAIL: 2 errors (3 findings)` left the third to guess (a warning)
        failed = plural(errors, "error")
        return f"FAIL: {failed}, {warnings}; {artifacts} audited{clause} (exit {code})"
    # newuser71: two waived errors and a warning read `3 warnings; 2 findings waived`
    return f"OK: {artifacts} audited, {warnings}{clause} (exit {code})"


def _finding_text(finding: Finding, report: AuditReport, artifact: str) -> str:
    where = f" {finding.path}" if finding.path else ""
    waiver = report.policy.waiver(finding, (artifact,))
    if waiver is not None:
        mark = f" (waived by waiver {waiver.number})"
    else:
        mark = "" if report.severity(finding, artifact) is Severity.ERROR else " (warning)"
    return f"  {finding.code.name}{mark}{where}: {finding.message}: {finding.detail}"


def _shown(report: AuditReport, artifact: ArtifactAudit) -> list[Finding]:
    """The artifact's findings as text and Markdown list them: what fails first, then code, then
    path (the wheels tables' order), at most `FINDINGS_SHOWN`, so a flood of findings that only
    inform never hides one that fails past the cap."""
    ranked = sorted(
        artifact.findings,
        key=lambda f: order_key(report.severity(f, artifact.path).value, f.code.name, f.path),
    )
    return ranked[:FINDINGS_SHOWN]


def _entries(artifact: ArtifactAudit, *, noun: bool = True) -> str:
    """The wheel's entry count as `entries_phrase` words it; for an archive that could not be
    read (A001) none was counted, so it says so instead of a count of 0."""
    if any(finding.code.name == "A001" for finding in artifact.findings):
        return "entries unreadable" if noun else "unreadable"
    if artifact.kind.value == "sdist" and noun:  # its tar members, those read before any A002
        members = plural(artifact.entry_count, "tar member")
        directories = artifact.directory_count
        return f"{members} ({plural(directories, 'directory')})" if directories else members
    return entries_phrase(artifact.entry_count, artifact.directory_count, noun=noun)


def _artifact_header(artifact: ArtifactAudit) -> str:
    entries = f", {_entries(artifact)}" if artifact.kind.value in ("wheel", "sdist") else ""
    return (
        f"{artifact.path}: {artifact.kind.value}, {plural(artifact.size, 'byte')}{entries}, "
        f"sha256 {artifact.sha256}"
    )


def _manifest_lines(check: ManifestCheck, report: AuditReport) -> list[str]:
    # words73: "1 missing, 1 extra" left the reader to guess which side each was missing from
    ignored = "; --ignore-missing" if check.ignore_missing else ""
    lines = [
        f"manifest {check.path}: {len(check.matched)} matched, {len(check.mismatched)} "
        f"mismatched, {len(check.missing)} missing (listed, not audited{ignored}), "
        f"{len(check.extra)} extra (audited, not listed)"
    ]
    lines += [_finding_text(f, report, f.path) for f in check.findings()]
    return lines


def _text(report: AuditReport) -> str:
    lines: list[str] = []
    for artifact in report.artifacts:
        lines.append(_artifact_header(artifact))
        lines += [_finding_text(f, report, artifact.path) for f in _shown(report, artifact)]
        hidden = len(artifact.findings) - FINDINGS_SHOWN
        if hidden > 0:
            lines.append(f"  ... and {plural(hidden, 'more finding')} (--format json lists all)")
        block = audit_surfaces_block(artifact.surfaces, OutputFormat.TEXT)
        if block:
            lines += ["  " + line if line else line for line in block.split("\n")]
    if report.manifest is not None:
        lines += _manifest_lines(report.manifest, report)
    if report.written_manifest is not None:
        lines.append(f"manifest written to {report.written_manifest}")
    section = waived.section(report.waiver_outcome(), markdown=False)
    if section:
        lines += section.split("\n")
    text = "\n".join(escape.text(line) for line in lines) + "\n"
    steps = _next_steps(report, OutputFormat.TEXT)  # escaped as it is built
    return text + (f"{steps}\n" if steps else "") + escape.text(verdict_text(report)) + "\n"


def _next_steps(report: AuditReport, fmt: OutputFormat) -> str:
    """What to do about the failing findings (`report.auditsteps`), '' when none fails."""
    if not report.errors:
        return ""
    # Imported when something fails: a passing audit loads none of the steps' words.
    from k3diff.report import auditsteps

    manifest = None if report.manifest is None else report.manifest.path
    audited = [a.path for a in report.artifacts]
    return auditsteps.next_steps(_failing(report), manifest, fmt, audited, _unaudited(report))


def json_steps(report: AuditReport) -> list[dict[str, str]]:
    """The next steps the JSON document records (`auditsteps.step_records`: the text's, one
    mechanism), none when nothing fails. `report` never reads them back: the bundle says its
    own, from the findings (`bundle.nextsteps`), so an edited step reaches no bundle."""
    if not report.errors:
        return []
    from k3diff.report import auditsteps

    manifest = None if report.manifest is None else report.manifest.path
    audited = [a.path for a in report.artifacts]
    return auditsteps.step_records(_failing(report), manifest, audited, _unaudited(report))


def _unaudited(report: AuditReport) -> int:
    """How many files the manifest pins that the run did not audit (`--ignore-missing` or
    not)."""
    return 0 if report.manifest is None else len(report.manifest.missing)


def _failing(report: AuditReport) -> list[Failing]:
    """The failing findings, located, as the steps read them."""
    from k3diff.report.auditsteps import Failing

    return [
        Failing(f.code.name, f.path, artifact, f.detail, f.native)
        for f, artifact in report.located_findings()
        if report.severity(f, artifact) is Severity.ERROR
    ]


def _code(text: str) -> str:
    return inline_code(text) if text else ""


def _markdown(report: AuditReport) -> str:
    from tabulate import tabulate

    parts = ["# k3diff audit", ""]
    rows = [
        [
            markdown_cell(_code(a.path)),
            a.kind.value,
            f"{a.size:,}",
            _entries(a, noun=False),
            f"`{a.sha256}`",
            len(a.findings),
        ]
        for a in report.artifacts
    ]
    headers = ["artifact", "kind", "bytes", "entries", "sha256", "findings"]
    parts += [tabulate(rows, headers=headers, tablefmt="github"), ""]
    for artifact in report.artifacts:
        if not artifact.findings:
            continue
        parts += [f"## Findings in {_code(artifact.path)}", ""]
        shown = _shown(report, artifact)
        finding_rows = [
            [
                f.code.name,
                report.severity(f, artifact.path).value,
                markdown_cell(_code(f.path)),
                cell(f.detail),
            ]
            for f in shown
        ]
        parts.append(
            tabulate(
                finding_rows, headers=["code", "severity", "path", "detail"], tablefmt="github"
            )
        )
        if len(artifact.findings) > len(shown):
            parts.append(f"\n{len(artifact.findings) - len(shown)} more in `--format json`.")
        parts.append("")
    for artifact in report.artifacts:
        block = audit_surfaces_block(artifact.surfaces, OutputFormat.MARKDOWN)
        if block:
            parts += [
                block.replace(
                    "### Execution surfaces", f"## Execution surfaces of {_code(artifact.path)}", 1
                ),
                "",
            ]
    if report.manifest is not None:
        parts += [
            "## Manifest",
            "",
            *(
                f"- {escape_inline(line.strip())}"
                for line in _manifest_lines(report.manifest, report)
            ),
            "",
        ]
    if report.written_manifest is not None:
        parts += [f"Manifest written to {_code(report.written_manifest)}.", ""]
    section = waived.section(report.waiver_outcome(), markdown=True)
    if section:
        parts += [section, ""]
    steps = _next_steps(report, OutputFormat.MARKDOWN)
    if steps:
        parts += [steps, ""]
    parts.append(f"**{escape.markdown(verdict_text(report))}**")
    return "\n".join(parts) + "\n"
