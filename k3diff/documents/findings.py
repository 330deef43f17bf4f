"""The one JSON form of a finding, in every document that lists findings (`k3diff.wheels/1`,
the pairs of `k3diff.wheelset/1`, `k3diff.audit/2`); its typed view, what the readers take, is
`documents.findingview` (writing a document defines no reader class)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from k3diff.wheel.codes import Finding
from k3diff.wheel.policy import Policy

if TYPE_CHECKING:  # a waiver file's outcome: read only with --waivers, never built here
    from k3diff.wheel.waivers import Waiver, WaiverOutcome


def finding_json(
    finding: Finding, policy: Policy, artifacts: tuple[str, ...] = ()
) -> dict[str, Any]:
    """`{code, message, path, detail, severity}`: severity is `error` when the finding fails
    the run under `policy`, else `info`; path is '' for the artifact as a whole. A finding
    about native code where that changes how it is judged (`Finding.native`) carries
    `native: true`. A finding a `--waivers` entry covers also carries `waiver` (its number,
    reason and expiry): it is `info`, and says why."""
    data: dict[str, Any] = {
        "code": finding.code.name,
        "message": finding.message,
        "path": finding.path,
        "detail": finding.detail,
        "severity": policy.severity_of(finding, artifacts).value,
    }
    if finding.native:
        data["native"] = True
    waiver = policy.waiver(finding, artifacts)
    if waiver is not None:
        data["waiver"] = {
            "number": waiver.number,
            "reason": waiver.reason,
            "expires": None if waiver.expires is None else waiver.expires.isoformat(),
        }
    return data


def _unused(outcome: WaiverOutcome, w: Waiver) -> dict[str, Any]:
    """An unused waiver; `glob_only` (only when any) names the code its glob matched but may
    not waive (code is waived by its exact path)."""
    data: dict[str, Any] = {"number": w.number, "code": w.code.name, "path": w.path}
    data["reason"] = w.reason
    globbed = outcome.globbed(w)
    if globbed:
        data["glob_only"] = globbed
    return data


def waivers_json(outcome: WaiverOutcome) -> dict[str, Any]:
    """What `--waivers` did: the file, how many findings it waived, the expired waivers that
    covered a finding (not applied) and the waivers nothing used (stale)."""
    return {
        "file": outcome.source,
        "waived": len(outcome.applied),
        "expired": [
            {
                "number": waiver.number,
                "code": finding.code.name,
                "path": finding.path,
                "artifact": artifact,
                "expires": None if waiver.expires is None else waiver.expires.isoformat(),
            }
            for waiver, finding, artifact in outcome.expired
        ],
        "unused": [_unused(outcome, w) for w in outcome.unused],
    }
