"""One pool task of `audit`: verify a batch of one wheel's entries against RECORD, and read the
loader tables of the ELFs among them from the same read (`platform`).

An entry of at most one chunk, nearly every entry of a wheel, takes `verify_small`'s path
(unrolled in the loop: it runs 12,000 times on the torch CPU wheel): read in one pread,
inflated in one step, CRC-32 checked, hashed in one call and the usual row settled as written
(`content_findings`), and its head tested for the ELF magic; only an ELF gets a tap. Everything
else, and every small entry that is not that simple, takes `verify_entry`'s stream with a tap
for each entry whose path may be native. Both give the same findings, natives and not-an-ELF
positions (tests/audit/test_batch.py compares them).
"""

from __future__ import annotations

from binascii import b2a_base64
from hashlib import sha256

from k3diff.audit.platform import NativeNeeds, native_needs, tap_for
from k3diff.audit.verify import URLSAFE as _URLSAFE
from k3diff.audit.verify import content_findings, verify_entry
from k3diff.errors import InputError
from k3diff.progress import Tally
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.record import RecordLine
from k3diff.zip.archive import ZipArchive, crc32
from k3diff.zip.directory import ZipEntry

Verified = tuple[list[Finding], list[NativeNeeds], list[int]]
"""A batch's findings, its ELF entries' needs and the positions of entries seen not to be ELFs."""

_ELF_MAGIC = b"\x7fELF"


def verify_batch(
    archive: ZipArchive,
    expected: dict[str, RecordLine],
    entries: list[ZipEntry],
    tally: Tally,
    *,
    small_path: bool = True,
) -> Verified:
    """Verify `entries` of `archive`; `small_path` False streams every entry (the reference
    the tests compare the small path with)."""
    found: list[Finding] = []
    natives: list[NativeNeeds] = []
    not_elf: list[int] = []
    advance = tally.advance() if tally.listened else None
    row_of = expected.get
    # `verify_small`, unrolled: this loop runs for nearly every entry of a wheel.
    small_content = archive.small_content if small_path else _not_small
    try:
        for entry in entries:
            data = small_content(entry)
            if data is None or crc32(data) != entry.crc32:
                _stream(archive, entry, row_of(entry.name), tally, found, natives, not_elf)
                continue
            if advance is not None:
                advance(entry.compressed_size)
            row = row_of(entry.name)
            # `content_findings`' first test, inline (the usual row: a SHA-256 that holds,
            # compared as written); any other row goes to it, which tests it again.
            if (
                row is None
                or row.sha256 is None
                or row.size != len(data)
                or row.algorithm != "sha256"
                or b2a_base64(sha256(data).digest(), newline=False).rstrip(b"=").translate(_URLSAFE)
                != row.sha256.encode("ascii", "replace")
            ):
                problems = content_findings(entry, row, data)
                if problems:
                    found.extend(problems)
            if not data.startswith(_ELF_MAGIC):
                # Read and seen not to start with the magic: what a tap would say, for every
                # entry (mode_findings reads no head of it, which could not be an ELF's).
                not_elf.append(entry.position)
                continue
            tap = tap_for(entry)
            if tap is not None:
                try:
                    tap.feed_whole(data)
                    needs = native_needs(archive, entry, tap)
                finally:
                    tap.release()
                if needs is not None:
                    natives.append(needs)
    except OSError as exc:  # the disk, not the archive: the artifact cannot be read
        raise InputError(f"{archive.path}: cannot read: {exc.strerror or exc}") from exc
    return found, natives, not_elf


def _not_small(_entry: ZipEntry) -> None:
    """`small_content` that never reads: every entry streams (`small_path` False)."""
    return None


def _stream(
    archive: ZipArchive,
    entry: ZipEntry,
    row: RecordLine | None,
    tally: Tally,
    found: list[Finding],
    natives: list[NativeNeeds],
    not_elf: list[int],
) -> None:
    """One entry through `verify_entry`'s stream, with a tap when its path may be native."""
    tap = tap_for(entry)
    share = tally.share(entry.compressed_size, entry.size)
    try:
        problems = verify_entry(archive, entry, row, tap, share)
        share.finish()
        found.extend(problems)
        corrupt = any(p.code is Code.W604 for p in problems)
        needs = native_needs(archive, entry, tap) if tap and not corrupt else None
    finally:
        if tap is not None:
            tap.release()  # tables kept ahead of a second pass (`tablecapture`)
    if needs is not None:
        natives.append(needs)
    if tap is not None and tap.not_elf:
        not_elf.append(entry.position)
