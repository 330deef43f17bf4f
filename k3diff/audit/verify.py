"""Stream one entry's content through its RECORD hash, and the whole-file SHA-256.

Memory stays bounded by the read chunk whatever the entry's size: content arrives from
`ZipArchive.content_chunks`, which checks the stream's own CRC-32 and size and never inflates
past the declared size, or for an entry of at most one chunk from `ZipArchive.small_content`
(one pread with the local header, one inflate step), its CRC-32 checked here. zlib/ISA-L and hashlib release the GIL, so threads scale across cores.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable

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
        assert expected.digest is not None
        findings.append(
            Finding(
                Code.A103,
                entry.name,
                f"RECORD says {expected.algorithm}={_b64(expected.digest)}, the content hashes "
                f"to {expected.algorithm}={_b64(hasher.digest())}",
            )
        )
    if expected.size is not None and expected.size != produced:
        findings.append(
            Finding(
                Code.A104,
                entry.name,
                f"RECORD says {expected.size} bytes, content is {produced}",
            )
        )
    return findings


def _content(archive: ZipArchive, entry: ZipEntry) -> Iterable[bytes]:
    """The entry's content: a small one (most of a wheel's entries) read with its local header
    in one pread and inflated in one step when its stream ends exactly at its declared size and
    its CRC-32 holds; anything else, and every problem's wording, from `content_chunks`."""
    if entry.size <= CHUNK and entry.compressed_size <= CHUNK:
        data = archive.small_content(entry)
        if data is not None and crc32(data) == entry.crc32:
            return (data,)
    return archive.content_chunks(entry)


def _b64(digest: bytes) -> str:
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")
