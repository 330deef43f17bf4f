"""Both wheels' RECORDs parsed for one comparison, the patch's lines that are the base's (equal
by value) taken from the base's parse.

A patch validation compares two wheels whose RECORDs differ in a few rows: torch's 12,248-row
RECORD judged all at once (`record._plain_record`) costs ≈ 16 ms a wheel, most of it building
one row per line. Every condition `_plain_record` tests is of one line (three fields, a path,
a well-formed SHA-256 field, a decimal size; RECORD's own line `RECORD,,`) but two: RECORD's
own path listed exactly once and no path twice, which the count of the rows built says. So,
for a RECORD of the same archive path as a plain RECORD already parsed, each line equal to one
of that RECORD's is the same (path, row), each other line is judged alone (`record.plain_row`),
and the rows are `_plain_record`'s whenever it would take them; when it would not, or the
lines are mostly new, the RECORD is parsed on its own (`record.parse_record`), as before.
"""

from __future__ import annotations

import operator
from itertools import compress, count

from k3diff.wheel.metadata import read_member_text
from k3diff.wheel.record import (
    Record,
    RecordLine,
    parse_record,
    plain_lines,
    plain_row,
    plain_rows,
)
from k3diff.zip.archive import ZipArchive

KnownLines = dict[str, dict[str, tuple[str, RecordLine]]]
"""By RECORD's archive path: each line of the plain RECORD parsed there and its (path, row)."""

_FEW_NEW = 8
"""Lines judged one by one at most per this many lines; more and the RECORD is judged all at
once (`plain_rows` is C-level passes; a line judged alone is a Python step)."""


def parse_wheel_records(
    base: ZipArchive, patch: ZipArchive, dist_infos: tuple[str | None, str | None]
) -> tuple[Record | None, Record | None]:
    """`record.parse_wheel_record` of both wheels: each RECORD read, and judged as
    `parse_record` judges it; the patch's lines found in the base's plain RECORD are not
    judged again."""
    known: KnownLines = {}
    base_record = _parse(base, dist_infos[0], known)
    return base_record, _parse(patch, dist_infos[1], known)


def _parse(archive: ZipArchive, dist_info: str | None, known: KnownLines) -> Record | None:
    if dist_info is None:
        return None
    text = read_member_text(archive, f"{dist_info}/RECORD")
    if text is None:
        return None
    return parse_record_beside(text, f"{dist_info}/RECORD", known)


def parse_record_beside(text: str, record_path: str, known: KnownLines) -> Record:
    """`parse_record(text, record_path)`, the lines `known` holds for `record_path` taken from
    it; a plain RECORD's lines are added to `known` when it held none for that path."""
    lines = plain_lines(text)
    if lines is None:
        return parse_record(text, record_path)  # the csv module reads it: nothing to share
    seen = known.get(record_path)
    rows = (
        plain_rows(lines, record_path) if seen is None else _rows_beside(lines, record_path, seen)
    )
    if rows is None:
        return parse_record(text, record_path)  # a line with a problem: judged row by row
    if seen is None:
        known[record_path] = dict(zip(lines, rows.items(), strict=True))
    return Record(record_path, rows, (), plain=True)


def _rows_beside(
    lines: list[str], record_path: str, seen: dict[str, tuple[str, RecordLine]]
) -> dict[str, RecordLine] | None:
    """`plain_rows(lines, record_path)`, each line in `seen` (a plain RECORD's lines at the same
    `record_path`) given its (path, row) there, each other line judged by `plain_row`."""
    items = list(map(seen.get, lines))
    new = list(compress(count(), map(operator.not_, items)))  # the lines `seen` lacks
    if len(new) * _FEW_NEW > len(lines):
        return plain_rows(lines, record_path)
    for index in new:
        item = plain_row(lines[index], record_path)
        if item is None:
            return None  # `plain_rows` refuses it too: a line of its own with a problem
        items[index] = item
    rows = dict(items)  # type: ignore[arg-type]  # every None replaced above
    # `seen` holds RECORD's own line at `record_path` and no other line of that path, and
    # `plain_row` takes only `record_path,,` for it: so `record_path` in the rows and one row
    # per line say `plain_rows`' "listed exactly once" and "no path twice".
    if len(rows) != len(lines) or record_path not in rows:
        return None
    return rows
