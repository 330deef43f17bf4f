"""The waivers section every finding report shows (text and Markdown): what was waived and
why, which waivers expired on a finding, which matched nothing. Never silent."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from k3diff import escape
from k3diff.output import plural
from k3diff.report.markdown import cell
from k3diff.wheel.findingorder import counted, implied

if TYPE_CHECKING:  # a run without --waivers never builds one: the waiver module stays unloaded
    from k3diff.wheel.codes import Finding
    from k3diff.wheel.waivers import Waiver, WaiverOutcome

SHOWN = 50
"""Waived findings listed in text and Markdown (JSON lists all)."""


def section(result: WaiverOutcome | None, markdown: bool, unused: bool = True) -> str:
    """The section, or '' without a waiver file; `unused=False` leaves out the waivers that
    matched nothing (one pair of a release set: another pair may use them)."""
    if result is None:
        return ""
    if not unused:
        result = replace(result, unused=())
        if not result.applied and not result.expired:
            return ""
    lines = [f"Waivers from {result.source}: {_counts(result)}"]
    for waiver, finding, artifact in _ordered(result)[:SHOWN]:
        where = finding.where
        lines.append(
            f"- waived {finding.code.name} {where} in {artifact} by waiver {waiver.number}: "
            f"{waiver.reason}{_until(waiver.expires)}"
        )
    if len(result.applied) > SHOWN:
        lines.append(f"- … and {len(result.applied) - SHOWN} more waived (--format json)")
    for waiver, finding, artifact in result.expired[:SHOWN]:
        lines.append(
            f"- NOT waived {finding.code.name} {finding.where} in {artifact}: "
            f"waiver {waiver.number} expired on {waiver.expires}"
        )
    for waiver in result.unused[:SHOWN]:
        lines.append(f"- unused: {waiver.label()} {_unused(result, waiver)}")
    if len(result.unused) > SHOWN:
        lines.append(f"- … and {len(result.unused) - SHOWN} more unused (--format json)")
    if markdown:
        title, *rest = lines
        return "\n".join([f"### {cell(title)}", "", *(escape.markdown_prose(x) for x in rest)])
    return "\n".join(escape.text(line) for line in lines)


def _named(result: WaiverOutcome) -> list[tuple[str, str, bool]]:
    """The waived findings as `findingorder` reads them, a path keyed by its artifact too (a
    release set's pairs may share paths)."""
    return [(f.code.name, f"{a}\0{f.path}", f.native) for _, f, a in result.applied]


def _ordered(result: WaiverOutcome) -> list[tuple[Waiver, Finding, str]]:
    """The waived findings in the failing table's order (code, then path; all would fail), a
    W708 that its W101 implies right after that W101, as the table shows them in one row."""
    paths = implied(_named(result))

    def key(item: tuple[Waiver, Finding, str]) -> tuple[str, str, str, str]:
        _, finding, artifact = item
        joined = finding.code.name == "W708" and f"{artifact}\0{finding.path}" in paths
        return ("W101" if joined else finding.code.name, finding.path, artifact, finding.code.name)

    return sorted(result.applied, key=key)


def _counts(result: WaiverOutcome) -> str:
    parts = [f"{plural(len(result.applied), 'finding')} waived"]
    if implied(_named(result)):  # counted as the verdict counts the failing table's rows
        parts[0] += f" ({counted(_named(result))})"
    if result.expired:
        parts.append(f"{plural(len(result.expired), 'finding')} not waived (waiver expired)")
    if result.unused:
        parts.append(plural(len(result.unused), "unused waiver"))
    return ", ".join(parts)


def _unused(result: WaiverOutcome, waiver: Waiver) -> str:
    """Why the waiver covered nothing: stale, or it matched code only by its glob."""
    paths = result.globbed(waiver)
    if not paths:
        return "matched no finding (stale?)"
    more = f" (and {len(paths) - 3} more)" if len(paths) > 3 else ""
    return f"matches {', '.join(paths[:3])}{more} only by glob; code is waived by its exact path"


def _until(expires: object) -> str:
    return "" if expires is None else f" (until {expires})"
