"""Render a `WheelReport` as text, JSON or Markdown."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import assert_never

from k3diff import escape
from k3diff.output import OutputFormat, plural
from k3diff.report.entries import entries_phrase
from k3diff.report.markdown import capped_lines, cell, escape_inline, fenced, inline_code
from k3diff.report.policyclauses import policy_clauses
from k3diff.report.wheelsections import DIFF_LINES, DIFFS_SHOWN, EXTRA_SECTIONS
from k3diff.report.wheeltables import (
    ENTRY_ALIGN,
    ENTRY_HEADERS,
    SUMMARY_ALIGN,
    SUMMARY_HEADERS,
    differing_entries,
    entry_rows,
    metadata_rows,
    summary_rows,
)
from k3diff.wheel.codes import Finding
from k3diff.wheels.model import EntryResult, WheelReport, WheelSide
from k3diff.wheels.proof import Status


def render(report: WheelReport, fmt: OutputFormat, in_set: Sequence[str] | None = None) -> str:
    """The report in the chosen format; `in_set`: one pair of a release set (what else the set
    still fails on with `--allow-native-changes`: `wheelfailing.set_left`), whose waivers
    section names no unused waiver (another pair may use it: the set's section says) and whose
    next steps say what remains for the set."""
    if fmt is OutputFormat.JSON:
        from k3diff.documents import wheels  # JSON only

        return wheels.write(report)
    if fmt is OutputFormat.TEXT or fmt is OutputFormat.MARKDOWN:
        sections = _sections(report, _Style(fmt), in_set)
    else:
        assert_never(fmt)
    text = verdict_text(report, pair=in_set is not None)  # a pair's line has no exit code
    sections.append(f"**{escape.markdown(text)}**" if fmt is OutputFormat.MARKDOWN else text)
    return "\n\n".join(section.rstrip("\n") for section in sections if section) + "\n"


def render_chunks(report: WheelReport, fmt: OutputFormat) -> Iterable[str]:
    """`render` piece by piece: the JSON document is never joined whole (torch's is 7 MB)."""
    if fmt is OutputFormat.JSON:
        from k3diff.documents import wheels

        return wheels.chunks(report)
    return (render(report, fmt),)


def _side_line(label: str, side: WheelSide) -> str:
    identity = side.identity
    who = f"{identity.name or '?'} {identity.version or '?'}"
    digest = f"sha256 {side.sha256[:16]}…" if side.sha256 else "sha256 not computed"
    line = f"{label}: {side.path} ({who}, {entries_phrase(side.entry_count, side.directory_count)}, {digest})"
    stated = [f"  states commit {commit.describe()}" for commit in side.stated_commits]
    stated += [f"  states {value.describe()}" for value in side.not_commits]
    return "\n".join(escape.text(text) for text in (line, *stated))


def _recompressed_note(report: WheelReport) -> str:
    count = sum(1 for e in report.notable if e.recompressed)
    if not count:
        return ""
    return (
        f"{count:,} identical {'entry was' if count == 1 else 'entries were'} stored with different compressed bytes "
        "(recompressed); their content was inflated and compared byte for byte."
    )


def _streams(count: int) -> str:
    """`1 identical stream`, `12,235 identical streams`: thousands separated like the report."""
    return f"{count:,} identical stream{'' if count == 1 else 's'}"


def unverified_note(count: int) -> str:
    """The line every report gives when `--no-file-hash` left streams of raw-identical pairs
    unchecked ("" when it left none): their verdict rests on equal compressed bytes alone."""
    if not count:
        return ""
    entries = f"{count:,} identical entr{'y' if count == 1 else 'ies'}"
    return (
        f"{entries} compared by their compressed bytes only: their streams' CRC-32 and size "
        "were not checked (--no-file-hash); run without it to verify them."
    )


def verified_note(count: int) -> str:
    """The line the default report gives for the streams of raw-identical pairs it read to
    their ends and found sound ("" when there were none): the check is said, not assumed."""
    if not count:
        return ""
    return (
        f"{_streams(count)} CRC-32-checked: both wheels carry the same compressed bytes, read "
        "to their end on one side with their CRC-32 and size."
    )


def unverified_clause(count: int) -> str:
    """What the verdict line adds when `--no-file-hash` left streams unchecked ("" when none),
    so the line that decides says what it did not check."""
    if not count:
        return ""
    return f"; {_streams(count)} not CRC-checked (--no-file-hash)"


def _moved_note(report: WheelReport) -> str:
    moved = [e for e in report.notable if e.moved and e.status is Status.IDENTICAL]
    if not moved:
        return ""
    return (
        f"{plural(len(moved), 'entry', 'entries')} moved between the archive root and "
        "`.data/` and install an identical file to the same path (identical, moved)."
    )


def _capped_diff(unified: str) -> str:
    """The first `DIFF_LINES` lines of a diff, split on newlines only, each line's control
    characters escaped (a lone carriage return or `ESC[2K` cannot hide an added line)."""
    lines, note = capped_lines(escape.text_lines(unified.rstrip("\n")), DIFF_LINES)
    return "\n".join([*lines, *([note] if note else [])])


def _diffed(report: WheelReport) -> list[EntryResult]:
    return [e for e in differing_entries(report) if e.diff is not None and e.diff.unified]


def _failing(report: WheelReport) -> list[Finding]:
    return list(report.failing)


def _informational_counts(report: WheelReport) -> str:
    """'Informational findings: 1 × W201 (Python file changed), ...': each code with its short
    name (its message), so the line reads without the findings table; counted as the verdict
    line and the next steps count (words73: `W201 × 3` beside the verdict's `1 × W101`)."""
    counts = Counter(f.code for f in report.findings if not report.policy.fails(f.code, f.native))
    if not counts:
        return ""
    parts = ", ".join(
        f"{count} × {code.name} ({code.message})"  # as the verdict and the steps count
        for code, count in sorted(counts.items(), key=lambda item: item[0].name)
    )
    return f"Informational findings: {parts} (all listed in --format json)."


class _Style:
    """What differs between the text and the Markdown views: headings, tables, diffs. A plain
    class, not a frozen dataclass: it is never compared or hashed, and a dataclass costs every
    run (JSON ones too, which never build one) ≈ 1 ms to define."""

    __slots__ = ("fmt",)

    def __init__(self, fmt: OutputFormat) -> None:
        self.fmt = fmt

    def section(self, title: str, body: str) -> str:
        heading = f"### {title}\n\n" if self.fmt is OutputFormat.MARKDOWN else f"{title}\n"
        return heading + body

    def table(
        self,
        rows: Sequence[Sequence[object]],
        headers: list[str],
        align: tuple[str, ...] | None = None,
    ) -> str:
        markdown = self.fmt is OutputFormat.MARKDOWN
        escaped = [[cell(str(v)) if markdown else escape.text(str(v)) for v in row] for row in rows]
        from tabulate import tabulate  # not needed (nor imported) for JSON reports

        return tabulate(
            escaped,
            headers=headers,
            colalign=align,
            tablefmt="github" if markdown else "simple",
            disable_numparse=True,
        )


def _sections(report: WheelReport, style: _Style, in_set: Sequence[str] | None = None) -> list[str]:
    markdown = style.fmt is OutputFormat.MARKDOWN
    sections = [
        _markdown_header(report) if markdown else _text_header(report),
        _distributions_headline(report, markdown),
        style.section(  # words73: "Summary" did not say what the totals count
            "Entries by kind",
            style.table(summary_rows(report), SUMMARY_HEADERS, SUMMARY_ALIGN),
        ),
    ]
    if report.metadata_changes:
        rows = metadata_rows(report)
        sections.append(
            style.section("Metadata changes", style.table(rows, ["field", "base", "patch"]))
        )
    differing = differing_entries(report)
    if differing:
        table = style.table(entry_rows(differing), ENTRY_HEADERS, ENTRY_ALIGN)
        title = f"Differences ({plural(len(differing), 'entry')})"
        sections.append(style.section(title, table))
    else:
        sections.append(style.section("Differences", "None: every entry is identical."))
    sections.append(_recompressed_note(report))
    sections.append(_moved_note(report))
    sections.append(unverified_note(report.unverified_streams))
    sections.append(verified_note(report.verified_streams))
    sections.append(_markdown_diffs(report) if markdown else _text_diffs(report))
    sections.extend(extra(report, style.fmt) for extra in EXTRA_SECTIONS)
    failing = _failing(report)
    if failing:  # the table and what to do: their module loads only then
        from k3diff.report import wheelfailing

        found = wheelfailing.finding_rows(failing)
        table = style.table(found, wheelfailing.FINDING_HEADERS)
        sections.append(style.section(f"Failing findings ({len(found)})", table))
    sections.append(_informational_counts(report))
    outcome = report.waiver_outcome()
    if outcome is not None:  # --waivers: the section's module loads only then
        from k3diff.report import waived

        sections.append(waived.section(outcome, markdown, unused=in_set is None))
    if failing:  # last before the verdict: what the reviewer can do about it
        sections.append(wheelfailing.next_steps(report, failing, style.fmt, in_set))
    return sections


def _distributions_headline(report: WheelReport, markdown: bool) -> str:
    if not report.different_distributions:
        return ""
    text = (
        f"Different distributions: base is {report.base.identity.name}, patch is "
        f"{report.patch.identity.name} (W606): these are not two builds of one project."
    )
    return f"**{escape_inline(text)}**" if markdown else escape.text(text)


def _text_header(report: WheelReport) -> str:
    return "\n".join([_side_line("base ", report.base), _side_line("patch", report.patch)])


def _text_diffs(report: WheelReport) -> str:
    diffed = _diffed(report)
    if not diffed:
        return ""
    blocks = [_capped_diff(e.diff.unified) for e in diffed[:DIFFS_SHOWN] if e.diff]
    if len(diffed) > DIFFS_SHOWN:
        blocks.append(f"… {plural(len(diffed) - DIFFS_SHOWN, 'more diff')}, see --format json")
    return "\n\n".join(blocks)


def _markdown_header(report: WheelReport) -> str:
    return "\n".join(
        [
            "## k3diff wheels",
            "",
            "| | path | name | version | entries | sha256 |",
            "|---|---|---|---|---|---|",
            _markdown_side_row("base", report.base),
            _markdown_side_row("patch", report.patch),
            *_markdown_stated(report),
        ]
    )


def _markdown_stated(report: WheelReport) -> list[str]:
    """One line per commit a wheel states it was built from (and per value in a commit's place
    that is none), after the table."""
    lines = [
        f"{label} states {escape_inline(said)}  "
        for label, side in (("base", report.base), ("patch", report.patch))
        for said in (*(f"commit {c.describe()}" for c in side.stated_commits),
                     *(value.describe() for value in side.not_commits))
    ]  # fmt: skip
    return ["", *lines] if lines else []


def _markdown_side_row(label: str, side: WheelSide) -> str:
    identity = side.identity
    return (
        f"| {label} | {inline_code(side.path)} | {cell(identity.name or '?')} "
        f"| {cell(identity.version or '?')} "
        f"| {entries_phrase(side.entry_count, side.directory_count, noun=False)} | {f'`{side.sha256}`' if side.sha256 else 'not computed'} |"
    )


def _markdown_diffs(report: WheelReport) -> str:
    diffed = _diffed(report)
    if not diffed:
        return ""
    import html  # only a Markdown report with diffs escapes HTML

    blocks = ["### Diffs"]
    for entry in diffed[:DIFFS_SHOWN]:
        assert entry.diff is not None
        blocks.append(
            f"<details><summary><code>{html.escape(escape.text(entry.path))}</code> "
            f"(+{entry.diff.added} -{entry.diff.removed})</summary>\n\n"
            f"{fenced(_capped_diff(entry.diff.unified), 'diff')}\n\n</details>"
        )
    if len(diffed) > DIFFS_SHOWN:
        blocks.append(f"… {plural(len(diffed) - DIFFS_SHOWN, 'more diff')}, see `--format json`.")
    return "\n\n".join(blocks)


def verdict_text(report: WheelReport, pair: bool = False) -> str:
    """The one-line verdict, with what `--allow-*` let pass and `--select`/`--ignore` left out;
    `pair`: one pair of a release set, `pair: OK` with no exit code (the set's line has it)."""
    failing = _failing(report)
    said = "pair: {}" if pair else f"Verdict: {{}} (exit {int(report.exit_code)})"
    if failing:
        from k3diff.report.wheelfailing import verdict_counts

        text = f"{said.format('FAIL')}: {verdict_counts(failing)}"
    else:
        text = f"{said.format('OK')}: nothing fails the policy"
    waivers = report.waiver_outcome()
    clause = escape.text(waivers.verdict_clause()) if waivers else ""  # reasons are input
    tail = unverified_clause(report.unverified_streams) + clause + policy_clauses(report)
    return text + tail
