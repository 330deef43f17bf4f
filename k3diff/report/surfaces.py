"""Text and Markdown blocks for execution surfaces, shared by the wheels and audit reports.

Every surface that bears on the verdict is listed: in `wheels` each one the patch adds, changes
or removes, and each `.pth` file and module it imports (they run at every interpreter start,
changed or not); in `audit` each file that runs. The quiet rest (`wheels`: the other unchanged
surfaces; `audit`: entry points and top-level names) is listed while it is short and otherwise
counted by kind in one line that names `--format json`, which lists every surface (words72:
setuptools' 46 unchanged entry points filled 55 lines of `wheels` and `audit` text). `.pth`
files, scripts and the files tools of the environment load show their content, capped at
`SHOWN_LINES` lines. Names, summaries and contents come from the wheel and are hostile: every
one goes through `k3diff.escape` (`text` in text, `escape_inline` / a fenced block in
Markdown)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from k3diff import escape
from k3diff.output import OutputFormat, plural
from k3diff.report.markdown import capped_lines, escape_inline, fenced, inline_code
from k3diff.wheel.surfacekinds import Surface, SurfaceKind
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
QUIET_LISTED = 8
"""Quiet surfaces listed one by one when there are at most this many; more are counted by kind."""
GROUPS_NAMED = 4
"""Entry point groups the count line names (the most populous first) before counting the rest."""
_SHOWN_KINDS = ("pth", "data-script", "tool-config")
"""The kinds of surface whose content is shown: `.pth` files, copied scripts and the files a tool
of the environment runs or loads (`wheel.toolfiles`)."""
_EVERY_START = (SurfaceKind.PTH, SurfaceKind.CUSTOMIZE)
"""What runs at every interpreter start: listed in `wheels` even when unchanged."""
_REGISTRATIONS = (SurfaceKind.ENTRY_POINT, SurfaceKind.TOP_LEVEL)
"""Names a wheel registers rather than files that run: `audit`'s quiet surfaces."""
_NOUNS = {
    SurfaceKind.PTH: ".pth file",
    SurfaceKind.CUSTOMIZE: "start-up module",
    SurfaceKind.ENTRY_POINT: "entry point",
    SurfaceKind.SCRIPT: "generated script",
    SurfaceKind.DATA_SCRIPT: "copied script",
    SurfaceKind.BYTECODE: "bytecode file",
    SurfaceKind.TOP_LEVEL: "top-level name",
    SurfaceKind.TOOL_CONFIG: "tool file",
}


def surfaces_block(
    surfaces: Sequence[Surface],
    fmt: OutputFormat,
    statuses: dict[tuple[str, str], SurfaceStatus] | None = None,
    removed: Sequence[Surface] = (),
    quiet: Callable[[Surface], bool] = lambda surface: False,
) -> str:
    """The 'Execution surfaces' block: one line per surface (with its status base -> patch when
    `statuses` is given), the `quiet` ones counted instead when there are more than
    `QUIET_LISTED` of them, then the content of the listed `.pth` files and scripts."""
    if not surfaces and not removed:
        return ""
    markdown = fmt is OutputFormat.MARKDOWN
    unchanged = SurfaceStatus.UNCHANGED
    counted = [surface for surface in surfaces if quiet(surface)]
    if len(counted) <= QUIET_LISTED:
        counted = []
    ordered = sorted(
        (surface for surface in surfaces if not counted or not quiet(surface)),
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
    if counted:
        rows.append(_counted_row(counted, "unchanged " if statuses else "", markdown))
    if len(bodies) > SHOWN_BODIES:
        hidden = len(bodies) - SHOWN_BODIES
        bodies = [
            *bodies[:SHOWN_BODIES],
            f"{'' if markdown else '  '}… {hidden} more contents in --format json",
        ]
    title = "### Execution surfaces" if markdown else "Execution surfaces"
    return "\n".join([title, "", *rows, *([""] if bodies else []), *bodies])


def audit_surfaces_block(surfaces: Sequence[Surface], fmt: OutputFormat) -> str:
    """The block of one audited wheel: every file that runs, the names it registers (entry
    points, top-level names) counted when there are many."""
    return surfaces_block(surfaces, fmt, quiet=lambda surface: surface.kind in _REGISTRATIONS)


def wheels_surfaces_block(report: SurfaceReport, fmt: OutputFormat) -> str:
    """The block of a wheels report: the patch's surfaces with their status, then removals; the
    unchanged ones but what runs at every start counted when there are many."""
    statuses = {(c.kind.value, c.key): c.status for c in report.changes if c.patch is not None}
    removed = [c.base for c in report.changes if c.patch is None and c.base is not None]

    def quiet(surface: Surface) -> bool:
        status = statuses.get((surface.kind.value, surface.key))
        return status is SurfaceStatus.UNCHANGED and surface.kind not in _EVERY_START

    return surfaces_block(report.patch, fmt, statuses, removed, quiet)


def _counted_row(counted: Sequence[Surface], status: str, markdown: bool) -> str:
    """`47 unchanged surfaces not listed: 44 entry points (distutils.commands 21, …), 3
    top-level names; --format json lists them`: the kinds by count, entry point groups named."""
    kinds = Counter(surface.kind for surface in counted)
    parts: list[str] = []
    for kind, count in sorted(kinds.items(), key=lambda item: (-item[1], item[0].value)):
        part = plural(count, _NOUNS[kind])
        if kind is SurfaceKind.ENTRY_POINT:
            part += f" ({_groups(s.group or '?' for s in counted if s.kind is kind)})"
        parts.append(part)
    json = "`--format json`" if markdown else "--format json"
    line = f"{plural(len(counted), status + 'surface')} not listed: {', '.join(parts)}"
    if markdown:
        return f"- {escape_inline(line)}; {json} lists them"
    return f"  {escape.text(line)}; {json} lists them"


def _groups(groups: Iterator[str]) -> str:
    """`distutils.commands 21, egg_info.writers 7, 2 more groups`: the most populous first."""
    counts = sorted(Counter(groups).items(), key=lambda item: (-item[1], item[0]))
    named = [f"{group} {count}" for group, count in counts[:GROUPS_NAMED]]
    if len(counts) > GROUPS_NAMED:
        named.append(plural(len(counts) - GROUPS_NAMED, "more group"))
    return ", ".join(named)


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
