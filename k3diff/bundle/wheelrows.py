"""Which row of the evidence matrix each failing finding of a wheels document fails (stop 63,
found by new-user trials at stop 62): one finding, one row.

A source finding (W401, W402, W403, W405: a changed file that does not match its claimed
commit; W408: the patch wheel states another commit; W410: it lacks a module the commit holds) fails the source-match row, and only it; every other failing finding fails the
artifact-identity row. Before, the identity row took the document's whole verdict, so the bottom
line blamed two rows for one W401. Without `--source` there is no source row, and a source code
(none is reported then) would fail the identity row: no failing finding ever fails no row. A
release set's own row fails on the set's own reasons (unpaired wheels not allowed, misnamed
files, nothing paired), its pairs' findings failing their own rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.bundle.model import Evidence, Status
from k3diff.documents.findingview import FindingView
from k3diff.documents.sourcecheck import STATUS_CODES
from k3diff.documents.wheelset import WheelsetDocument
from k3diff.documents.wheelsview import WheelsDocument
from k3diff.wheel.findingorder import counted
from k3diff.wheels.releaseset import set_failures

SOURCE_FAILING = frozenset({*STATUS_CODES.values(), "W408", "W410", "W411", "W412", "W413"})
"""The source findings that fail a run that neither waives, filters nor allows them (W408: the
patch wheel states another commit than the one compared, or one the repository lacks; W410:
the patch lacks a module the base shipped and the commit holds; W411: the patch states a
commit it was built from with uncommitted changes; W412: the patch ships a file of the commit
its build leaves out; W413: the patch's METADATA Version is not the one the commit builds)."""


def row_of(code: str, sourced: bool) -> Evidence:
    """The row a failing finding of `code` fails: source match for a source finding when the
    document has a source check (`sourced`), else artifact identity."""
    return Evidence.SOURCE if sourced and code in SOURCE_FAILING else Evidence.IDENTITY


def failing_in(wheels: WheelsDocument, evidence: Evidence) -> list[FindingView]:
    """The document's failing findings (severity error) that fail `evidence`'s row."""
    sourced = wheels.provenance is not None
    return [
        f for f in wheels.findings if f.severity == "error" and row_of(f.code, sourced) is evidence
    ]


def identity_status(wheels: WheelsDocument) -> Status:
    """FAIL when an identity finding fails, pass when only source findings fail (their row
    fails), else the document's verdict (a failing verdict no finding explains still fails)."""
    if failing_in(wheels, Evidence.IDENTITY):
        return Status.FAIL
    if failing_in(wheels, Evidence.SOURCE):
        return Status.PASS
    return Status.of_verdict(wheels.ok, wheels.exit_code)


def failing_clause(findings: Sequence[FindingView]) -> str:
    """`2 × W101 (1 also W708), 1 × W102`: a row's failing findings counted, a rebuilt native
    executable's W708 with the W101 of its path (`wheel.findingorder`), as `wheels` says it."""
    return counted([(f.code, f.path, f.native) for f in findings])


def set_status(wheelset: WheelsetDocument) -> Status:
    """The release set's own row: FAIL on the set's own reasons only (`set_failures` without
    its failing pairs, whose findings fail their own rows)."""
    unpaired = len(wheelset.only_base) + len(wheelset.only_patch)
    own = set_failures(
        len(wheelset.pairs), unpaired, wheelset.allow_unpaired, len(wheelset.misnamed), 0
    )
    return Status.FAIL if own else Status.PASS
