"""RECORD read strictly (PEP 376 / 427 / the binary distribution format spec) and checked against
the archive's entries.

Rows come from the one RECORD reader `wheels` uses too (`k3diff.wheel.record.record_rows`), so
both commands see the same rows; here every row is judged: exactly three fields, a hash of
an allowed algorithm whose digest has the algorithm's length in unpadded urlsafe base64, a decimal
size. Problems are collected, never raised, so one run lists them all.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.record import RecordSyntaxError, record_rows
from k3diff.zip.directory import ZipEntry

ALLOWED = ("sha256", "sha384", "sha512")
"""Algorithms the spec names; others from hashlib's guaranteed set are accepted too."""

WEAK = frozenset({"md5", "sha1"})
"""Refused by PEP 376 and the wheel spec."""

SIGNATURES = ("RECORD.jws", "RECORD.p7s")
"""Signature files beside RECORD: they cannot list their own hash, and sign RECORD."""


@dataclass(frozen=True)
class ExpectedContent:
    """What RECORD says one file holds."""

    algorithm: str | None
    """hashlib name to verify with, or None when the row cannot be verified."""
    digest: bytes | None
    """The raw digest, or None."""
    size: int | None
    """Declared size, or None."""


@dataclass(frozen=True)
class RecordPlan:
    """The parsed RECORD: what to verify for each path, and the problems in the file itself."""

    expected: dict[str, ExpectedContent]
    """Per path listed (first row wins for a path listed twice)."""
    findings: tuple[Finding, ...]
    """Problems with RECORD's rows (A102, A107-A110, A112)."""


def _verifiable() -> frozenset[str]:
    guaranteed = {name for name in hashlib.algorithms_guaranteed if not name.startswith("shake")}
    return frozenset(guaranteed - WEAK)


VERIFIABLE = _verifiable()


def parse_strict(text: str, record_path: str) -> RecordPlan:
    """Every row of RECORD judged; `record_path` is RECORD's own archive path."""
    expected: dict[str, ExpectedContent] = {}
    findings: list[Finding] = []
    listed_self = False
    try:
        for number, fields in record_rows(text):
            where = f"RECORD line {number}"
            if len(fields) != 3 or not fields[0]:
                findings.append(
                    Finding(Code.A102, record_path, f"{where}: expected path,hash,size")
                )
                continue
            path, hash_field, size_field = fields
            if path in expected or (path == record_path and listed_self):
                findings.append(Finding(Code.A112, path, f"{where}: listed again"))
                continue
            if path == record_path:
                listed_self = True
                if hash_field or size_field:
                    findings.append(
                        Finding(
                            Code.A110,
                            path,
                            f"{where}: RECORD lists itself with a hash or size",
                        )
                    )
                continue
            content, problems = _row(path, hash_field, size_field, where)
            expected[path] = content
            findings.extend(problems)
    except RecordSyntaxError as exc:
        findings.append(Finding(Code.A102, record_path, f"RECORD line {exc.line}: {exc.problem}"))
    if not listed_self:
        findings.append(Finding(Code.A110, record_path, "RECORD does not list itself"))
    return RecordPlan(expected, tuple(findings))


def _row(
    path: str, hash_field: str, size_field: str, where: str
) -> tuple[ExpectedContent, list[Finding]]:
    problems: list[Finding] = []
    size: int | None = None
    if size_field:
        if size_field.isascii() and size_field.isdigit():
            size = int(size_field)
        else:
            problems.append(Finding(Code.A102, path, f"{where}: size {size_field!r}"))
    if not hash_field:
        if not path.endswith(SIGNATURES):
            problems.append(Finding(Code.A107, path, f"{where}: no hash"))
        return ExpectedContent(None, None, size), problems
    algorithm, sep, encoded = hash_field.partition("=")
    algorithm = algorithm.lower()
    if algorithm in WEAK:
        problems.append(
            Finding(Code.A108, path, f"{where}: {algorithm} (sha256 or stronger needed)")
        )
        return ExpectedContent(None, None, size), problems
    if not sep or algorithm not in VERIFIABLE:
        problems.append(Finding(Code.A109, path, f"{where}: {hash_field[:40]!r}"))
        return ExpectedContent(None, None, size), problems
    digest = _decode(encoded, hashlib.new(algorithm).digest_size)
    if digest is None:
        problems.append(Finding(Code.A102, path, f"{where}: {algorithm} digest {encoded[:60]!r}"))
        return ExpectedContent(None, None, size), problems
    return ExpectedContent(algorithm, digest, size), problems


def _decode(encoded: str, digest_size: int) -> bytes | None:
    """The digest from unpadded urlsafe base64, or None when malformed or of the wrong length."""
    if not encoded.isascii() or "=" in encoded or "+" in encoded or "/" in encoded:
        return None
    try:
        digest = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    except (binascii.Error, ValueError):
        return None
    return digest if len(digest) == digest_size else None


def membership_findings(
    plan: RecordPlan, entries: Iterable[ZipEntry], dist_info: str
) -> list[Finding]:
    """A105 for files RECORD omits (a directory entry that holds content counts as a file),
    A106 for rows naming absent files, A111 for signatures."""
    listed = list(entries)
    present = {entry.name for entry in listed}
    exempt = {f"{dist_info}/RECORD", *(f"{dist_info}/{s}" for s in SIGNATURES)}
    files = {entry.name for entry in listed if not is_empty_directory(entry)}
    findings = [
        Finding(Code.A105, name, "in the archive, not in RECORD")
        for name in sorted(files)
        if name not in plan.expected and name not in exempt
    ]
    findings += [
        Finding(Code.A106, path, "in RECORD, not in the archive")
        for path in sorted(plan.expected)
        if path not in present
    ]
    findings += [
        Finding(Code.A111, name, "RECORD is signed; k3diff does not verify signatures")
        for name in sorted(present & exempt - {f"{dist_info}/RECORD"})
    ]
    return findings


def is_empty_directory(entry: ZipEntry) -> bool:
    """A directory entry (name ending in '/') that holds nothing; one with content is a file in
    hiding and is verified and listed like any other."""
    return entry.is_dir and entry.size == 0 and entry.compressed_size <= 2
