"""The bundle's triage table (`summary.json` `tables.records`): one row per record and mode the
triage reported, the deciding mode first, with each side's numbers.

The deciding mode is the one whose verdict is the record's (the most severe: `triage.rollup`),
not one that settled anything: an inconclusive record's deciding mode is inconclusive, with the
samples that would make it decisive. Its row says so as `record category from` `this mode`
(report65: the column read `decides` `yes`, beside "N more samples would make it decisive");
the record's numbers (p adjusted, novelty p adjusted, more samples) are that mode's."""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.documents.read import Document
from k3diff.documents.triage import TriageDocument, TriageRecord
from k3diff.documents.triagemodes import TriageMode, TriageSide

CATEGORY_FROM = "this mode"
"""The `record category from` cell of the mode whose verdict is the record's."""


def _triage_rows(record: TriageRecord) -> list[list[object]]:
    """One row per mode the triage reported, the deciding mode first; a record without samples
    gets one row of its record-level numbers."""
    deciding = record.deciding()
    ordered: list[TriageMode | None] = (
        [deciding, *(m for m in record.modes if m is not deciding)] if deciding else [None]
    )
    rows: list[list[object]] = []
    for index, mode in enumerate(ordered):
        sets_category = record.deciding_mode is not None and mode is deciding
        # The record-level numbers are the deciding mode's.
        own: TriageRecord | TriageMode = record if sets_category or mode is None else mode
        flags = record.flags if index == 0 or mode is None else mode.flags
        base, patch = (None, None) if mode is None else (mode.base, mode.patch)
        rows.append(
            [
                record.name,
                record.key,
                record.comparison_status,
                record.category,
                None if mode is None else mode.mode,
                None if mode is None else mode.category,
                CATEGORY_FROM if sets_category else "",
                *_side_cells(base),
                *_side_cells(patch),
                own.p_adjusted,
                own.novelty_p_adjusted,
                own.more_samples,
                record.flags_said(flags),
            ]
        )
    return rows


def _side_cells(side: TriageSide | None) -> list[object]:
    return [None] * 3 if side is None else [side.n, side.distinct, side.nonmodal_bound]


def triage_rows(documents: Sequence[Document]) -> tuple[list[str], list[list[object]]]:
    """The triage table's columns and rows: every record's modes, failing records first."""
    rows: list[list[object]] = []
    for doc in documents:
        for record in doc.typed(TriageDocument).records:
            rows.extend(_triage_rows(record))
    rows.sort(key=lambda row: (row[2] == "match", str(row[0])))
    columns = [
        "record",
        "key",
        "comparison",
        "category",
        "mode",
        "mode category",
        "record category from",
        "base n",
        "base distinct",
        "base bound",
        "patch n",
        "patch distinct",
        "patch bound",
        "p adjusted",
        "novelty p adjusted",
        "more samples",
        "flags",
    ]
    return columns, rows


COLUMNS_MEAN = {
    "base bound": "the upper bound, at confidence 1 − α, on the share of the base's outputs "
    "that differ from its most common one (its non-modal mass); patch bound the patch's",
    "p adjusted": "the one-sided Fisher test's p that the patch is less stable than the base, "
    "corrected across records (triage --correction; — where no test ran)",
    "novelty p adjusted": "the p that the patch gave outputs the base never gives, corrected "
    "likewise",
    "more samples": "the samples per side that would decide the record (— where it is decided, "
    "or more samples cannot decide it)",
    "comparison": "what k3diff responses found of the record's two captures (match, "
    "text-differs, …)",
    "mode category": "the verdict of this row's mode alone (category is the record's)",
    "record category from": f"{CATEGORY_FROM!r} on the row of the mode the record's category "
    "comes from, its most severe",
}
"""What the triage table's columns a reader who never ran k3diff cannot guess mean, said under
it in REPORT.md and report.html (left67: they were unexplained; words72: `comparison`, `mode
category` and `record category from` too). `summary.json` keeps the columns' names; the
legend is the renderers'."""


def column_legend(columns: Sequence[str]) -> str | None:
    """'Columns: base bound = …; more samples = …', for the columns the table has; None for a
    table with none of them."""
    shown = [f"{name} = {means}" for name, means in COLUMNS_MEAN.items() if name in columns]
    return "Columns: " + "; ".join(shown) if shown else None
