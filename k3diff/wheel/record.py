"""A wheel's RECORD (PEP 376 / 427 CSV: path, algorithm=urlsafe-b64 digest, size), read by one
strict parser for `wheels` and `audit` alike.

Every row is judged: exactly three fields and a path, a hash of an allowed algorithm whose digest
has the algorithm's length in unpadded urlsafe base64, a decimal size. Problems are collected as
findings (A102, A107-A110, A112), never raised, so one run lists them all: `audit` reports them;
`wheels` refuses a RECORD whose rows cannot be read at all (exit 2) and checks the rest against
the archive (W302, W623, W618).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import repeat
from typing import NamedTuple

from k3diff.errors import ArchiveError
from k3diff.lazyre import lazy
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.metadata import read_member_text
from k3diff.zip.archive import ZipArchive

RECORD_FILES = ("/RECORD", "/RECORD.jws", "/RECORD.p7s")
"""Endings of the RECORD file and its signatures: never listed in RECORD, never diffed."""

SIGNATURES = ("RECORD.jws", "RECORD.p7s")
"""Signature files beside RECORD: they cannot list their own hash, and sign RECORD."""

WEAK = frozenset({"md5", "sha1"})
"""Algorithms PEP 376 and the wheel spec refuse."""

VERIFIABLE = frozenset(
    name
    for name in hashlib.algorithms_guaranteed
    if not name.startswith("shake") and name not in WEAK
)
"""Algorithms a RECORD row may name that k3diff verifies (the spec names sha256, sha384 and
sha512; others from hashlib's guaranteed set are accepted too)."""

_ENCODED_LENGTHS = {name: (4 * hashlib.new(name).digest_size + 2) // 3 for name in VERIFIABLE}
"""Characters of each algorithm's digest in unpadded base64 (sha256: 43); no other length
decodes to the digest's size."""

_URLSAFE_B64 = lazy(r"[A-Za-z0-9_-]*")
"""The urlsafe base64 alphabet, without padding (RECORD writes none). Compiled on first use
(`k3diff.lazyre`): only a row the plain path does not take is judged with it."""
_HEX = lazy(r"[0-9a-fA-F]*")
"""A hex digest, as some builders write RECORD (gmsh 4.15.2): said so in A102's detail."""

_PLAIN_SHA256 = re.compile(r"sha256=[A-Za-z0-9_-]{43}").fullmatch
"""The hash field of nearly every row: a well-formed SHA-256 digest, judged in one match
(compiled at import: `plain_row` judges the patch's RECORD lines that differ from the base's
with it, in every comparison of two wheels whose RECORDs differ)."""

_PLAIN_SHA256_RUN = re.compile(r"(?:sha256=[A-Za-z0-9_-]{43})*").fullmatch
"""Hash fields of `_PLAIN_SHA256`'s length joined: every one well-formed, judged in one match."""

_PLAIN_HASH_LENGTH = 50
"""Characters of a `_PLAIN_SHA256` field."""

_SIZE_DIGITS = 20
"""Most digits of a size read as one: 2**64, ZIP64's largest size, has 20; a longer field is
a malformed size (A102), never converted (Python refuses thousands of digits)."""

_DIGEST = slice(7, None)
"""The digest of a `_PLAIN_SHA256` field (after `sha256=`)."""


class RecordLine(NamedTuple):
    """One RECORD row (a NamedTuple: a 10,000-row RECORD is built in a few milliseconds)."""

    sha256: str | None
    """The urlsafe-base64 SHA-256 digest as RECORD writes it, or None when RECORD lists the
    file without one (RECORD itself) or with another algorithm."""
    size: int | None
    """Declared size, or None when not given (or not a decimal number: A102)."""
    hash: str | None = None
    """The hash field as written (`algorithm=urlsafe-b64 digest`), or None when empty."""
    algorithm: str | None = None
    """The hashlib name to verify the content with, or None when the row cannot be verified
    (no hash, a weak or unknown algorithm, a malformed digest: the row's finding says which)."""

    @property
    def digest(self) -> bytes | None:
        """The raw digest to verify against, or None (as `algorithm`); decoded when asked, so
        `wheels`, which compares digests as written, never pays for it."""
        if self.algorithm is None or self.hash is None:
            return None
        encoded = self.hash.partition("=")[2]
        return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))


