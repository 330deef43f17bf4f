"""Render a `WheelSetReport` (`k3diff wheels BASE_DIR PATCH_DIR`) as text, Markdown or the
`k3diff.wheelset/1` JSON document.

Text and Markdown: one summary row per pair, the wheels on one side only, the misnamed `.whl`
files, the files that are not wheels, then the full `k3diff wheels` report of every pair where anything differs, and the set's
verdict last. JSON holds each pair's full `k3diff.wheels/1` document.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import assert_never

from k3diff import escape
from k3diff.documents import wheelset as wheelset_document
from k3diff.output import OutputFormat, plural
from k3diff.report import waived
from k3diff.report import wheels as wheels_report
from k3diff.report.markdown import cell, escape_inline, inline_code, markdown_cell
from k3diff.report.policyclauses import set_policy_clauses
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.tags import compress
from k3diff.wheel.waivers import WaiverOutcome, merged
from k3diff.wheels.model import WheelReport
from k3diff.wheels.releaseset import IgnoredFile, PairResult, SetWheel, WheelSetReport


def render(report: WheelSetReport, fmt: OutputFormat) -> str:
    """The report in the chosen format."""
    return "".join(render_chunks(report, fmt))


def render_chunks(report: WheelSetReport, fmt: OutputFormat) -> Iterator[str]:
    """The report piece by piece (a release set's JSON holds every entry of every pair)."""
    if fmt is OutputFormat.JSON:
        yield from wheelset_document.chunks(report)
        return
    if fmt is OutputFormat.TEXT or fmt is OutputFormat.MARKDOWN:
        markdown = fmt is OutputFormat.MARKDOWN
    else:
        assert_never(fmt)
    sections = [_header(report, markdown), _rows_section(report, markdown)]
    sections.append(_unpaired_section(report, markdown))
    sections.append(_misnamed_section(report, markdown))
    sections.append(_ignored_section(report, markdown))
    sections.extend(
        _pair_details(pair, fmt, _left(report, pair))
        for pair in report.pairs
        if _differs(pair.report)
    )
    sections.append(waived.section(set_waivers(report), markdown))
    sections.append(_verdict_line(report, markdown))
    yield "\n\n".join(section.rstrip("\n") for section in sections if section) + "\n"


def _differs(report: WheelReport) -> bool:
    """Whether the pair has findings, metadata changes or any entry not identical (read from
    the summary's counts: a pair's raw-identical runs are never built into results here)."""
    return bool(report.findings or report.metadata_changes) or any(
        counts.changed or counts.missing or counts.added for counts in report.summary.values()
    )


def _kind_cell(report: WheelReport, kind: EntryKind) -> str:
    counts = report.summary[kind]
    if counts.total == 0:
        return "-"
    parts = [
        f"{value:,} {label}"
        for value, label in (
            (counts.changed, "changed"),
            (counts.missing, "missing"),
            (counts.added, "added"),
        )
        if value
    ]
    return ", ".join(parts) if parts else f"{counts.identical:,} same"


_ROW_HEADERS = ["base", "patch", "verdict", *(k.value for k in EntryKind), "failing findings"]


def _row(pair: PairResult, markdown: bool) -> list[str]:
    names = [pair.base.path.name, pair.patch.path.name]
    if markdown:
        names = [inline_code(name) for name in names]
    else:
        names = [escape.text(name) for name in names]
    codes = ", ".join(wheelset_document.failing_codes(pair.report)) or "-"
    verdict = f"{wheelset_document.verdict_word(pair.report)} (exit {int(pair.report.exit_code)})"
    kinds = [_kind_cell(pair.report, kind) for kind in EntryKind]
    return [*names, verdict, *kinds, codes]


def _table(rows: Sequence[Sequence[str]], headers: list[str], markdown: bool) -> str:
    from tabulate import tabulate  # not needed (nor imported) for JSON reports

    if markdown:
        rows = [[markdown_cell(value) for value in row] for row in rows]
    else:
        rows = [[escape.text(value) for value in row] for row in rows]
    return tabulate(
        rows,
        headers=headers,
        tablefmt="github" if markdown else "simple",
        disable_numparse=True,
    )


def _section(title: str, body: str, markdown: bool) -> str:
    return f"### {title}\n\n{body}" if markdown else f"{title}\n{body}"


def _inputs(report: WheelSetReport) -> tuple[str, str]:
    return tuple(  # type: ignore[return-value]
        ", ".join(str(p) for p in side.inputs) + f" ({plural(len(side.wheels), 'wheel')})"
        for side in (report.base, report.patch)
    )


def _header(report: WheelSetReport, markdown: bool) -> str:
    base, patch = _inputs(report)
    if markdown:
        return f"## k3diff wheels: release set\n\n- base: {cell(base)}\n- patch: {cell(patch)}"
    return f"base : {escape.text(base)}\npatch: {escape.text(patch)}"


def _rows_section(report: WheelSetReport, markdown: bool) -> str:
    if not report.pairs:
        return _section("Pairs", "None: no wheel has a counterpart on the other side.", markdown)
    rows = [_row(pair, markdown) for pair in report.pairs]
    title = f"Pairs ({len(report.pairs)})"
    return _section(title, _table(rows, _ROW_HEADERS, markdown), markdown)


def _wheel_line(wheel: SetWheel, markdown: bool) -> str:
    tags = compress(wheel.tags)
    name = inline_code(str(wheel.path)) if markdown else str(wheel.path)
    digest = f", sha256 {wheel.sha256}" if wheel.sha256 is not None else ""
    if markdown:
        return f"- {name} ({escape_inline(f'{wheel.name} {wheel.version}, {tags}{digest}')})"
    return escape.text(f"- {name} ({wheel.name} {wheel.version}, {tags}{digest})")


def _unpaired_section(report: WheelSetReport, markdown: bool) -> str:
    if not report.unpaired:
        return ""
    blocks = []
    for label, wheels in (("base", report.only_base), ("patch", report.only_patch)):
        if wheels:
            lines = [_wheel_line(wheel, markdown) for wheel in wheels]
            blocks.append("\n".join([f"Only in {label}:", *lines]))
    note = (
        "accepted by --allow-unpaired"
        if report.allow_unpaired
        else "not compared, so they fail the run (--allow-unpaired accepts them)"
    )
    title = f"Unpaired wheels ({report.unpaired}): {note}"
    return _section(title, "\n\n".join(blocks), markdown)


def _ignored_line(item: IgnoredFile, markdown: bool) -> str:
    name = inline_code(str(item.path)) if markdown else str(item.path)
    if markdown:
        return f"- {name} ({item.side}: {escape_inline(item.reason)})"
    return escape.text(f"- {name} ({item.side}: {item.reason})")


def _misnamed_section(report: WheelSetReport, markdown: bool) -> str:
    if not report.misnamed:
        return ""
    lines = "\n".join(_ignored_line(item, markdown) for item in report.misnamed)
    title = (
        f"Misnamed .whl files ({len(report.misnamed)}): pip or PyPI refuses these names, so "
        "they fail the set (audit: A126)"
    )
    return _section(title, lines, markdown)


def _ignored_section(report: WheelSetReport, markdown: bool) -> str:
    ignored = [*report.base.ignored, *report.patch.ignored]
    if not ignored:
        return ""
    lines = "\n".join(_ignored_line(item, markdown) for item in ignored)
    return _section(f"Ignored files ({len(ignored)}, not wheels)", lines, markdown)


def _left(report: WheelSetReport, pair: PairResult) -> list[str]:
    """What the set still fails on, run with `--allow-native-changes`, once `pair` passes
    (`wheelfailing.set_left`): the option relaxes every pair of the run. Nothing for a pair
    that passes (no next steps); `wheelfailing` loads only for one that fails."""
    if not pair.report.failing:
        return []
    from k3diff.report import stepwords, wheelfailing

    others = sum(
        1
        for p in report.pairs
        if p is not pair and wheelfailing.still_failing(stepwords.named(p.report.failing))
    )
    unpaired = 0 if report.allow_unpaired else report.unpaired
    return wheelfailing.set_left(unpaired, len(report.misnamed), others)


def _pair_details(pair: PairResult, fmt: OutputFormat, left: Sequence[str]) -> str:
    body = wheels_report.render(pair.report, fmt, in_set=left).rstrip("\n")
    title = f"{pair.base.path.name} → {pair.patch.path.name}: {wheelset_document.verdict_word(pair.report)}"
    if fmt is OutputFormat.MARKDOWN:
        return f"<details><summary>{escape_inline(title)}</summary>\n\n{body}\n\n</details>"
    rule = "=" * min(100, len(title))
    return f"{rule}\n{escape.text(title)}\n{rule}\n{body}"


def verdict_text(report: WheelSetReport) -> str:
    """The set's one-line verdict."""
    code = int(report.exit_code)
    counts = (
        f"{plural(len(report.pairs), 'pair')}, {len(report.failing_pairs)} failing, "
        f"{report.unpaired} unpaired"
    )
    waivers = set_waivers(report)
    clause = escape.text(waivers.verdict_clause()) if waivers else ""  # reasons are input
    clause = wheels_report.unverified_clause(report.unverified_streams) + clause
    clause += set_policy_clauses(pair.report for pair in report.pairs)
    if report.failures:
        return f"Verdict: FAIL (exit {code}): {'; '.join(report.failures)} ({counts}){clause}"
    allowed = " (allowed)" if report.unpaired else ""
    return f"Verdict: OK (exit {code}): every pair passes ({counts}{allowed}){clause}"


def set_waivers(report: WheelSetReport) -> WaiverOutcome | None:
    """What `--waivers` did across every pair (a waiver is unused only if no pair used it)."""
    return merged(pair.report.waiver_outcome() for pair in report.pairs)


def _verdict_line(report: WheelSetReport, markdown: bool) -> str:
    text = verdict_text(report)
    return f"**{escape.markdown(text)}**" if markdown else text
