"""Render a `WheelSetReport` (`k3diff wheels BASE_DIR PATCH_DIR`) as text, Markdown or the
`k3diff.wheelset/1` JSON document.

Text and Markdown: one summary row per pair, the wheels on one side only, the files that are not
wheels, then the full `k3diff wheels` report of every pair where anything differs, and the set's
verdict last. JSON holds each pair's full `k3diff.wheels/1` document.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, assert_never

from k3diff import jsontext
from k3diff.documents.ids import WHEELSET as SCHEMA
from k3diff.exitcodes import ExitCode
from k3diff.output import OutputFormat, plural
from k3diff.report import escape
from k3diff.report import wheels as wheels_report
from k3diff.report.json_wheels import to_json
from k3diff.report.jsondoc import json_chunks
from k3diff.report.markdown import cell, escape_inline, inline_code, markdown_cell
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.tags import compress
from k3diff.wheels.model import WheelReport
from k3diff.wheels.proof import Status
from k3diff.wheels.releaseset import IgnoredFile, PairResult, SetWheel, WheelSetReport


def render(report: WheelSetReport, fmt: OutputFormat) -> str:
    """The report in the chosen format."""
    return "".join(render_chunks(report, fmt))


def render_chunks(report: WheelSetReport, fmt: OutputFormat) -> Iterator[str]:
    """The report piece by piece (a release set's JSON holds every entry of every pair)."""
    if fmt is OutputFormat.JSON:
        yield from _json_chunks(report)
        return
    if fmt is OutputFormat.TEXT or fmt is OutputFormat.MARKDOWN:
        markdown = fmt is OutputFormat.MARKDOWN
    else:
        assert_never(fmt)
    sections = [_header(report, markdown), _rows_section(report, markdown)]
    sections.append(_unpaired_section(report, markdown))
    sections.append(_ignored_section(report, markdown))
    sections.extend(_pair_details(pair, fmt) for pair in report.pairs if _differs(pair.report))
    sections.append(_verdict_line(report, markdown))
    yield "\n\n".join(section.rstrip("\n") for section in sections if section) + "\n"


def _failing_codes(report: WheelReport) -> list[str]:
    return sorted({f.code.name for f in report.failing})


def _differs(report: WheelReport) -> bool:
    return bool(report.findings or report.metadata_changes) or any(
        entry.status is not Status.IDENTICAL for entry in report.entries
    )


def _verdict_word(report: WheelReport) -> str:
    return "OK" if report.exit_code == ExitCode.OK else "FAIL"


def _kind_cell(report: WheelReport, kind: EntryKind) -> str:
    counts = report.summary[kind]
    if counts.total == 0:
        return "-"
    parts = [
        f"{value} {label}"
        for value, label in (
            (counts.changed, "changed"),
            (counts.missing, "missing"),
            (counts.added, "added"),
        )
        if value
    ]
    return ", ".join(parts) if parts else f"{counts.identical} same"


_ROW_HEADERS = ["base", "patch", "verdict", *(k.value for k in EntryKind), "failing findings"]


def _row(pair: PairResult, markdown: bool) -> list[str]:
    names = [pair.base.path.name, pair.patch.path.name]
    if markdown:
        names = [inline_code(name) for name in names]
    else:
        names = [escape.text(name) for name in names]
    codes = ", ".join(_failing_codes(pair.report)) or "-"
    verdict = f"{_verdict_word(pair.report)} (exit {int(pair.report.exit_code)})"
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


def _ignored_section(report: WheelSetReport, markdown: bool) -> str:
    ignored = [*report.base.ignored, *report.patch.ignored]
    if not ignored:
        return ""
    lines = "\n".join(_ignored_line(item, markdown) for item in ignored)
    return _section(f"Ignored files ({len(ignored)}, not wheels)", lines, markdown)


def _pair_details(pair: PairResult, fmt: OutputFormat) -> str:
    body = wheels_report.render(pair.report, fmt).rstrip("\n")
    title = f"{pair.base.path.name} → {pair.patch.path.name}: {_verdict_word(pair.report)}"
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
    if report.failures:
        return f"Verdict: FAIL (exit {code}): {'; '.join(report.failures)} ({counts})"
    allowed = " (allowed)" if report.unpaired else ""
    return f"Verdict: OK (exit {code}): every pair passes ({counts}{allowed})"


def _verdict_line(report: WheelSetReport, markdown: bool) -> str:
    text = verdict_text(report)
    return f"**{text}**" if markdown else text


def _wheel_json(wheel: SetWheel) -> dict[str, Any]:
    """`sha256` appears for an unpaired wheel (a paired one's is in its pair's document)."""
    data: dict[str, Any] = {
        "path": str(wheel.path),
        "name": wheel.name,
        "version": wheel.version,
        "tags": sorted(wheel.tags),
    }
    if wheel.sha256 is not None:
        data["sha256"] = wheel.sha256
    return data


def pair_row(pair: PairResult) -> dict[str, Any]:
    """The summary row of one pair (JSON form, without its full document)."""
    report = pair.report
    return {
        "base": str(pair.base.path),
        "patch": str(pair.patch.path),
        "verdict": _verdict_word(report),
        "exit_code": int(report.exit_code),
        "counts": {kind.value: to_json(counts) for kind, counts in report.summary.items()},
        "failing_codes": _failing_codes(report),
    }


def _pair_json(pair: PairResult) -> str:
    """One pair as compact-ish JSON: the row's fields, then `wheels` with its entries one per
    line (the same layout as a `k3diff.wheels/1` file, indented one level)."""
    row = jsontext.dumps(pair_row(pair), indent=2)[:-2]  # drop the closing "\n}"
    document = "".join(json_chunks(to_json(pair.report), per_line=("entries", "findings")))
    inner = document.rstrip("\n").replace("\n", "\n  ")
    return f'{row},\n  "wheels": {inner}\n}}'.replace("\n", "\n    ")


def _json_chunks(report: WheelSetReport) -> Iterator[str]:
    ignored = [*report.base.ignored, *report.patch.ignored]
    document: dict[str, Any] = {
        "schema": SCHEMA,
        "base": {"inputs": [str(p) for p in report.base.inputs], "wheels": len(report.base.wheels)},
        "patch": {
            "inputs": [str(p) for p in report.patch.inputs],
            "wheels": len(report.patch.wheels),
        },
        "summary": {
            "pairs": len(report.pairs),
            "failing_pairs": len(report.failing_pairs),
            "only_base": len(report.only_base),
            "only_patch": len(report.only_patch),
            "ignored": len(ignored),
        },
        "pairs": [_pair_json(pair) for pair in report.pairs],
        "only_base": [_wheel_json(w) for w in report.only_base],
        "only_patch": [_wheel_json(w) for w in report.only_patch],
        "ignored": [
            {"side": str(i.side), "path": str(i.path), "reason": i.reason} for i in ignored
        ],
        "verdict": {
            "ok": report.exit_code == ExitCode.OK,
            "exit_code": int(report.exit_code),
            "failures": list(report.failures),
            "failing_pairs": [str(p.patch.path) for p in report.failing_pairs],
            "unpaired": report.unpaired,
            "allow_unpaired": report.allow_unpaired,
        },
    }
    yield from json_chunks(document, per_line=(), encoded=("pairs",))
