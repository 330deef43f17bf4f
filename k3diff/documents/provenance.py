"""JSON forms of the source check (`k3diff wheels --source`): each entry's `source` and the
document's `provenance`, one named function per form."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: a report without --source loads no source check
    from k3diff.provenance.check import FileSource, ProvenanceReport

__all__ = ["file_source_json", "provenance_json"]


def file_source_json(value: FileSource) -> dict[str, Any]:
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
        "generated_by": value.generated_by,
    }


def provenance_json(value: ProvenanceReport) -> dict[str, Any]:
    """Plain JSON-ready data."""
    return {
        "repo": value.repo,
        "rev": value.rev,
        "range": value.range,
        "commit": value.commit,
        "old_commit": value.old_commit,
        "head_commit": value.head_commit,
        "object_format": value.object_format,
        "prefix": value.prefix,
        "prefix_detected": value.prefix_detected,
        "prefix_from": None
        if value.layout.origin in ("detected", "given")
        else value.layout.origin,
        "package_dir": dict(value.layout.package_dirs),
        "package_dir_unread": value.layout.unread,
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
        "files": [file_source_json(entry) for entry in value.files],
    }
