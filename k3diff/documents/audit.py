"""The `k3diff.audit/2` document, built from the frozen audit values (no JSON methods on models),
its writer, and its typed reader (`read`: what the bundle reads of it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from k3diff.audit.model import ArtifactAudit, AuditReport, ManifestCheck
from k3diff.documents.findings import finding_json, waivers_json
from k3diff.documents.findingview import FindingView, read_finding, waived_count
from k3diff.documents.jsondoc import json_document
from k3diff.documents.native import platform_needs_json
from k3diff.documents.surfaces import surface_json
from k3diff.fields import Fields, words
from k3diff.ids import AUDIT as SCHEMA
from k3diff.wheel.policy import Policy
from k3diff.wheel.surfacekinds import SurfaceKind


def _artifact_json(artifact: ArtifactAudit, policy: Policy) -> dict[str, Any]:
    return {
        "path": artifact.path,
        "sha256": artifact.sha256,
        "size": artifact.size,
        "kind": artifact.kind.value,
        "entry_count": artifact.entry_count,
        "directories": artifact.directory_count,
        "findings": [finding_json(f, policy, (artifact.path,)) for f in artifact.findings],
        "execution_surfaces": [surface_json(surface) for surface in artifact.surfaces],
        "natives": [
            {"entry": native.entry, **(platform_needs_json(native.needs) if native.needs else {})}
            for native in artifact.natives
        ],
    }


def manifest_json(check: ManifestCheck | None) -> dict[str, Any] | None:
    """The document's `manifest` object (None without `--manifest`)."""
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
        "sha256": check.sha256,
    }


def audit_document(
    report: AuditReport, next_steps: Sequence[Mapping[str, str]] = ()
) -> dict[str, Any]:
    """The `k3diff.audit/2` document; `next_steps`: what the text report says to do, as the
    renderer (`report.audit.json_steps`) gives it (audit74: the JSON held none). A reader
    never takes a step from a document: the bundle says its own, from the findings."""
    # Each finding is listed once: under its artifact, or here when it is about the run as a
    # whole (the manifest check), so a consumer summing both counts each once.
    findings = []
    if report.manifest is not None:
        findings = [finding_json(f, report.policy, (f.path,)) for f in report.manifest.findings()]
    code = report.exit_code
    waivers = report.waiver_outcome()
    extra = {} if waivers is None else {"waivers": waivers_json(waivers)}
    return {
        "schema": SCHEMA,
        "artifacts": [_artifact_json(a, report.policy) for a in report.artifacts],
        "manifest": manifest_json(report.manifest),
        "written_manifest": report.written_manifest,
        "findings": findings,
        "verdict": {
            "ok": code == 0,
            "exit_code": int(code),
            "errors": report.errors,
            "warnings": len(report.all_findings()) - report.errors,
        },
        **extra,
        "next_steps": [dict(step) for step in next_steps],
    }


def write(report: AuditReport, next_steps: Sequence[Mapping[str, str]] = ()) -> str:
    """The document as JSON text (`k3diff audit --format json`), with `next_steps`."""
    return json_document(audit_document(report, next_steps), per_line=("findings",))


# The typed reader ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditArtifact:
    """One audited artifact (what the bundle records of it)."""

    path: str
    """The artifact as given."""
    sha256: str
    """SHA-256 of the file."""
    size: int
    """Size of the file in bytes."""
    findings: tuple[FindingView, ...]
    """The artifact's findings."""
    scripts: tuple[tuple[str, str], ...] = ()
    """(installed path, archive entry) of each script its `execution_surfaces` list (kinds
    `script` and `data-script`): what its W703 findings are checked against."""


@dataclass(frozen=True)
class AuditManifest:
    """The pinned manifest's check, by count of names."""

    matched: int
    """Names whose digest matched."""
    mismatched: int
    """Names whose digest differs."""
    missing: int
    """Names the manifest pins and no artifact is."""
    extra: int
    """Artifacts the manifest does not name."""
    ignore_missing: bool = False
    """Names not audited were listed, not findings (`--ignore-missing`)."""
    path: str = ""
    """The manifest as given to `audit`."""
    sha256: str | None = None
    """SHA-256 of the manifest's bytes as read; None in a document written before audit
    recorded it (lmrep68): a manifest changed since cannot be told."""


@dataclass(frozen=True)
class AuditDocument:
    """A `k3diff.audit/2` document, typed: what the bundle reads of it."""

    artifacts: tuple[AuditArtifact, ...]
    """Every artifact audited."""
    findings: tuple[FindingView, ...]
    """The findings about the run as a whole (the manifest check)."""
    manifest: AuditManifest | None
    """The manifest check, None when no manifest was pinned."""
    ok: bool
    """The document's verdict."""
    exit_code: int
    """The exit code `audit` returned."""
    errors: int = 0
    """The verdict's count of findings of severity error."""
    warnings: int = 0
    """The verdict's count of findings of severity info."""
    waived: int = 0
    """Findings a `--waivers` file covered, as its `waivers.waived` says (0 without one)."""

    def all_findings(self) -> tuple[FindingView, ...]:
        """The run's findings, then each artifact's (each listed once)."""
        return self.findings + tuple(f for a in self.artifacts for f in a.findings)


def _artifact(fields: Fields) -> AuditArtifact:
    return AuditArtifact(
        path=fields.string("path"),
        sha256=fields.sha256("sha256"),
        size=fields.integer("size"),
        findings=fields.each("findings", read_finding),
        scripts=tuple(
            (surface.string("key"), surface.string("entry"))
            for surface in fields.objects("execution_surfaces")
            if surface.string("kind", words(SurfaceKind)) in ("script", "data-script")
        )
        if fields.has("execution_surfaces")
        else (),
    )


def _manifest(fields: Fields) -> AuditManifest:
    mismatched = len(tuple(fields.objects("mismatched")))
    return AuditManifest(
        matched=len(fields.strings("matched")),
        mismatched=mismatched,
        missing=len(fields.strings("missing")),
        extra=len(fields.strings("extra")),
        ignore_missing=fields.boolean("ignore_missing"),
        path=fields.string("path"),
        sha256=fields.optional_sha256("sha256"),
    )


def read(body: object, name: str) -> AuditDocument:
    """The typed view of a `k3diff.audit/2` document; InputError naming the file and the field
    when one is missing or of another type."""
    fields = Fields(body, name)
    verdict = fields.object("verdict")
    manifest = fields.optional_object("manifest")
    return AuditDocument(
        artifacts=fields.each("artifacts", _artifact),
        findings=fields.each("findings", read_finding),
        manifest=None if manifest is None else _manifest(manifest),
        ok=verdict.boolean("ok"),
        exit_code=verdict.integer("exit_code"),
        errors=verdict.integer("errors"),
        warnings=verdict.integer("warnings"),
        waived=waived_count(fields),
    )
