"""A wheel's RECORD (PEP 376 CSV: path, algorithm=urlsafe-b64 digest, size): rows and parsing."""

from __future__ import annotations

import csv
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


def parse_record(text: str, where: str) -> dict[str, RecordLine]:
    """RECORD rows by path (PEP 376 CSV: path, algorithm=urlsafe-b64 digest, size).

    Hand-rolled on the csv module rather than wheel-inspect's parser because a 10,000-line RECORD
    must parse in milliseconds; digests of algorithms other than sha256 are kept as unknown.
    """
    rows: dict[str, RecordLine] = {}
    # Lines end at "\n" only (as the csv module reads them): str.splitlines would also break
    # at separators that may be part of a path.
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        # Nearly every row is three plain fields, split in C without the csv machinery; quoted
        # fields (a comma or quote in a path) are the csv module's job.
        if not line:
            continue
        _add_row(rows, next(csv.reader([line])) if '"' in line else line.split(","), number, where)
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
