"""`k3diff audit`: RECORD, archive soundness and pinned SHA-256 manifests for release artifacts."""

# The names below are imported on first use (PEP 562), so that importing a module of this
# package (a document reader imports its model) never loads what its command runs with: the
# heavy libraries (scipy, httpx, pyelftools, rapidfuzz, matplotlib) load only when used.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from k3diff.audit.model import ArtifactAudit, AuditReport
    from k3diff.audit.run import AuditOptions, audit

_LAZY = {
    "ArtifactAudit": ("k3diff.audit.model", "ArtifactAudit"),
    "AuditReport": ("k3diff.audit.model", "AuditReport"),
    "AuditOptions": ("k3diff.audit.run", "AuditOptions"),
    "audit": ("k3diff.audit.run", "audit"),
}
"""Exported name -> (module, attribute)."""

__all__ = ["ArtifactAudit", "AuditOptions", "AuditReport", "audit"]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(target[0]), target[1])
