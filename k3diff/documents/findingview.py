"""A finding as the documents' typed readers see it (`k3diff.wheels/1`, the pairs of
`k3diff.wheelset/1`, `k3diff.audit/2`); its JSON form is written by `documents.findings`."""

from __future__ import annotations

from dataclasses import dataclass

from k3diff.fields import Fields


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
