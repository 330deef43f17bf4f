"""What pip 26 refuses in a wheel's own files, beyond the archive and `.dist-info` layout
`k3diff.wheel.installable` checks: every reason is one W616 in `wheels` and in `audit`.

* a filename version, or a METADATA `Version`, that PEP 440 (`packaging`) cannot parse: pip
  26 says "Invalid wheel filename (invalid version)" before it opens the archive, and refuses a
  METADATA version as well (twine and PyPI refuse both);
* a `.dist-info` without METADATA, and METADATA or WHEEL that is not UTF-8 (pip's
  "error decoding");
* a blank line in RECORD: the csv module reads it as an empty row, whose path pip takes as
  `row[0]`, and the install stops half-way with an IndexError (pip 23 to 26);
* a console or GUI script entry point without a `:callable` suffix ("Invalid script entry
  point ... A callable suffix is required").
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from pathlib import PurePath

from packaging.version import InvalidVersion, Version

from k3diff.errors import ArchiveError, CapError
from k3diff.wheel.metadata import METADATA_LIMIT
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

_CALLABLE = re.compile(r"\s*[\w.]+\s*:\s*\w+(?:\.\w+)*\s*(?:\[[^\]]*\])?\s*")
"""A script entry point's object reference as pip's script maker (distlib) needs it:
`module:attr`, an optional `[extras]` after it."""


def _bytes(archive: ZipArchive, name: str) -> bytes | None:
    entry: ZipEntry | None = next((e for e in reversed(archive.entries) if e.name == name), None)
    if entry is None or entry.is_encrypted:
        return None
    try:
        return archive.read_content(entry, METADATA_LIMIT)
    except CapError:
        raise
    except ArchiveError:
        return None  # a corrupt stream is its entry's own finding (W604)


def _invalid_version(version: str) -> str | None:
    try:
        Version(version)
    except InvalidVersion:
        return f"version {version!r} is not a PEP 440 version (packaging cannot parse it)"
    return None


def filename_refusals(path: str) -> Iterator[tuple[str, str]]:
    """pip's "Invalid wheel filename (invalid version)"."""
    filename = PurePath(path).name
    parts = filename.removesuffix(".whl").split("-")
    if filename.endswith(".whl") and len(parts) in (5, 6):
        problem = _invalid_version(parts[1].replace("_", "-"))
        if problem is not None:
            yield "", f"invalid wheel filename {filename!r}: {problem}"


def dist_info_refusals(
    archive: ZipArchive, dist_info: str, script_values: Iterable[tuple[str, str]]
) -> Iterator[tuple[str, str]]:
    """(archive path, reason) for each file of the one `.dist-info` pip refuses."""
    metadata = _bytes(archive, f"{dist_info}/METADATA")
    if metadata is None and not any(e.name == f"{dist_info}/METADATA" for e in archive.entries):
        yield f"{dist_info}/METADATA", "the .dist-info directory has no METADATA"
    for name, data in (
        (f"{dist_info}/METADATA", metadata),
        (f"{dist_info}/WHEEL", _bytes(archive, f"{dist_info}/WHEEL")),
    ):
        if data is None:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield name, f"not UTF-8 (byte {exc.start}: {exc.reason}); pip fails decoding it"
            continue
        if name.endswith("/METADATA"):
            yield from _metadata_version(name, text)
    record = _bytes(archive, f"{dist_info}/RECORD")
    if record is not None:
        yield from _blank_record_rows(f"{dist_info}/RECORD", record)
    for script, value in script_values:
        if not _CALLABLE.fullmatch(value):
            yield (
                f"{dist_info}/entry_points.txt",
                f"script entry point {script!r} = {value!r} has no ':callable' suffix "
                "(pip: 'Invalid script entry point ... A callable suffix is required')",
            )


def _metadata_version(name: str, text: str) -> Iterator[tuple[str, str]]:
    for line in text.split("\n"):
        if not line.strip():
            return  # the header block ends at the first blank line
        if line.lower().startswith("version:"):
            problem = _invalid_version(line.split(":", 1)[1].strip())
            if problem is not None:
                yield name, f"METADATA {problem}"
            return


_LINE_BREAK_PAIRS = (b"\n\n", b"\r\n", b"\n\r", b"\r\r")


def _may_hold_blank_line(data: bytes) -> bool:
    """True when a line break starts the data or follows another one: only then can csv read
    a blank row, so nearly every RECORD skips the csv pass (substring tests, a few ms on a
    1.3 MB RECORD; a regular expression took tens)."""
    if data[:1] in (b"\n", b"\r"):
        return True
    if b"\r" not in data:  # one byte search (memchr) rules out three of the four pairs
        return b"\n\n" in data
    return any(pair in data for pair in _LINE_BREAK_PAIRS)


def _blank_record_rows(name: str, data: bytes) -> Iterator[tuple[str, str]]:
    if not _may_hold_blank_line(data):
        return
    text = data.decode("utf-8", errors="replace")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            if not row:
                yield (
                    name,
                    f"RECORD line {reader.line_num} is blank: pip reads it as an empty row "
                    "and stops the install half-way (IndexError)",
                )
                return
    except csv.Error:
        return  # the strict RECORD reader says what is wrong (A102 / exit 2)