@dataclass(frozen=True)
class Record:
    """A RECORD read strictly: what it says of each path, and every problem with its rows."""

    path: str
    """RECORD's own archive path (`NAME-VERSION.dist-info/RECORD`)."""
    rows: dict[str, RecordLine]
    """Rows by path, RECORD's own included; for a path listed twice, the first (the one
    checked, in both commands)."""
    findings: tuple[Finding, ...]
    """Every problem with the rows, in row order: A102 (a row that is not path,hash,size, a
    size that is not decimal, a malformed digest, a file the csv module cannot read), A107 (no
    hash), A108 (weak algorithm), A109 (unknown algorithm), A110 (RECORD not listed, or listed
    with a hash or size), A112 (a path listed again)."""
    unreadable: str | None = None
    """`LINE: problem` for the first row that cannot be read as path, hash and size (a field
    count, an empty path, a size that is not decimal, the csv module giving up), or None.
    `wheels` refuses such a RECORD (exit 2); `audit` reports it (A102) and reads on."""
    plain: bool = field(default=False, compare=False, repr=False)
    """Read as plain lines (`_plain_record`, or `recordpair` beside a plain RECORD): every line
    `path,hash,size` with nothing to report, so no line is blank and none holds a carriage
    return, a quote or a NUL (pip's blank-row refusal, `refusals`, has nothing to find). How
    it was read, not what it says: not compared, not shown."""

    def expected(self) -> dict[str, RecordLine]:
        """The rows content is verified against: every row but RECORD's own (copied in C,
        then that one row taken out: the same dict, in the same order, as filtering each row)."""
        rows = dict(self.rows)
        rows.pop(self.path, None)
        return rows


def read_record(archive: ZipArchive, dist_info: str | None) -> dict[str, RecordLine] | None:
    """RECORD rows by path, or None when the wheel has no RECORD; an ArchiveError naming the
    line when a row cannot be read (`wheels` compares only a RECORD it can read)."""
    return readable_rows(archive, parse_wheel_record(archive, dist_info))


def parse_wheel_record(archive: ZipArchive, dist_info: str | None) -> Record | None:
    """The RECORD of `dist_info`, read and judged once: every check of a wheel reads this one
    value (the comparison's rows, the installability check's repeated rows). None when the
    wheel has no RECORD (or holds it encrypted)."""
    if dist_info is None:
        return None
    text = read_member_text(archive, f"{dist_info}/RECORD")
    if text is None:
        return None
    return parse_record(text, f"{dist_info}/RECORD")


def readable_rows(archive: ZipArchive, record: Record | None) -> dict[str, RecordLine] | None:
    """`record`'s rows by path; an ArchiveError naming the line when a row cannot be read."""
    if record is None:
        return None
    if record.unreadable is not None:
        raise ArchiveError(f"{archive.path}: {record.path}:{record.unreadable}")
    return record.rows


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


