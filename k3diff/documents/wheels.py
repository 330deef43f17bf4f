"""The `k3diff.wheels/1` document's writer (`document`, and one named function per form of the
`k3diff wheels` results; each entry's form is `wheelentries.entry_json`). Its typed reader, what
the bundle reads of it, is `documents.wheelsview`: a `--format json` run writes the document and
defines none of the reader's seven frozen classes (≈ 1.5 ms each at import)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from k3diff.documents.findings import finding_json, waivers_json
from k3diff.documents.jsondoc import json_chunks
from k3diff.documents.surfaces import sboms_json, surfaces_json
from k3diff.documents.wheelentries import entries_blocks, entry_json
from k3diff.exitcodes import ExitCode
from k3diff.ids import WHEELS as SCHEMA
from k3diff.wheels.model import KindCounts, WheelReport, WheelSide

if TYPE_CHECKING:  # built only when the identities differ, or findings are hidden
    from k3diff.wheel.metachange import MetadataChange
    from k3diff.wheels.filtered import FilteredCount

__all__ = ["PER_LINE", "chunks", "document", "kind_counts_json", "write"]

PER_LINE = ("entries", "findings")
"""The lists written one item per line."""


def _metadata_change_json(value: MetadataChange) -> dict[str, Any]:
    """JSON-ready form; list fields add `added` / `removed` lists beside the joined text."""
    data: dict[str, Any] = {"field": value.field, "base": value.base, "patch": value.patch}
    if value.added is not None and value.removed is not None:
        data["added"] = list(value.added)
        data["removed"] = list(value.removed)
    return data


def _wheel_side_json(value: WheelSide) -> dict[str, Any]:
    """JSON-ready form."""
    return {
        "path": value.path,
        "sha256": value.sha256,
        "size": value.size,
        "name": value.identity.name,
        "version": value.identity.version,
        "tags": list(value.identity.tags),
        "dist_info": value.identity.dist_info,
        "entries": value.entry_count,
        "directories": value.directory_count,
        "stated_commits": [
            {"commit": c.commit, "path": c.path, "field": c.field, "dirty": c.dirty}
            for c in value.stated_commits
        ],
        "not_commits": [
            {"value": c.value, "path": c.path, "field": c.field} for c in value.not_commits
        ],
    }


def kind_counts_json(value: KindCounts) -> dict[str, int]:
    """JSON-ready form."""
    return {
        "total": value.total,
        "identical": value.identical,
        "changed": value.changed,
        "missing": value.missing,
        "added": value.added,
    }


def _filtered_count_json(value: FilteredCount) -> dict[str, Any]:
    """JSON-ready form."""
    return {"code": value.code, "count": value.count, "would_fail": value.would_fail}


def _wheel_report_verdict_json(value: WheelReport) -> dict[str, Any]:
    verdict: dict[str, Any] = {
        "ok": value.exit_code == ExitCode.OK,
        "exit_code": int(value.exit_code),
        "different_distributions": value.different_distributions,
    }
    if value.filtered:
        verdict["filtered"] = [_filtered_count_json(count) for count in value.filtered]
    if value.unverified_streams:
        verdict["unverified_streams"] = value.unverified_streams
    if value.verified_streams:
        verdict["verified_streams"] = value.verified_streams
    return verdict


def _wheel_report_json(value: WheelReport) -> dict[str, Any]:
    """The `k3diff.wheels/1` document."""
    return _report_json(value, [entry_json(entry) for entry in value.entries])


def _report_json(value: WheelReport, entries: Iterable[Any]) -> dict[str, Any]:
    """The document with `entries` as given: their JSON forms, or their lines already encoded."""
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "base": _wheel_side_json(value.base),
        "patch": _wheel_side_json(value.patch),
        "summary": {kind.value: kind_counts_json(counts) for kind, counts in value.summary.items()},
        "metadata_changes": [_metadata_change_json(change) for change in value.metadata_changes],
        "entries": entries,
        "findings": [
            finding_json(finding, value.policy, value.artifacts) for finding in value.findings
        ],
        "verdict": _wheel_report_verdict_json(value),
    }
    waivers = value.waiver_outcome()
    if waivers is not None:
        data["waivers"] = waivers_json(waivers)
    if value.surfaces is not None:
        data["execution_surfaces"] = surfaces_json(value.surfaces)
    if value.sboms is not None:
        data["sboms"] = sboms_json(value.sboms)
    if value.provenance is not None:
        # Imported here: only a --source run has provenance to write (issue 41).
        from k3diff.documents.provenance import provenance_json

        # Per-file verdicts live on each entry's "source"; keep the run's facts here.
        provenance = provenance_json(value.provenance)
        provenance.pop("files", None)
        data["provenance"] = provenance
    if value.explain:  # absent without --explain, as documents before it was added read
        data["explain"] = True
    if value.settings is not None:  # what `report` runs `wheels` again with (forge62)
        data["rerun"] = dict(value.settings)
    return data


def document(report: WheelReport) -> dict[str, Any]:
    """The `k3diff.wheels/1` document of `report`."""
    return _wheel_report_json(report)


def chunks(report: WheelReport) -> Iterator[str]:
    """The document as JSON text, piece by piece (a release set embeds one per pair); the
    entries are encoded line by line (`wheelentries`), the same text `document` would give."""
    # Items of many lines each, joined as `json_chunks` would join their lines (the text is the
    # same), made as the writer reaches them: a block is written before the next is made.
    blocks = entries_blocks(report.entries)
    return json_chunks(_report_json(report, blocks), per_line=PER_LINE, encoded=("entries",))


def write(report: WheelReport) -> str:
    """The document as JSON text (`k3diff wheels --format json`)."""
    return "".join(chunks(report))
