"""Findings of one code that `--select` / `--ignore` left out of a `wheels` report. Apart from
`k3diff.wheels.model`, which every run imports, as only a run whose filters hid a finding
builds one."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FilteredCount:
    """Findings of one code that `--select` / `--ignore` left out of the report."""

    code: str
    """The finding code."""
    count: int
    """How many findings of this code were left out."""
    would_fail: bool
    """True when, kept, they would have failed the run: the filter changed the verdict."""
