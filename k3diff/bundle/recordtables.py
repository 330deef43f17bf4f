"""Tables of what a reviewer reads beside the records (newuser68: neither was in the bundle):
each lm-eval doc's metric that changed, from the comparison, and the requests a samples log
records as failed, with the error the server gave (escaped and capped: a server's words)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from k3diff import escape
from k3diff.documents.read import Document
from k3diff.responses.document import ResponsesDocument

ERROR_CHARS = 200
"""Characters of a failed request's error kept in the bundle; the samples log keeps it whole."""

METRIC_COLUMNS = ["record", "metric", "filter", "base", "patch", "comparison"]
FAILED_COLUMNS = ["log", "side", "key", "mode", "failed", "HTTP status", "error"]


def metric_rows(documents: Sequence[Document]) -> list[list[object]]:
    """One row per lm-eval record and metric that changed, whatever the record's status (a doc
    not comparable still lost or gained its score)."""
    rows: list[list[object]] = []
    for doc in documents:
        for record in doc.typed(ResponsesDocument).records:
            for metric, group, base, patch in record.metric_changes or ():
                rows.append([record.name, metric, group, base, patch, record.status])
    return rows


def failed_rows(documents: Sequence[Document]) -> list[list[object]]:
    """One row per (log, side, key, mode, HTTP status, error) of the failed samples, counted."""
    counted: Counter[tuple[str, str, str, str, int | None, str]] = Counter()
    for doc in documents:
        for sample in doc.samples:
            if sample.error is not None:
                error = escape.shortened(escape.text(sample.error), ERROR_CHARS)
                ident = (doc.name, sample.side, sample.key, sample.mode, sample.status, error)
                counted[ident] += 1
    return [
        [name, side, key, mode, count, status, error]
        for (name, side, key, mode, status, error), count in counted.items()
    ]


def record_tables(
    responses: Sequence[Document], samples: Sequence[Document], table: Any
) -> dict[str, Any]:
    """`tables.metric_changes` and `tables.failed_requests`, where there are any (`table`
    makes one: title, columns, rows)."""
    tables: dict[str, Any] = {}
    if metrics := metric_rows(responses):
        tables["metric_changes"] = table("Metric changes (lm-eval)", METRIC_COLUMNS, metrics)
    if failed := failed_rows(samples):
        tables["failed_requests"] = table("Failed requests (samples)", FAILED_COLUMNS, failed)
    return tables
