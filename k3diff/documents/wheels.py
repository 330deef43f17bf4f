"""The `k3diff.wheels/1` document: the JSON forms of the `k3diff wheels` results, registered
with `to_json`, and its writer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import k3diff.documents.native
import k3diff.documents.surfaces  # noqa: F401 (registers the execution-surface forms)
from k3diff.documents.findings import finding_json
from k3diff.documents.ids import WHEELS as SCHEMA
from k3diff.documents.jsonable import to_json
from k3diff.documents.jsondoc import json_chunks, json_document
from k3diff.exitcodes import ExitCode
from k3diff.provenance.check import FileSource, ProvenanceReport
from k3diff.textdiff import TextDiff
from k3diff.wheel.metadata import MetadataChange
from k3diff.wheel.modes import show_mode
from k3diff.wheels.model import (
    EntryResult,
    FilteredCount,
    KindCounts,
    WheelReport,
    WheelSide,
)

__all__ = ["PER_LINE", "chunks", "document", "to_json", "write"]

PER_LINE = ("entries", "findings")
"""The lists written one item per line."""


def _crc(value: int | None) -> str | None:
    return None if value is None else f"{value:08x}"


@to_json.register
def _text_diff_json(value: TextDiff) -> dict[str, Any]:
    """JSON-ready form (`line_endings_only` appears only when true, `binary` only when set)."""
    data: dict[str, Any] = {
        "added": value.added,
        "removed": value.removed,
        "unified": value.unified,
    }
    if value.line_endings_only:
        data["line_endings_only"] = True
    if value.binary is not None:
        data["binary"] = value.binary
    return data


@to_json.register
def _metadata_change_json(value: MetadataChange) -> dict[str, Any]:
    """JSON-ready form; list fields add `added` / `removed` lists beside the joined text."""
    data: dict[str, Any] = {"field": value.field, "base": value.base, "patch": value.patch}
    if value.added is not None and value.removed is not None:
        data["added"] = list(value.added)
        data["removed"] = list(value.removed)
    return data


@to_json.register
def _file_source_json(value: FileSource) -> dict[str, Any]:
    """Plain JSON-ready data."""
    return {
        "path": value.path,
        "repo_path": value.repo_path,
        "status": value.status.value,
        "wheel_blob": value.wheel_blob,
        "repo_blob": value.repo_blob,
        "matched_commit": value.matched_commit,
        "diff": value.diff,
        "added": value.added,
        "removed": value.removed,
        "diff_skipped": value.diff_skipped,
    }


@to_json.register
def _provenance_report_json(value: ProvenanceReport) -> dict[str, Any]:
    """Plain JSON-ready data."""
    return {
        "repo": value.repo,
        "rev": value.rev,
        "range": value.range,
        "commit": value.commit,
        "old_commit": value.old_commit,
        "object_format": value.object_format,
        "prefix": value.prefix,
        "prefix_detected": value.prefix_detected,
        "commits_examined": value.commits_examined,
        "revisions": [
            {
                "given": r.given,
                "commit": r.commit,
                "ref": r.ref,
                "ref_target": r.ref_target,
                "ref_target_type": r.ref_target_type,
            }
            for r in value.revisions
        ],
        "notes": [{"code": note.code, "message": note.message} for note in value.notes],
        "summary": value.counts(),
        "files": [to_json(entry) for entry in value.files],
    }


@to_json.register
def _entry_result_json(value: EntryResult) -> dict[str, Any]:
    """JSON-ready form; `diff`, `source`, `native`, `corrupt` and `patch_digest` appear only
    when known, `base_mode` / `patch_mode` only when the two entries' unix modes differ."""
    data: dict[str, Any] = {
        "path": value.path,
        "base_path": value.base_path,
        "patch_path": value.patch_path,
        "kind": value.kind.value,
        "status": value.status.value,
        "how": value.how.value,
        "recompressed": value.recompressed,
        "base_size": value.base_size,
        "patch_size": value.patch_size,
        "base_crc32": _crc(value.base_crc32),
        "patch_crc32": _crc(value.patch_crc32),
        "installed_path": value.installed_path,
        "base_installed_path": value.base_installed_path,
        "moved": value.moved,
    }
    if value.diff is not None:
        data["diff"] = to_json(value.diff)
    if value.source is not None:
        data["source"] = to_json(value.source)
    if value.native is not None:
        data["native"] = to_json(value.native)
    if value.corrupt is not None:
        data["corrupt"] = value.corrupt
    if value.patch_digest is not None:
        data["patch_digest"] = value.patch_digest
    if value.mode_change is not None:  # octal text, as `stat` writes a mode
        data["base_mode"] = show_mode(value.mode_change.base)
        data["patch_mode"] = show_mode(value.mode_change.patch)
    return data


@to_json.register
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
    }


@to_json.register
def _kind_counts_json(value: KindCounts) -> dict[str, int]:
    """JSON-ready form."""
    return {
        "total": value.total,
        "identical": value.identical,
        "changed": value.changed,
        "missing": value.missing,
        "added": value.added,
    }


@to_json.register
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
        verdict["filtered"] = [to_json(count) for count in value.filtered]
    return verdict


@to_json.register
def _wheel_report_json(value: WheelReport) -> dict[str, Any]:
    """The `k3diff.wheels/1` document."""
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "base": to_json(value.base),
        "patch": to_json(value.patch),
        "summary": {kind.value: to_json(counts) for kind, counts in value.summary.items()},
        "metadata_changes": [to_json(change) for change in value.metadata_changes],
        "entries": [to_json(entry) for entry in value.entries],
        "findings": [finding_json(finding, value.policy) for finding in value.findings],
        "verdict": _wheel_report_verdict_json(value),
    }
    if value.surfaces is not None:
        data["execution_surfaces"] = to_json(value.surfaces)
    if value.sboms is not None:
        data["sboms"] = to_json(value.sboms)
    if value.provenance is not None:
        # Per-file verdicts live on each entry's "source"; keep the run's facts here.
        provenance = to_json(value.provenance)
        provenance.pop("files", None)
        data["provenance"] = provenance
    return data


def document(report: WheelReport) -> dict[str, Any]:
    """The `k3diff.wheels/1` document of `report`."""
    data: dict[str, Any] = to_json(report)
    return data


def chunks(report: WheelReport) -> Iterator[str]:
    """The document as JSON text, piece by piece (a release set embeds one per pair)."""
    return json_chunks(document(report), per_line=PER_LINE)


def write(report: WheelReport) -> str:
    """The document as JSON text (`k3diff wheels --format json`)."""
    return json_document(document(report), per_line=PER_LINE)
