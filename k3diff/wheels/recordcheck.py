"""Verify the RECORD hash of changed and added entries while their content is read anyway.

The base's RECORD is the reference for identical entries (an equal hash is all that is needed).
A changed or added entry has no reference: its content is hashed with the algorithm its RECORD
row names, during the read the comparison makes anyway (content proof, text diff, --explain),
or in a read of its own when nothing else inflates it. A changed or added native entry whose
change already fails the run is not read just to hash it: that would cost a full inflate of the
largest entries for a verdict that is FAIL either way (`k3diff audit` verifies every hash).
"""

from __future__ import annotations

import base64
import hashlib

from k3diff.archive import ZipArchive
from k3diff.wheels.findings import Code, Policy
from k3diff.wheels.kinds import EntryKind
from k3diff.wheels.metadata import RecordLine
from k3diff.wheels.model import EntryResult
from k3diff.wheels.proof import How, Status
from k3diff.zipdir import ZipEntry

VERIFIABLE = frozenset(
    {"sha256", "sha384", "sha512", "sha3_256", "sha3_384", "sha3_512", "blake2b"}
)
"""Algorithms a RECORD row may name that k3diff verifies (PEP 376 forbids md5 and sha1)."""

Records = tuple[dict[str, RecordLine] | None, dict[str, RecordLine] | None]
"""The (base, patch) RECORD rows by path, None for a wheel without RECORD."""

_STATUS_FAILS = {
    Status.CHANGED: Code.W101,
    Status.ADDED: Code.W103,
}


def record_algorithm(line: RecordLine | None) -> str | None:
    """The hash algorithm of a RECORD row when k3diff can verify it, else None."""
    if line is None or line.hash is None:
        return None
    algorithm = line.hash.partition("=")[0].lower()
    return algorithm if algorithm in VERIFIABLE else None


def _lines(
    records: Records, base_path: str | None, patch_path: str | None
) -> tuple[RecordLine | None, RecordLine | None]:
    base_record, patch_record = records
    base_line = base_record.get(base_path) if base_record and base_path else None
    patch_line = patch_record.get(patch_path) if patch_record and patch_path else None
    return base_line, patch_line


def content_proof_algorithm(records: Records, base: ZipEntry, patch: ZipEntry) -> str | None:
    """Algorithm to hash the patch with during a content proof, or None.

    Only when the patch's RECORD hash differs from the base's: an equal hash on content that
    turns out changed is already a stale RECORD, and on identical content it is right."""
    base_line, line = _lines(records, base.name, patch.name)
    algorithm = record_algorithm(line)
    if algorithm is None or (base_line is not None and base_line.hash == line.hash):  # type: ignore[union-attr]
        return None
    return algorithm


def wanted_algorithm(result: EntryResult, records: Records, policy: Policy) -> str | None:
    """Algorithm to hash this entry's patch content with, or None when it needs no hashing."""
    if result.patch_digest is not None or result.corrupt is not None:
        return None
    if result.status not in (Status.CHANGED, Status.ADDED) or result.patch_path is None:
        return None
    if result.patch_path.endswith("/"):
        return None
    base_line, line = _lines(records, result.base_path, result.patch_path)
    algorithm = record_algorithm(line)
    if algorithm is None or line is None:
        return None
    if result.status is Status.CHANGED and base_line is not None and base_line.hash == line.hash:
        return None  # a stale RECORD: flagged without reading anything
    if result.how is How.CONTENT:
        return None  # the content proof hashed it when the RECORD asked for it
    if result.kind is EntryKind.NATIVE:
        code = _STATUS_FAILS[result.status]
        if policy.reports(code) and policy.fails(code):
            return None
    return algorithm


def digest_bytes(data: bytes, algorithm: str) -> str:
    """The RECORD form (`algorithm=urlsafe-b64 digest`, unpadded) of `data`'s hash."""
    return record_form(algorithm, hashlib.new(algorithm, data).digest())


def record_form(algorithm: str, digest: bytes) -> str:
    """`algorithm=urlsafe-b64 digest` without padding, as RECORD writes it."""
    return f"{algorithm}={base64.urlsafe_b64encode(digest).decode().rstrip('=')}"


def digest_content(archive: ZipArchive, entry: ZipEntry, algorithm: str) -> str:
    """Stream the entry's content through the hash (memory bounded by the read chunk).

    Raises CorruptEntryError when the stream fails its own CRC-32 or size."""
    hasher = hashlib.new(algorithm)
    for chunk in archive.content_chunks(entry):
        hasher.update(chunk)
    return record_form(algorithm, hasher.digest())


def digest_mismatch(entry: EntryResult, line: RecordLine) -> str | None:
    """The W302 detail when the entry's computed digest contradicts its RECORD row."""
    if entry.patch_digest is None or line.hash is None:
        return None
    algorithm, _, written = line.hash.partition("=")
    computed = entry.patch_digest.partition("=")[2]
    if algorithm.lower() != entry.patch_digest.partition("=")[0] or written.rstrip("=") == computed:
        return None
    return f"RECORD says {line.hash}, the content hashes to {entry.patch_digest}"