def parse_record(text: str, record_path: str) -> Record:
    """Every row of RECORD judged; `record_path` is RECORD's own archive path."""
    plain = _plain_record(text, record_path)
    if plain is not None:
        return Record(record_path, plain, (), plain=True)
    rows: dict[str, RecordLine] = {}
    findings: list[Finding] = []
    unreadable: str | None = None
    try:
        for number, fields in record_rows(text):
            if len(fields) == 3:
                path, hash_field, size_field = fields
                if (
                    _PLAIN_SHA256(hash_field)
                    and _decimal(size_field)
                    and path
                    and path not in rows
                    and path != record_path
                ):
                    # Nearly every row: judged by the checks below as well-formed, built here
                    # without them (they are a third of a 12,000-row RECORD's time).
                    rows[path] = RecordLine(hash_field[7:], int(size_field), hash_field, "sha256")
                    continue
            where = f"RECORD line {number}"
            if len(fields) != 3 or not fields[0]:
                findings.append(
                    Finding(Code.A102, record_path, f"{where}: expected path,hash,size")
                )
                unreadable = unreadable or f"{number}: malformed row (expected path,hash,size)"
                continue
            path, hash_field, size_field = fields
            if size_field and not _decimal(size_field):
                unreadable = unreadable or f"{number}: malformed size {size_field[:40]!r}"
            if path in rows:
                findings.append(Finding(Code.A112, path, f"{where}: listed again"))
            elif path == record_path:
                rows[path] = _self_row(path, hash_field, size_field, where, findings)
            else:
                size = _size(path, size_field, where, findings)
                rows[path] = _row(path, hash_field, size, where, findings)
    except RecordSyntaxError as exc:
        findings.append(Finding(Code.A102, record_path, f"RECORD line {exc.line}: {exc.problem}"))
        unreadable = unreadable or f"{exc.line}: {exc.problem}"
    if record_path not in rows:
        findings.append(Finding(Code.A110, record_path, "RECORD does not list itself"))
    return Record(record_path, rows, tuple(findings), unreadable)


def _plain_record(text: str, record_path: str) -> dict[str, RecordLine] | None:
    """The rows of a RECORD with nothing to report, judged all at once in C (string joins,
    one match, set tests: a 12,000-row RECORD in a few milliseconds, half the row-by-row
    time), or None when any row might hold a problem: `parse_record` then judges row by row.

    It answers only when every non-empty line is `path,sha256=<43 urlsafe-b64>,<ASCII digits>`
    with no path given twice, but one, RECORD's own, which is `RECORD,,`; exactly the rows
    the row-by-row checks take without a finding (the same values, in the same order)."""
    lines = plain_lines(text)
    return None if lines is None else plain_rows(lines, record_path)


def plain_lines(text: str) -> list[str] | None:
    """RECORD's lines, the final line break's empty remainder dropped, or None when a row may
    need the csv module (a quote, a carriage return, a NUL)."""
    if '"' in text or "\r" in text or "\0" in text:
        return None  # rows the csv module must read
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


def plain_rows(lines: list[str], record_path: str) -> dict[str, RecordLine] | None:
    """`_plain_record` of the RECORD whose `plain_lines` these are: its rows, one per line in
    line order, or None."""
    if "" in lines or set(map(str.count, lines, repeat(","))) != {2}:
        return None  # a blank line, or a row of more or fewer than three fields
    fields = ",".join(lines).split(",")  # three per line
    paths, hashes, sizes = fields[0::3], fields[1::3], fields[2::3]
    if paths.count(record_path) != 1:
        return None
    own = paths.index(record_path)
    if hashes[own] or sizes[own]:
        return None
    del paths[own], hashes[own], sizes[own]
    digits = "".join(sizes)
    if (
        "" in paths
        or "" in sizes
        or not (digits.isdigit() and digits.isascii())
        or max(map(len, sizes), default=0) > _SIZE_DIGITS
        or (hashes and set(map(len, hashes)) != {_PLAIN_HASH_LENGTH})
        or not _PLAIN_SHA256_RUN("".join(hashes))
    ):
        return None
    # Built by C-level maps: tuple.__new__ makes each row without RecordLine's Python __new__.
    built = list(
        map(
            tuple.__new__,
            repeat(RecordLine),
            zip(
                map(str.__getitem__, hashes, repeat(_DIGEST)),
                map(int, sizes),
                hashes,
                repeat("sha256"),
            ),
        )
    )
    rows: dict[str, RecordLine] = dict(zip(paths[:own], built[:own], strict=True))
    rows[record_path] = RecordLine(None, None, None)
    rows.update(zip(paths[own:], built[own:], strict=True))
    return rows if len(rows) == len(paths) + 1 else None  # else a path given twice


