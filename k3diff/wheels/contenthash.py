"""SHA-256 of the few entries a SARIF run's findings name, for fingerprints no rebuild can keep.

A SARIF fingerprint carries the content a finding is about (`report.cifindings`). CRC-32 and
size are what the comparison reads of an entry it proves changed, and an attacker can keep both
while changing the bytes (a forged 4-byte patch); so under `--format sarif` each named entry's
inflated content is hashed here, where the run computed no SHA-256 of it. Read as every reader
reads (`ZipArchive.content_chunks`): streamed, within the declared size and the archive's
inflate budget, checked against its CRC-32.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Collection
from pathlib import Path

from k3diff.errors import InputError
from k3diff.zip.archive import ZipArchive


def sha256_hex(record_digest: str | None) -> str | None:
    """A RECORD-form `sha256=<urlsafe base64>` digest as hex; None for any other algorithm
    (the fingerprint stays the same whichever way the run came to hash the content)."""
    if record_digest is None or not record_digest.startswith("sha256="):
        return None
    text = record_digest.partition("=")[2]
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        return None
    return raw.hex() if len(raw) == hashlib.sha256().digest_size else None


def entry_digests(archive_path: str, names: Collection[str]) -> dict[str, str]:
    """Per name in `names`, `sha256:<hex>` of the content of the archive's entry of that name
    (each one's, comma-joined, where the archive holds the name more than once), or
    `unread (<problem>)` where it cannot be read: never a digest it did not compute, so an
    unreadable entry is a fingerprint of its own, never one a reviewer dismissed."""
    if not names:
        return {}
    found: dict[str, list[str]] = {}
    try:
        archive = ZipArchive.open(Path(archive_path))
    except InputError as exc:
        return dict.fromkeys(names, f"unread ({exc})")
    with archive:
        for entry in archive.entries:
            if entry.name not in names or entry.is_dir:
                continue
            hasher = hashlib.sha256()
            try:
                for chunk in archive.content_chunks(entry):
                    hasher.update(chunk)
            except InputError as exc:
                found.setdefault(entry.name, []).append(f"unread ({exc})")
                continue
            found.setdefault(entry.name, []).append(f"sha256:{hasher.hexdigest()}")
    return {name: ",".join(digests) for name, digests in found.items()}
