"""The `k3diff.report/1` document (`summary.json` of a bundle) and its writer.

The bundle derives the document from the documents it read (`k3diff.bundle.summary`); this module
owns its schema id and its text: indented, non-ASCII kept as written, one newline at the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from k3diff import jsontext
from k3diff.documents.ids import REPORT as SCHEMA

__all__ = ["SCHEMA", "write"]


def write(summary: Mapping[str, Any]) -> str:
    """The document as JSON text (`summary.json`)."""
    return jsontext.dumps(summary, indent=2, ensure_ascii=False) + "\n"
