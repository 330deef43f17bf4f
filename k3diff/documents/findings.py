"""The one JSON form of a finding, in every document that lists findings (`k3diff.wheels/1`,
the pairs of `k3diff.wheelset/1`, `k3diff.audit/2`)."""

from __future__ import annotations

from typing import Any

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
