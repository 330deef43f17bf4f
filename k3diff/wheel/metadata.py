"""A wheel's identity (name, version, tags, requirements), read from `.dist-info/`.

METADATA and WHEEL are RFC 822 header blocks and are read with the standard library's email
parser. wheel-inspect parses them too, but importing it costs 70-140 ms (it pulls in docutils
through readme_renderer), a tenth of the whole run on a 900 MB wheel pair.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from email.message import Message
from email.parser import HeaderParser
from itertools import compress, repeat
from typing import TYPE_CHECKING

from k3diff.errors import CapError
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

if TYPE_CHECKING:  # built only when the two wheels' identities differ
    from k3diff.wheel.metachange import MetadataChange

METADATA_LIMIT = 16 << 20
"""Largest METADATA / WHEEL / RECORD file k3diff reads whole."""

MAX_HEADER_LINES = 20_000
"""Most header lines (before the first blank line) of METADATA / WHEEL k3diff parses: the
email parser costs about 800 bytes a line (500,000 `Requires-Dist` lines took 404 MB); real
METADATA has at most a few thousand."""

MAX_REQUIRES_PYTHON = 1_000
"""Longest METADATA `Requires-Python` (characters) k3diff reads: real ones are under 100
(`>=2.7, !=3.0.*, ..., !=3.7.*`); packaging parses one of a million clauses (6 MB) in seconds
into hundreds of MB, and the commands weigh it against many Pythons (review77a: `audit` took
21 s and 551 MB on one such wheel, a release set 33 s)."""


@dataclass(frozen=True)
class WheelIdentity:
    """What a wheel says about itself in `.dist-info/`."""

    dist_info: str | None
    """The `.dist-info` directory name, or None when the archive has none."""
    name: str | None
    """Project name from METADATA."""
    version: str | None
    """Version from METADATA."""
    tags: tuple[str, ...]
    """Compatibility tags from WHEEL."""
    requires_dist: tuple[str, ...]
    """Requires-Dist lines, sorted."""
    requires_python: str | None
    """Requires-Python from METADATA."""


def find_dist_info(archive: ZipArchive) -> str | None:
    """The top-level `.dist-info` directory holding METADATA (the first in sorted order)."""
    names = list(map(operator.itemgetter(0), archive.entries))
    metadata = compress(names, map(str.endswith, names, repeat(".dist-info/METADATA")))
    candidates = sorted({name.split("/", 1)[0] for name in metadata if name.count("/") == 1})
    return candidates[0] if candidates else None


def _entry(archive: ZipArchive, name: str) -> ZipEntry | None:
    """The last entry of that name: the one zipfile (and so pip) reads."""
    for entry in reversed(archive.entries):
        if entry.name == name:
            return entry
    return None


def read_member_text(archive: ZipArchive, name: str) -> str | None:
    """The member's text (UTF-8, errors replaced), or None when the archive has no such member
    or holds it encrypted (W603 fails the run then; there is nothing to read)."""
    entry = _entry(archive, name)
    if entry is None or entry.is_encrypted:
        return None
    data = archive.read_content(entry, METADATA_LIMIT)
    return data.decode("utf-8", errors="replace")


def read_identity(archive: ZipArchive) -> WheelIdentity:
    """Parse METADATA and WHEEL of the archive; missing files leave fields empty."""
    dist_info = find_dist_info(archive)
    if dist_info is None:
        return WheelIdentity(None, None, None, (), (), None)
    metadata = _headers(archive, f"{dist_info}/METADATA")
    wheel = _headers(archive, f"{dist_info}/WHEEL")
    return WheelIdentity(
        dist_info=dist_info,
        name=_single(metadata, "Name"),
        version=_single(metadata, "Version"),
        tags=tuple(wheel.get_all("Tag") or ()),
        requires_dist=tuple(
            sorted(" ".join(r.split()) for r in metadata.get_all("Requires-Dist") or ())
        ),
        requires_python=_requires_python(archive, dist_info, metadata),
    )


def _requires_python(archive: ZipArchive, dist_info: str, metadata: Message) -> str | None:
    """The Requires-Python; CapError past `MAX_REQUIRES_PYTHON`."""
    value = _single(metadata, "Requires-Python")
    if value is not None and len(value) > MAX_REQUIRES_PYTHON:
        raise CapError(
            f"{archive.path}: {dist_info}/METADATA Requires-Python is {len(value):,} characters, "
            f"over k3diff's cap of {MAX_REQUIRES_PYTHON:,}"
        )
    return value


def _headers(archive: ZipArchive, name: str) -> Message:
    text = read_member_text(archive, name) or ""
    end = min((i for i in (text.find("\n\n"), text.find("\n\r\n")) if i >= 0), default=len(text))
    if text.count("\n", 0, end) >= MAX_HEADER_LINES:
        raise CapError(
            f"{archive.path}: {name} has more than {MAX_HEADER_LINES} header lines (k3diff's cap)"
        )
    return HeaderParser().parsestr(text[:end], headersonly=True)


def _single(headers: Message, field: str) -> str | None:
    value = headers.get(field)
    return None if value is None else str(value).strip()


def identity_changes(base: WheelIdentity, patch: WheelIdentity) -> list[MetadataChange]:
    """The identity fields that differ, in a fixed order."""
    changes: list[MetadataChange] = []
    for field in ("name", "version", "tags", "requires_dist", "requires_python"):
        old, new = getattr(base, field), getattr(patch, field)
        if field == "tags":  # compressed and expanded spellings of one tag set are equal
            old, new = _expanded(old), _expanded(new)
        if old == new:
            continue
        from k3diff.wheel.metachange import MetadataChange  # only when an identity changed

        if isinstance(old, tuple) and isinstance(new, tuple):
            # Requirements compare as PEP 508 reads them (`x (>=1)` is `x>=1`); others as text.
            key = _requirement_key if field == "requires_dist" else str
            old_keys, new_keys = set(map(key, old)), set(map(key, new))
            if old_keys == new_keys:
                continue
            added = tuple(item for item in new if key(item) not in old_keys)
            removed = tuple(item for item in old if key(item) not in new_keys)
            changes.append(MetadataChange(field, _show(old), _show(new), added, removed))
        else:
            changes.append(MetadataChange(field, _show(old), _show(new)))
    return changes


def _requirement_key(line: str) -> object:
    """One Requires-Dist line as PEP 508 reads it (name normalised, extras and specifiers as a
    set, marker, URL), so a re-spelling is no change; a line `packaging` cannot read compares
    as its text."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    try:
        req = Requirement(line)
    except InvalidRequirement:
        return line
    marker = None if req.marker is None else str(req.marker)
    return (canonicalize_name(req.name), frozenset(req.extras), req.specifier, marker, req.url)


def _expanded(lines: tuple[str, ...]) -> tuple[str, ...]:
    from k3diff.wheel.tags import expand_all

    return tuple(sorted(expand_all(lines)))


def _show(value: object) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, tuple):
        return ", ".join(value) if value else "(none)"
    return str(value)
