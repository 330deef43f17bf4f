"""The tables of a `WheelReport`'s text and Markdown views: the per-kind summary, the entries
that differ (sorted by kind, then path) and the metadata changes, as rows for `report.wheels`'
styles to lay out, with their headers and alignments."""

from __future__ import annotations

from k3diff.wheel.kinds import EntryKind
from k3diff.wheels.model import EntryResult, WheelReport
from k3diff.wheels.proof import Status


def summary_rows(report: WheelReport) -> list[list[object]]:
    rows: list[list[object]] = []
    for kind in EntryKind:
        counts = report.summary[kind]
        rows.append(
            [
                kind.value,
                f"{counts.total:,}",
                f"{counts.identical:,}",
                f"{counts.changed:,}",
                f"{counts.missing:,}",
                f"{counts.added:,}",
            ]
        )
    return rows


SUMMARY_HEADERS = ["kind", "total", "identical", "changed", "missing", "added"]
SUMMARY_ALIGN = ("left", "right", "right", "right", "right", "right")
# words73: "base size" and "patch size" printed numbers without their unit
ENTRY_HEADERS = ["path", "kind", "status", "how", "base bytes", "patch bytes", "lines"]
ENTRY_ALIGN = ("left", "left", "left", "left", "right", "right", "left")
_KIND_ORDER = {kind: index for index, kind in enumerate(EntryKind)}


def differing_entries(report: WheelReport) -> list[EntryResult]:
    entries = [e for e in report.notable if e.status is not Status.IDENTICAL]
    return sorted(entries, key=lambda e: (_KIND_ORDER[e.kind], e.path))


def entry_rows(entries: list[EntryResult]) -> list[list[object]]:
    rows: list[list[object]] = []
    for entry in entries:
        lines = _lines_cell(entry)
        if entry.base_path and entry.patch_path and entry.base_path != entry.patch_path:
            path = f"{entry.patch_path} (was {entry.base_path})"
        else:
            path = entry.path
        rows.append(
            [
                path,
                entry.kind.value,
                f"{entry.status.value} (moved)" if entry.moved else entry.status.value,
                entry.how.value,
                _size(entry.base_size),
                _size(entry.patch_size),
                lines,
            ]
        )
    return rows


def _lines_cell(entry: EntryResult) -> str:
    """The diff's line counts, and the mode change when pip installs the sides differently."""
    change = entry.mode_change
    mode = change.summary() if change is not None and change.installed else ""
    if entry.diff is None:
        return mode
    if entry.diff.binary is not None:
        lines = "binary"
    elif entry.diff.line_endings_only:
        lines = "line endings only"
    else:
        lines = f"+{entry.diff.added} -{entry.diff.removed}"
    return f"{lines}; {mode}" if mode else lines


def metadata_rows(report: WheelReport) -> list[list[object]]:
    """One row per scalar change; list fields (requirements, tags) as a -/+ set diff, one
    item per row, instead of the whole joined list on each side."""
    rows: list[list[object]] = []
    for change in report.metadata_changes:
        if change.added is None or change.removed is None:
            rows.append([change.field, change.base, change.patch])
            continue
        rows.extend([change.field, f"- {item}", ""] for item in change.removed)
        rows.extend([change.field, "", f"+ {item}"] for item in change.added)
        if not change.added and not change.removed:
            rows.append([change.field, "(same items, other order)", ""])
    return rows


def _size(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"
