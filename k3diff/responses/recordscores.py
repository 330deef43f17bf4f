"""A record's `scores` as read back: (metric, filter, base, patch) per score the record gave the
paired tests (scores61), so that `report` recounts every score test from the records.

Bounded: at most `MAX_RECORD_SCORES` a record and `MAX_DOCUMENT_SCORES` in a document (exit 2,
naming the field, beyond); `responses` writes one entry a metric and filter of a paired item, so
a document it wrote stays far inside both (a 20,000-doc GSM8K comparison holds 20,000)."""

from __future__ import annotations

import math

from k3diff.fields import Fields

RecordScores = tuple[tuple[str, str | None, float, float], ...]
MAX_RECORD_SCORES = 100_000
"""Scores one record may carry (an lm-eval doc with that many metrics is read in linear time)."""
MAX_DOCUMENT_SCORES = 2_000_000
"""Scores a whole document may carry (about 100 bytes each in memory once read)."""


def _number(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


def read_record_scores(fields: Fields) -> RecordScores | None:
    """The record's `scores` (None: not written, a record that gave no score)."""
    if not fields.has("scores"):
        return None
    raw = fields.raw("scores")
    if not isinstance(raw, list):
        raise fields.fail("scores", "must be a list of [metric, filter, base, patch]")
    if len(raw) > MAX_RECORD_SCORES:
        raise fields.fail("scores", f"holds {len(raw):,} scores, past {MAX_RECORD_SCORES:,}")
    read = []
    for i, item in enumerate(raw):
        if not (
            isinstance(item, list)
            and len(item) == 4
            and isinstance(item[0], str)
            and (item[1] is None or isinstance(item[1], str))
            and _number(item[2])
            and _number(item[3])
        ):
            raise fields.fail(f"scores[{i}]", "must be [metric, filter or null, base, patch]")
        read.append((item[0], item[1], float(item[2]), float(item[3])))
    return tuple(read)


def check_total(fields: Fields, counts: int) -> None:
    """Refuse a document whose records carry more than `MAX_DOCUMENT_SCORES` scores."""
    if counts > MAX_DOCUMENT_SCORES:
        raise fields.fail("records", f"carry {counts:,} scores, past {MAX_DOCUMENT_SCORES:,}")
