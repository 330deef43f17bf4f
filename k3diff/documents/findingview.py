"""A finding as the documents' typed readers see it (`k3diff.wheels/1`, the pairs of
`k3diff.wheelset/1`, `k3diff.audit/2`); its JSON form is written by `documents.findings`."""

from __future__ import annotations

from dataclasses import dataclass

from k3diff.fields import Fields, words
from k3diff.wheel.codes import Severity


@dataclass(frozen=True)
class FindingView:
    """A finding as a document lists it (the fields the bundle and the self-checks count by)."""

    code: str
    """The W or A code."""
    severity: str
    """`error` when it fails the run, else `info`."""
    path: str = ""
    """The archive path it is about ('' for the artifact as a whole)."""
    waived: bool = False
    """A `--waivers` entry covers it (it carries `waiver`): it is info, and says why."""
    native: bool = False
    """It is about native code where that changes how it is judged (`native: true`)."""
    waiver_number: int | None = None
    """The number of the waiver that covers it (`waiver.number`), None when none does."""
    detail: str = ""
    """What exactly was observed (the next steps read W616's: `wheel.codes.NO_PYTHON`)."""

    def label(self) -> str:
        """`W101 pkg/_native.so`: how a refusal names it."""
        return f"{self.code} {self.path or repr('')}"


def read_finding(fields: Fields) -> FindingView:
    """The typed view of one finding."""
    waiver = fields.optional_object("waiver")
    return FindingView(
        code=fields.string("code"),
        severity=fields.string("severity", words(Severity)),
        path=fields.string("path"),
        waived=waiver is not None,
        native=fields.optional_boolean("native") is True,
        waiver_number=None if waiver is None else waiver.optional_integer("number"),
        detail=fields.optional_string("detail") or "",
    )


def waived_count(fields: Fields) -> int:
    """`waivers.waived`: how many findings the run's waiver file covered (0 without one)."""
    waivers = fields.optional_object("waivers")
    return 0 if waivers is None else waivers.integer("waived")
