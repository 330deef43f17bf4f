"""Reads the comparison triage joins with sample logs (`k3diff.triage.samples`): a
`k3diff.responses/1` document, through its one reader (`k3diff.responses.document`), the one
`report` uses too, so that an edited comparison is refused alike by both.
"""

from __future__ import annotations

from pathlib import Path

from k3diff.docbody import decode, read_bytes
from k3diff.errors import InputError
from k3diff.ids import RESPONSES as COMPARISON_SCHEMA
from k3diff.responses.doccheck import parse_comparison
from k3diff.responses.document import ResponsesDocument
from k3diff.sample.reader import looks_like_samples_log


def read_comparison(path: Path) -> ResponsesDocument:
    """Read a `k3diff.responses/1` comparison through its one reader, as `report` reads it
    (`k3diff.responses.document`); a samples log given in its place is named as what it is."""
    data = read_bytes(path)
    if looks_like_samples_log(data):
        raise InputError(
            f"{path}: a k3diff.samples/1 log, not a {COMPARISON_SCHEMA} document: give the "
            "comparison first (k3diff responses --format json), then the samples logs"
        )
    text = decode(data, path)
    del data  # the text is all the reader needs: not both at once (stream79)
    return parse_comparison(text, path)
