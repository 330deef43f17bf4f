"""A wheel's RECORD (PEP 376 CSV: path, algorithm=urlsafe-b64 digest, size): rows and parsing."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import NamedTuple

from k3diff.errors import ArchiveError
from k3diff.wheel.metadata import read_member_text
from k3diff.zip.archive import ZipArchive

RECORD_FILES = ("/RECORD", "/RECORD.jws", "/RECORD.p7s")
"""Endings of the RECORD file and its signatures: never listed in RECORD, never diffed."""


class RecordLine(NamedTuple):
    """One RECORD row (a NamedTuple: a 10,000-row RECORD is built in a few milliseconds)."""

    sha256: str | None
    """The urlsafe-base64 SHA-256 digest as RECORD writes it, or None when RECORD lists the
    file without one (RECORD itself) or with another algorithm."""
    size: int | None
    """Declared size, or None when not given."""
    hash: str | None = None
    """The hash field as written (`algorithm=urlsafe-b64 digest`), or None when empty."""


def read_record(archive: ZipArchive, dist_info: str | None) -> dict[str, RecordLine] | None:
    """RECORD rows by path, or None when the wheel has no RECORD."""
    if dist_info is None:
        return None
    text = read_member_text(archive, f"{dist_info}/RECORD")
    if text is None:
        return None
    return parse_record(text, f"{archive.path}: {dist_info}/RECORD")


class RecordSyntaxError(ValueError):
    """A RECORD that the csv module cannot read (an unterminated quote, say)."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line = line
        """The physical line where reading stopped."""
        self.problem = problem
        """What the csv module said."""


def record_rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of each non-empty RECORD row, read as the csv module reads it
    (and so as pip and installer do): quoted fields may hold commas, quotes and line breaks,
    rows end at `\\n`, `\\r\\n` or `\\r`. The one reader of RECORD's syntax, for `wheels`
    and `audit` alike. Raises RecordSyntaxError where the csv module gives up."""
    if '"' not in text and "\r" not in text and "\0" not in text:
        # Nearly every RECORD: plain fields and newlines, split in C without the csv machinery
        # (the same rows: a 10,000-line RECORD parses in milliseconds).
        for number, line in enumerate(text.split("\n"), start=1):
            if line:
                yield number, line.split(",")
        return
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        for fields in reader:
            if fields:
                yield reader.line_num, fields
    except csv.Error as exc:
        raise RecordSyntaxError(reader.line_num, str(exc)) from exc


def parse_record(text: str, where: str) -> dict[str, RecordLine]:
    """RECORD rows by path (PEP 376 CSV: path, algorithm=urlsafe-b64 digest, size); digests of
    algorithms other than sha256 are kept as unknown. A malformed row is an ArchiveError."""
    rows: dict[str, RecordLine] = {}
    try:
        for number, fields in record_rows(text):
            _add_row(rows, fields, number, where)
    except RecordSyntaxError as exc:
        raise ArchiveError(f"{where}:{exc.line}: {exc.problem}") from exc
    return rows


def _add_row(rows: dict[str, RecordLine], fields: list[str], number: int, where: str) -> None:
    if not fields:
        return
    if len(fields) != 3 or not fields[0]:
        raise ArchiveError(f"{where}:{number}: malformed row (expected path,hash,size)")
    path, hash_field, size_field = fields
    algorithm, _, encoded = hash_field.partition("=")
    # Kept encoded: the wheels comparison only tests digests for equality.
    digest = encoded if algorithm == "sha256" and encoded else None
    try:
        size = int(size_field) if size_field else None
    except ValueError as exc:
        raise ArchiveError(f"{where}:{number}: malformed size {size_field!r}") from exc
    # A path listed twice is W618 in both commands; the first row is the one checked.
    rows.setdefault(path, RecordLine(digest, size, hash_field or None))
