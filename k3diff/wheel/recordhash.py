"""RECORD hashes: which algorithms k3diff verifies, hashing content the way RECORD writes it, and
whether a computed digest contradicts a RECORD row. When `k3diff wheels` hashes what is in
`k3diff.wheels.recordplan`."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from k3diff.wheel.record import VERIFIABLE, WEAK, RecordLine
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

CHECKABLE = VERIFIABLE | (WEAK & hashlib.algorithms_available)
"""Algorithms k3diff hashes content with to check a row: a weak one is refused (W623) and its
digest still checked, so a wrong md5 is said to be wrong too."""


def new_hasher(algorithm: str) -> Any:
    """A hashlib object for a RECORD algorithm; not for security (md5 works under FIPS too)."""
    return hashlib.new(algorithm, usedforsecurity=False)


def record_algorithm(line: RecordLine | None) -> str | None:
    """The hash algorithm of a RECORD row when k3diff can check it, else None."""
    if line is None or line.hash is None:
        return None
    algorithm = line.hash.partition("=")[0].lower()
    return algorithm if algorithm in CHECKABLE else None


def unverifiable_algorithm(line: RecordLine) -> str | None:
    """Why a row's hash cannot be verified (a weak or unknown algorithm), or None when it can
    be or the row has no hash."""
    if line.sha256 is not None or line.hash is None:
        return None  # nearly every row: sha256, read as such by the parser
    algorithm, sep, _ = line.hash.partition("=")
    if algorithm.lower() in WEAK:
        return f"RECORD hashes it with {algorithm.lower()} (sha256 or stronger needed)"
    if not sep or algorithm.lower() not in VERIFIABLE:
        return f"RECORD hashes it with an algorithm k3diff does not know: {line.hash[:40]!r}"
    return None


def digest_bytes(data: bytes, algorithm: str) -> str:
    """The RECORD form (`algorithm=urlsafe-b64 digest`, unpadded) of `data`'s hash."""
    hasher = new_hasher(algorithm)
    hasher.update(data)
    return record_form(algorithm, hasher.digest())


def record_form(algorithm: str, digest: bytes) -> str:
    """`algorithm=urlsafe-b64 digest` without padding, as RECORD writes it."""
    return f"{algorithm}={base64.urlsafe_b64encode(digest).decode().rstrip('=')}"


def digest_content(archive: ZipArchive, entry: ZipEntry, algorithm: str) -> str:
    """Stream the entry's content through the hash (memory bounded by the read chunk).

    Raises CorruptEntryError when the stream fails its own CRC-32 or size."""
    hasher = new_hasher(algorithm)
    for chunk in archive.content_chunks(entry):
        hasher.update(chunk)
    return record_form(algorithm, hasher.digest())


def digest_mismatch(computed: str | None, line: RecordLine) -> str | None:
    """Why `computed` (a RECORD-form digest of the content) contradicts the row, or None."""
    if computed is None or line.hash is None:
        return None
    algorithm, _, written = line.hash.partition("=")
    if (
        algorithm.lower() != computed.partition("=")[0]
        or written.rstrip("=") == computed.partition("=")[2]
    ):
        return None
    return f"RECORD says {line.hash}, the content hashes to {computed}"
