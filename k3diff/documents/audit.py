"""The `k3diff.audit/2` document, built from the frozen audit values (no to_json on models),
and its writer."""

from __future__ import annotations

from typing import Any

from k3diff.audit.model import ArtifactAudit, AuditReport, ManifestCheck
from k3diff.documents.findings import finding_json
from k3diff.documents.ids import AUDIT as SCHEMA
from k3diff.documents.jsondoc import json_document
from k3diff.documents.native import platform_needs_json
from k3diff.documents.surfaces import to_json
from k3diff.wheel.codes import Policy


def _artifact_json(artifact: ArtifactAudit, policy: Policy) -> dict[str, Any]:
    return {
        "path": artifact.path,
        "sha256": artifact.sha256,
        "size": artifact.size,
        "kind": artifact.kind.value,
        "entry_count": artifact.entry_count,
        "directories": artifact.directory_count,
        "findings": [finding_json(f, policy) for f in artifact.findings],
        "execution_surfaces": [to_json(surface) for surface in artifact.surfaces],
        "natives": [
            {"entry": native.entry, **(platform_needs_json(native.needs) if native.needs else {})}
            for native in artifact.natives
        ],
    }


def _manifest_json(check: ManifestCheck | None) -> dict[str, Any] | None:
    if check is None:
        return None
    return {
        "path": check.path,
        "matched": list(check.matched),
        "mismatched": [
            {"name": m.name, "expected": m.expected, "actual": m.actual, "artifact": m.artifact}
            for m in check.mismatched
        ],
        "missing": list(check.missing),
        "extra": list(check.extra),
        "ignore_missing": check.ignore_missing,
    }


def audit_document(report: AuditReport) -> dict[str, Any]:
    """The `k3diff.audit/2` document."""
    # Each finding is listed once: under its artifact, or here when it is about the run as a
    # whole (the manifest check), so a consumer summing both counts each once.
    findings = []
    if report.manifest is not None:
        findings = [finding_json(f, report.policy) for f in report.manifest.findings()]
    code = report.exit_code
    return {
        "schema": SCHEMA,
        "artifacts": [_artifact_json(a, report.policy) for a in report.artifacts],
        "manifest": _manifest_json(report.manifest),
        "written_manifest": report.written_manifest,
        "findings": findings,
        "verdict": {
            "ok": code == 0,
            "exit_code": int(code),
            "errors": report.errors,
            "warnings": len(report.all_findings()) - report.errors,
        },
    }


def write(report: AuditReport) -> str:
    """The document as JSON text (`k3diff audit --format json`)."""
    return json_document(audit_document(report), per_line=("findings",))