def plain_row(line: str, record_path: str) -> tuple[str, RecordLine] | None:
    """(path, row) of one line as `plain_rows` takes it, or None when it would not: RECORD's
    own `record_path,,`, or `path,sha256=<43 urlsafe-b64>,<at most 20 ASCII digits>`."""
    if line.count(",") != 2:
        return None
    path, hash_field, size_field = line.split(",")
    if path == record_path:
        return (path, RecordLine(None, None, None)) if not hash_field and not size_field else None
    if path and _decimal(size_field) and _PLAIN_SHA256(hash_field):
        return path, RecordLine(hash_field[7:], int(size_field), hash_field, "sha256")
    return None


def _self_row(
    path: str, hash_field: str, size_field: str, where: str, findings: list[Finding]
) -> RecordLine:
    """RECORD's own row: listed without a hash or size (it cannot hash itself)."""
    if hash_field or size_field:
        findings.append(
            Finding(Code.A110, path, f"{where}: RECORD lists itself with a hash or size")
        )
    size = int(size_field) if _decimal(size_field) else None
    return RecordLine(_sha256(hash_field), size, hash_field or None)


def _decimal(field: str) -> bool:
    """A size as the spec writes it: ASCII digits only (no sign, space or underscore), at most
    `_SIZE_DIGITS` of them (Python refuses to convert thousands of digits)."""
    return field.isascii() and field.isdigit() and len(field) <= _SIZE_DIGITS


def _size(path: str, size_field: str, where: str, findings: list[Finding]) -> int | None:
    if not size_field:
        return None
    if _decimal(size_field):
        return int(size_field)
    findings.append(Finding(Code.A102, path, f"{where}: size {size_field[:40]!r}"))
    return None


def _sha256(hash_field: str) -> str | None:
    # Kept encoded: the wheels comparison only tests digests for equality.
    algorithm, _, encoded = hash_field.partition("=")
    return encoded if algorithm == "sha256" and encoded else None


def _bad_digest(where: str, algorithm: str, encoded: str) -> str:
    """A102's detail for a digest not written as the spec asks: a hex one (gmsh 4.15.2 writes
    every digest so) said to be hex, shown whole; any other cut at 60 characters."""
    form = f"urlsafe base64 without padding ({_ENCODED_LENGTHS[algorithm]} characters)"
    if len(encoded) == 2 * hashlib.new(algorithm).digest_size and _HEX.fullmatch(encoded):
        return f"{where}: {algorithm} digest {encoded!r}: hexadecimal, where the wheel spec asks for {form}"
    return f"{where}: {algorithm} digest {encoded[:60]!r}: not {form}"


def _row(
    path: str, hash_field: str, size: int | None, where: str, findings: list[Finding]
) -> RecordLine:
    """The row with its hash judged: verifiable (`algorithm` set) or a finding."""
    sha256 = _sha256(hash_field)
    if not hash_field:
        if not path.endswith(SIGNATURES):
            findings.append(Finding(Code.A107, path, f"{where}: no hash"))
        return RecordLine(sha256, size, None)
    algorithm, sep, encoded = hash_field.partition("=")
    algorithm = algorithm.lower()
    if algorithm in WEAK:
        findings.append(
            Finding(Code.A108, path, f"{where}: {algorithm} (sha256 or stronger needed)")
        )
    elif not sep or algorithm not in VERIFIABLE:
        findings.append(Finding(Code.A109, path, f"{where}: {hash_field[:40]!r}"))
    elif len(encoded) != _ENCODED_LENGTHS[algorithm] or not _URLSAFE_B64.fullmatch(encoded):
        findings.append(Finding(Code.A102, path, _bad_digest(where, algorithm, encoded)))
    else:
        return RecordLine(sha256, size, hash_field, algorithm)
    return RecordLine(sha256, size, hash_field)
