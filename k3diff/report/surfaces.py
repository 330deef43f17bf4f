"""Text and Markdown blocks for execution surfaces, shared by the wheels and audit reports.

Every surface is listed (not only the changed ones: a reviewer must see what runs); `.pth`
files, scripts and the files tools of the environment load show their content, capped at `SHOWN_LINES` lines. Names, summaries and
contents come from the wheel and are hostile: every one goes through `k3diff.escape`
(`text` in text, `escape_inline` / a fenced block in Markdown)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from k3diff import escape
from k3diff.output import OutputFormat
from k3diff.report.markdown import capped_lines, escape_inline, fenced, inline_code
from k3diff.wheel.surfacekinds import Surface
from k3diff.wheels.surfaces import SurfaceStatus

if TYPE_CHECKING:  # annotations only: `audit`'s report does not load the comparison's model
    from k3diff.wheel.sbomdoc import SbomReport
    from k3diff.wheels.surfaces import SurfaceReport

SHOWN_LINES = 12
"""Lines of a `.pth` file or script shown in text and Markdown (JSON has up to the cap)."""
SHOWN_SURFACES = 60
"""Surfaces listed in text and Markdown, changed ones first (JSON lists every one)."""
SHOWN_BODIES = 10
"""`.pth` files and scripts whose content is shown in text and Markdown."""
_SHOWN_KINDS = ("pth", "data-script", "tool-config")
"""The kinds of surface whose content is shown: `.pth` files, copied scripts and the files a tool
of the environment runs or loads (`wheel.toolfiles`)."""


def surfaces_block(
    surfaces: Sequence[Surface],
    fmt: OutputFormat,
    statuses: dict[tuple[str, str], SurfaceStatus] | None = None,
    removed: Sequence[Surface] = (),
) -> str:
    """The 'Execution surfaces' block: one line per surface (with its status base -> patch when
    `statuses` is given), then the content of `.pth` files and scripts."""
    if not surfaces and not removed:
        return ""
    markdown = fmt is OutputFormat.MARKDOWN
    unchanged = SurfaceStatus.UNCHANGED
    ordered = sorted(
        surfaces,
        key=lambda s: statuses is not None and statuses.get((s.kind.value, s.key)) is unchanged,
    )
    rows: list[str] = []
    bodies: list[str] = []
    for surface in ordered:
        status = statuses.get((surface.kind.value, surface.key)) if statuses else None
        rows.append(_row(surface, status.value if status else None, markdown))
        if surface.content is not None and surface.kind.value in _SHOWN_KINDS:
            bodies.append(_body(surface, markdown))
    rows += [_row(surface, "removed", markdown) for surface in removed]
    if len(rows) > SHOWN_SURFACES:
        hidden = len(rows) - SHOWN_SURFACES
        rows = [
            *rows[:SHOWN_SURFACES],
            f"{'- ' if markdown else '  '}… {hidden} more in --format json",
        ]
    if len(bodies) > SHOWN_BODIES:
        hidden = len(bodies) - SHOWN_BODIES
        bodies = [
            *bodies[:SHOWN_BODIES],
            f"{'' if markdown else '  '}… {hidden} more contents in --format json",
        ]
    title = "### Execution surfaces" if markdown else "Execution surfaces"
    return "\n".join([title, "", *rows, *([""] if bodies else []), *bodies])


def wheels_surfaces_block(report: SurfaceReport, fmt: OutputFormat) -> str:
    """The block of a wheels report: the patch's surfaces with their status, then removals."""
    statuses = {(c.kind.value, c.key): c.status for c in report.changes if c.patch is not None}
    removed = [c.base for c in report.changes if c.patch is None and c.base is not None]
    return surfaces_block(report.patch, fmt, statuses, removed)


def _row(surface: Surface, status: str | None, markdown: bool) -> str:
    where = f"{surface.kind.value} {surface.key}"
    line = f"{where}: {surface.summary}" + (f" [{status}]" if status else "")
    return f"- {escape_inline(line)}" if markdown else f"  {escape.text(line)}"


def _body(surface: Surface, markdown: bool) -> str:
    """The content, split at newlines only: a carriage return, form feed or U+2028 in a hostile
    `.pth` file or script is shown as an escape, never as a line break or a cursor move."""
    assert surface.content is not None
    lines, note = capped_lines(escape.text_lines(surface.content.rstrip("\n")), SHOWN_LINES)
    if surface.truncated and not note:
        note = "(content cut at the cap; JSON has the first 16 KiB)"
    if markdown:
        body = fenced("\n".join(lines))
        return f"{inline_code(surface.key)}:\n\n{body}" + (f"\n{note}" if note else "")
    shown = "\n".join(f"    | {line}" for line in lines)
    return f"  {escape.text(surface.key)}:\n{shown}" + (f"\n    {note}" if note else "")


SBOM_CHANGES_SHOWN = 40
"""Component changes listed in text and Markdown (JSON has all)."""


def sbom_block(report: SbomReport, fmt: OutputFormat) -> str:
    """The 'SBOM components' block: the documents of each side and the component changes."""
    markdown = fmt is OutputFormat.MARKDOWN
    shown_as = escape_inline if markdown else escape.text
    bullet = "- " if markdown else "  "
    lines = ["### SBOM components" if markdown else "SBOM components", ""]
    for side, sboms in (("base", report.base), ("patch", report.patch)):
        for sbom in sboms:
            what = sbom.error or f"{len(sbom.components)} components"
            lines.append(
                f"{bullet}{side}: {shown_as(sbom.entry)} ({sbom.format}): {shown_as(what)}"
            )
    shown, note = capped_lines(
        [
            f"component {c.change}: {c.name} "
            + {"added": f"{c.patch}", "removed": f"{c.base}", "changed": f"{c.base} -> {c.patch}"}[
                c.change
            ]
            for c in report.changes
        ],
        SBOM_CHANGES_SHOWN,
    )
    lines += [f"{bullet}{shown_as(line)}" for line in shown]
    if note:
        lines.append(f"{bullet}{note}")
    if not report.changes:
        lines.append(f"{bullet}no component changed")
    return "\n".join(lines)
