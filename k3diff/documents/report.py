"""The `k3diff.report/2` document (`summary.json` of a bundle), its writer and its typed reader.

The bundle derives the document from the documents it read (`k3diff.bundle.summary`); this module
owns its schema id, its text (indented, non-ASCII kept as written, one newline at the end) and
the typed view a script reads the bundle's verdict and matrix through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from k3diff import jsontext
from k3diff.fields import Fields
from k3diff.ids import REPORT as SCHEMA

__all__ = ["SCHEMA", "ReportDocument", "read", "write"]


def write(summary: Mapping[str, Any]) -> str:
    """The document as JSON text (`summary.json`)."""
    return jsontext.dumps(summary, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class MatrixRow:
    """One row of the evidence matrix."""

    evidence: str
    """The row (`artifact identity`, `sampling`, ...)."""
    status: str
    """FAIL, explained, pass, recorded or missing."""
    finding: str
    """The row's sentence, with the numbers."""
    sources: tuple[str, ...]
    """The documents that filled it, as given."""


@dataclass(frozen=True)
class ReportDocument:
    """A `k3diff.report/2` document, typed: the bundle's verdict, bottom line and matrix."""

    title: str
    """The bundle's title."""
    ok: bool
    """The bundle's verdict."""
    exit_code: int
    """The exit code `report` returned."""
    bottom_line: tuple[str, ...]
    """The bottom line, one sentence a line."""
    matrix: tuple[MatrixRow, ...]
    """Every row of the evidence matrix, in the order a reviewer reads them."""
    qualifications: tuple[str, ...]
    """What the evidence implies but does not prove."""


def _row(fields: Fields) -> MatrixRow:
    return MatrixRow(
        evidence=fields.string("evidence"),
        status=fields.string("status"),
        finding=fields.string("finding"),
        sources=fields.strings("sources"),
    )


def read(body: object, name: str) -> ReportDocument:
    """The typed view of a `k3diff.report/2` document; InputError naming the file and the field
    when one is missing or of another type."""
    fields = Fields(body, name)
    verdict = fields.object("verdict")
    return ReportDocument(
        title=fields.string("title"),
        ok=verdict.boolean("ok"),
        exit_code=verdict.integer("exit_code"),
        bottom_line=fields.strings("bottom_line"),
        matrix=fields.each("matrix", _row),
        qualifications=fields.strings("qualifications"),
    )
