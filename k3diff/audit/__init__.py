"""`k3diff audit`: RECORD, archive soundness and pinned SHA-256 manifests for release artifacts."""

from k3diff.audit.model import ArtifactAudit, AuditReport
from k3diff.audit.run import AuditOptions, audit

__all__ = [
    "ArtifactAudit",
    "AuditOptions",
    "AuditReport",
    "audit",
]
