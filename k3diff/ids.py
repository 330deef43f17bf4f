"""The schema id of every JSON document k3diff writes, defined once.

Every document carries `"schema": "k3diff.<document>/<version>"`; fields are only ever added
within a version. Writers and readers import the id from here (this module imports nothing, so
any package may), and `k3diff schema NAME` prints the JSON Schema of each
(`k3diff/documents/schemas/NAME.json`).
"""

from __future__ import annotations

from enum import StrEnum


class DocumentId(StrEnum):
    """A document's `schema` value; the member's name, lowercased, names its JSON Schema."""

    WHEELS = "k3diff.wheels/1"
    """`k3diff wheels` of one pair."""
    WHEELSET = "k3diff.wheelset/1"
    """`k3diff wheels` of two release sets: every pair's wheels document and the set's rows."""
    RESPONSES = "k3diff.responses/1"
    """`k3diff responses`: the record-by-record comparison."""
    SAMPLES = "k3diff.samples/1"
    """`samples.jsonl` of `k3diff sample --out`: a header line, then one sample a line."""
    SAMPLE = "k3diff.sample/1"
    """`k3diff sample`'s end-of-run summary (stdout / --output)."""
    TRIAGE = "k3diff.triage/1"
    """`k3diff triage`: a verdict per differing record."""
    AUDIT = "k3diff.audit/2"
    """`k3diff audit`: artifacts, manifest and findings."""
    REPORT = "k3diff.report/2"
    """`summary.json` of the bundle `k3diff report` writes."""
    LOGS = "k3diff.logs/1"
    """`k3diff logs`: findings in the servers' runtime logs."""
    TELEMETRY = "k3diff.telemetry/1"
    """`k3diff telemetry`: what a sampling run exercised."""

    @property
    def schema_name(self) -> str:
        """The name `k3diff schema` takes (`wheels`, `samples`, ...)."""
        return self.name.lower()


WHEELS = DocumentId.WHEELS.value
WHEELSET = DocumentId.WHEELSET.value
RESPONSES = DocumentId.RESPONSES.value
SAMPLES = DocumentId.SAMPLES.value
SAMPLE = DocumentId.SAMPLE.value
TRIAGE = DocumentId.TRIAGE.value
AUDIT = DocumentId.AUDIT.value
REPORT = DocumentId.REPORT.value
LOGS = DocumentId.LOGS.value
TELEMETRY = DocumentId.TELEMETRY.value
