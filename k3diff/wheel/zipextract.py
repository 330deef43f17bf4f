"""What CPython's `zipfile`, which pip 26 extracts wheels with, refuses when extracting an
entry, so that pip's install stops half-way (W616): a name that decodes differently in the
local header, because the UTF-8 flag differs ("File name in directory and header differ"), and
flag bit 5 in a directory record ("compressed patched data"). An extra field running past its
area ("Corrupt extra field") is refused when the archive is opened, by k3diff's reader as by
`zipfile`."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from itertools import repeat
from operator import and_

from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import LOCAL_HEADER, ZipEntry

_UTF8 = 0x800
_PATCHED_DATA = 0x20
"""Flag bit 5 of a directory record, "compressed patched data" (PKZIP 2.7)."""
_FLAGS = operator.itemgetter(3)
_NAME_BYTES = operator.itemgetter(10)


def header_problems(archive: ZipArchive) -> Iterator[tuple[str, str]]:
    """What CPython's `zipfile` refuses when extracting: a name that decodes differently in the
    local header. (An extra field running past its area, which `zipfile` refuses when opening
    the archive, is refused by k3diff's central-directory reader the same way: exit 2 in
    `wheels`, A001 in `audit`.)"""
    if b"".join(map(_NAME_BYTES, archive.entries)).isascii():
        return  # nearly every wheel: every name ASCII, decoded alike whatever the flag says
    for entry in archive.entries:
        if not entry.name_bytes.isascii():
            problem = _local_name_problem(archive, entry)
            if problem is not None:
                yield entry.name, problem


def patched_data_problems(archive: ZipArchive) -> Iterator[tuple[str, str]]:
    """Entries whose directory record sets flag bit 5 (compressed patched data): `zipfile`
    refuses to open them (NotImplementedError) and pip's install stops there. (Bit 6, strong
    encryption, is refused alike and is W603, with bit 0.)"""
    if not any(map(and_, map(_FLAGS, archive.entries), repeat(_PATCHED_DATA))):
        return  # nearly every wheel: one test of every entry's flags, in C
    for entry in archive.entries:
        if entry.flags & _PATCHED_DATA:
            yield (
                entry.name,
                "compressed patched data (flag bit 5): zipfile refuses to read the entry "
                "(NotImplementedError) and the install stops there",
            )


def _local_name_problem(archive: ZipArchive, entry: ZipEntry) -> str | None:
    header = archive.pread(LOCAL_HEADER.size, entry.header_offset)
    if len(header) < LOCAL_HEADER.size:
        return None  # no local header: W609's finding
    flags, name_len = LOCAL_HEADER.unpack(header)[2], LOCAL_HEADER.unpack(header)[9]
    raw = archive.pread(name_len, entry.header_offset + LOCAL_HEADER.size)
    try:
        local = raw.decode("utf-8" if flags & _UTF8 else "cp437")
    except UnicodeDecodeError:
        local = None
    if local == entry.name:
        return None
    return (
        "the local header's name decodes differently from the central directory's "
        f"(UTF-8 flag {'set' if flags & _UTF8 else 'clear'} locally, "
        f"{'set' if entry.flags & _UTF8 else 'clear'} in the directory): zipfile aborts the "
        "extraction"
    )
