"""RECORD checked against the archive's entries in `k3diff audit`.

RECORD itself is read by the one strict parser `wheels` uses too (`k3diff.wheel.record.
parse_record`), which judges every row and collects its findings (A102, A107-A110, A112); here
the rows meet the archive: files RECORD omits, rows naming absent files, signature files.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from itertools import compress, repeat
from operator import itemgetter

from k3diff.wheel.codes import UNVOUCHED_CODES, Code, Finding
from k3diff.wheel.kinds import is_native_entry
from k3diff.wheel.record import SIGNATURES, RecordLine
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

_NAME = itemgetter(0)
"""`ZipEntry.name`, as a C-level key."""


def membership_findings(
    expected: Mapping[str, RecordLine], entries: Iterable[ZipEntry], dist_info: str
) -> list[Finding]:
    """A105 for files RECORD omits (a directory entry that holds content counts as a file),
    A106 for rows naming absent files, A111 for signatures."""
    listed = list(entries)
    names = list(map(_NAME, listed))  # C-level maps: a wheel has tens of thousands of entries
    present = set(names)
    exempt = {f"{dist_info}/RECORD", *(f"{dist_info}/{s}" for s in SIGNATURES)}
    # Only a name ending in '/' can be an empty directory: test those alone (a wheel of 12,000
    # entries has a few hundred), and sort only the names a finding is about.
    directories = list(compress(listed, map(str.endswith, names, repeat("/"))))
    empty = {entry.name for entry in directories if is_empty_directory(entry)}
    # a name that is also given with content is a file (some entry of it is verified)
    empty -= {entry.name for entry in directories if not is_empty_directory(entry)}
    files = present - empty
    findings = [
        Finding(Code.A105, name, "in the archive, not in RECORD")
        for name in sorted(files - expected.keys() - exempt)
    ]
    findings += [
        Finding(Code.A106, path, "in RECORD, not in the archive")
        for path in sorted(expected.keys() - present)
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


def mark_natives(archive: ZipArchive, findings: Iterable[Finding]) -> list[Finding]:
    """`findings`, each one that says RECORD does not vouch for an entry (`UNVOUCHED_CODES`)
    marked `native` when that entry is native code by name or content magic: a waiver then
    covers it by its exact path only (a glob such as `pkg/*` on A105 would pass an unlisted
    `pkg/evil.so` unseen). Only those findings' entries are read (a few bytes each)."""
    found = list(findings)
    about = {f.path for f in found if f.code in UNVOUCHED_CODES and f.path}
    if not about:
        return found
    # The last entry of a name, as zipfile reads it (a name given twice is W608).
    entries = {entry.name: entry for entry in archive.entries if entry.name in about}
    native = {name for name, entry in entries.items() if is_native_entry(archive, entry)}
    return [
        dataclasses.replace(f, native=True) if f.code in UNVOUCHED_CODES and f.path in native else f
        for f in found
    ]
