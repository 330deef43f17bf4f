"""Stream one entry's content through its RECORD hash, and the whole-file SHA-256.

Memory stays bounded by the read chunk whatever the entry's size: content arrives from
`ZipArchive.content_chunks`, which checks the stream's own CRC-32 and size and never inflates
past the declared size, or for an entry of at most one chunk from `ZipArchive.small_content`
(one pread with the local header, one inflate step), its CRC-32 checked here. zlib/ISA-L and hashlib release the GIL, so threads scale across cores.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from binascii import b2a_base64
from collections.abc import Iterable
from hashlib import sha256

from k3diff.audit.elfneeds import FastTap
from k3diff.errors import ArchiveError, CorruptEntryError
from k3diff.progress import Share
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.record import RecordLine
from k3diff.zip.archive import CHUNK, ZipArchive, crc32
from k3diff.zip.directory import DEFLATED, STORED, ZipEntry


def verify_entry(
    archive: ZipArchive,
    entry: ZipEntry,
    expected: RecordLine | None,
    tap: FastTap | None = None,
    share: Share | None = None,
) -> list[Finding]:
    """Findings for one entry: a corrupt stream (W604), an unreadable method (A114), or content
    whose hash (A103) or size (A104) contradicts its RECORD row. `tap` sees every chunk (the
    platform check reads ELF loader tables from this same read); `share` is told the bytes
    inflated as they come (progress)."""
    if entry.is_encrypted:
        return []  # W603 says so; there is nothing to read
    if entry.method not in (STORED, DEFLATED):
        return [Finding(Code.A114, entry.name, f"{entry.method_name} compression")]
    hasher = None
    if expected is not None and expected.algorithm is not None:
        hasher = hashlib.new(expected.algorithm)
    produced = 0
    try:
        for chunk in _content(archive, entry):
            produced += len(chunk)
            if hasher is not None:
                hasher.update(chunk)
            if tap is not None:
                tap.feed(chunk)
            if share is not None:
                share.produced(len(chunk))
    except CorruptEntryError as exc:
        return [Finding(Code.W604, entry.name, f"the stream: {exc.problem}")]
    except ArchiveError as exc:
        problem = str(exc).removeprefix(f"{archive.path}: ").removeprefix(f"entry {entry.name!r}")
        return [Finding(Code.W604, entry.name, problem.lstrip(": ") or str(exc))]
    if expected is None:
        return []
    findings: list[Finding] = []
    if hasher is not None and hasher.digest() != expected.digest:
        findings.append(_hash_finding(entry, expected, hasher.digest()))
    if expected.size is not None and expected.size != produced:
        findings.append(_size_finding(entry, expected, produced))
    return findings


def verify_small(
    archive: ZipArchive, entry: ZipEntry, expected: RecordLine | None
) -> tuple[list[Finding], bytes] | None:
    """`verify_entry` for an entry read whole in one step (most of a wheel's entries): its
    findings and its content, or None when it is not that simple (larger, encrypted, another
    method, a stream that does not end exactly at its declared size or fails its CRC-32): then
    `verify_entry` reads it and says what is wrong. The same findings as `verify_entry`, which
    reads such an entry through this same `small_content` and CRC-32 check."""
    if entry.size > CHUNK or entry.compressed_size > CHUNK:
        return None
    data = archive.small_content(entry)
    if data is None or crc32(data) != entry.crc32:
        return None
    return content_findings(entry, expected, data), data


def content_findings(entry: ZipEntry, expected: RecordLine | None, data: bytes) -> list[Finding]:
    """What `verify_entry` finds of the whole content `data` of `entry` (its stream read, its
    CRC-32 checked): a hash (A103) or size (A104) that contradicts RECORD's row. The usual row,
    a SHA-256 that holds, is settled first: hashed and compared as written, no decoding."""
    if expected is None:
        return []
    written = expected.sha256
    if written is not None and expected.size == len(data) and expected.algorithm == "sha256":
        canonical = b2a_base64(sha256(data).digest(), newline=False).rstrip(b"=")
        if canonical.translate(URLSAFE) == written.encode("ascii", "replace"):
            return []
    findings: list[Finding] = []
    algorithm = expected.algorithm
    if algorithm is not None:
        digest = hashlib.new(algorithm, data).digest()
        if not _matches(digest, expected):
            findings.append(_hash_finding(entry, expected, digest))
    if expected.size is not None and expected.size != len(data):
        findings.append(_size_finding(entry, expected, len(data)))
    return findings


def _matches(digest: bytes, expected: RecordLine) -> bool:
    """`digest == expected.digest`; a SHA-256 row first compared as written (the digest's
    canonical encoding: no decoding per row), decoded only when that differs."""
    if expected.algorithm == "sha256" and expected.sha256 is not None:
        written = binascii.b2a_base64(digest, newline=False).rstrip(b"=").translate(URLSAFE)
        if written == expected.sha256.encode("ascii", "replace"):
            return True
    return digest == expected.digest


def _hash_finding(entry: ZipEntry, expected: RecordLine, digest: bytes) -> Finding:
    assert expected.digest is not None
    return Finding(
        Code.A103,
        entry.name,
        f"RECORD says {expected.algorithm}={_b64(expected.digest)}, the content hashes "
        f"to {expected.algorithm}={_b64(digest)}",
    )


def _size_finding(entry: ZipEntry, expected: RecordLine, produced: int) -> Finding:
    return Finding(
        Code.A104, entry.name, f"RECORD says {expected.size:,} bytes, content is {produced:,}"
    )


def _content(archive: ZipArchive, entry: ZipEntry) -> Iterable[bytes]:
    """The entry's content: a small one (most of a wheel's entries) read with its local header
    in one pread and inflated in one step when its stream ends exactly at its declared size and
    its CRC-32 holds; anything else, and every problem's wording, from `content_chunks`."""
    if entry.size <= CHUNK and entry.compressed_size <= CHUNK:
        data = archive.small_content(entry)
        if data is not None and crc32(data) == entry.crc32:
            return (data,)
    return archive.content_chunks(entry)


URLSAFE = bytes.maketrans(b"+/", b"-_")
"""The standard base64 alphabet to the urlsafe one RECORD writes."""


def _b64(digest: bytes) -> str:
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")
