"""Triage's holding rules read back from a `k3diff.triage/1` document's own numbers (the
records never sampled, unanswered, or with fields unjudged), for `report` to recount a document
that drops a hold; split from `k3diff.documents.triage` (the document and its reader)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from k3diff.responses.recordview import UNEXPLAINED

if TYPE_CHECKING:
    from k3diff.documents.triage import TriageDocument, TriageRecord
    from k3diff.documents.triagemodes import TriageMode


def unsampled_records(records: Sequence[TriageRecord]) -> list[TriageRecord]:
    """The records triage's rule fails as never sampled, read from their own numbers: the
    comparison found their captures differing (`UNEXPLAINED`) and no mode holds successful
    samples of both sides (a regression candidate fails on its own)."""
    return [
        record
        for record in records
        if record.comparison_status in UNEXPLAINED
        and not record.regression_candidate
        and not any(mode.base.sampled and mode.patch.sampled for mode in record.modes)
    ]


def unanswered_records(records: Sequence[TriageRecord]) -> list[TriageRecord]:
    """The records triage's rule fails as unanswered, read from their own numbers: a mode of the
    record (triage writes one where a line of the record is, or where a log's header asked it
    in that mode: triage70, a record whose every line a log lacks) has a side with no
    successful sample, a side the document shows sampled (some mode of some record holds its
    sample or failed request: a base-only run's patch is not), no test made them a regression
    candidate, and the rule for never sampled records (`unsampled_records`) does not already
    hold them (review69c: per mode, and a side without lines counts)."""
    never = {record.key for record in unsampled_records(records)}
    seen = {side for record in records for mode in record.modes for side in _sides_with_lines(mode)}
    return [
        record
        for record in records
        if record.key not in never
        and not record.regression_candidate
        and any(getattr(mode, side).sampled == 0 for mode in record.modes for side in seen)
    ]


def _sides_with_lines(mode: TriageMode) -> set[str]:
    """The sides a mode holds a line of: a sample (`n`, a capture aside) or a failed request."""
    errors = mode.errors or {}
    return {
        side for side in ("base", "patch") if getattr(mode, side).sampled > 0 or errors.get(side)
    }


def fields_unjudged(records: Sequence[TriageRecord]) -> list[TriageRecord]:
    """The records triage's rule fails as fields-unjudged, read from their own numbers: the
    comparison found their texts equal and other fields differing (`fields-differ`), and no
    test made them a regression candidate (which fails on its own)."""
    return [
        record
        for record in records
        if record.comparison_status == "fields-differ" and not record.regression_candidate
    ]


def unsampled_count(document: TriageDocument) -> int:
    """Records never sampled on a side although their captures differ: `summary.unsampled`,
    or, in a document written before that count (added within `k3diff.triage/1`), recounted
    from the records' own numbers, never taken as 0."""
    stated = document.summary.get("unsampled")
    return len(unsampled_records(document.records)) if stated is None else stated
