"""The one JSON form of a finding, in every document that lists findings (`k3diff.wheels/1`,
the pairs of `k3diff.wheelset/1`, `k3diff.audit/2`), and its typed view."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from k3diff.documents.fields import Fields
from k3diff.wheel.codes import Finding, Policy


def finding_json(finding: Finding, policy: Policy) -> dict[str, Any]:
    """`{code, message, path, detail, severity}`: severity is `error` when the finding fails
    the run under `policy`, else `info`; path is '' for the artifact as a whole."""
    return {
        "code": finding.code.name,
        "message": finding.message,
        "path": finding.path,
        "detail": finding.detail,
        "severity": policy.severity(finding.code).value,
    }


@dataclass(frozen=True)
class FindingView:
    """A finding as a document lists it (the fields the bundle and the self-checks count by)."""

    code: str
    """The W or A code."""
    severity: str
    """`error` when it fails the run, else `info`."""


def read_finding(fields: Fields) -> FindingView:
    """The typed view of one finding."""
    return FindingView(code=fields.string("code"), severity=fields.string("severity"))
