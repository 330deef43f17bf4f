"""`k3diff audit`: RECORD, archive soundness and pinned SHA-256 manifests for release artifacts."""

from k3diff.audit.model import ArtifactAudit, AuditCode, AuditFinding, AuditReport, Severity
from k3diff.audit.run import AuditOptions, audit

__all__ = [
    "ArtifactAudit",
    "AuditCode",
    "AuditFinding",
    "AuditOptions",
    "AuditReport",
    "Severity",
    "audit",
]
