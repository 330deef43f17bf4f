"""PEP 658 metadata files: `NAME.whl.metadata` beside a wheel is what an index serves as the
wheel's METADATA, and what resolvers act on before they download the wheel (pip then raises
`MetadataInconsistent` if the two disagree). `audit` compares it with the wheel's own
`.dist-info/METADATA` byte for byte, for a wheel given explicitly and for every wheel of an
audited directory; a difference is A124, naming the header fields that differ (or the
description body). A symbolic link, a FIFO or another non-regular file in its place is
refused as every input is (exit 2)."""

from __future__ import annotations

import os
from email.message import Message
from email.parser import BytesHeaderParser
from pathlib import Path

from k3diff import bounded
from k3diff.errors import ArchiveError, CapError, InputError
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.metadata import MAX_HEADER_LINES, METADATA_LIMIT
from k3diff.zip.archive import ZipArchive

SUFFIX = ".metadata"


def sidecar_path(wheel: Path) -> Path:
    """Where an index's PEP 658 file for `wheel` lies (`demo-1.0-py3-none-any.whl.metadata`)."""
    return wheel.with_name(wheel.name + SUFFIX)


def sidecar_findings(wheel: Path, archive: ZipArchive, dist_info: str | None) -> list[Finding]:
    """A124 when the wheel's PEP 658 file exists and differs from its METADATA."""
    sidecar = sidecar_path(wheel)
    if not os.path.lexists(sidecar):
        return []
    display = str(sidecar)
    with bounded.open_input(sidecar, display, "PEP 658 metadata file") as handle:
        served = handle.read(METADATA_LIMIT + 1)
    if len(served) > METADATA_LIMIT:
        raise InputError(f"{display}: larger than {METADATA_LIMIT:,} bytes (k3diff's cap)")
    own = _own_metadata(archive, dist_info)
    if own is None:
        detail = f"{sidecar.name} is served for a wheel without a readable METADATA"
        return [Finding(Code.A124, sidecar.name, detail)]
    if own == served:
        return []
    fields = differing_fields(served, own)
    named = ", ".join(fields) if fields else "the bytes only (line endings or spacing)"
    detail = (
        f"{sidecar.name} differs from {dist_info}/METADATA: {named}; resolvers act on the "
        "served file before they download the wheel"
    )
    return [Finding(Code.A124, sidecar.name, detail)]


def _own_metadata(archive: ZipArchive, dist_info: str | None) -> bytes | None:
    if dist_info is None:
        return None
    name = f"{dist_info}/METADATA"
    entry = next((e for e in reversed(archive.entries) if e.name == name), None)
    if entry is None or entry.is_encrypted:
        return None
    try:
        return archive.read_content(entry, METADATA_LIMIT)
    except CapError:
        raise
    except ArchiveError:
        return None


def differing_fields(served: bytes, own: bytes) -> list[str]:
    """Header fields (lowercase) whose values differ, then `description (body)` when the
    bodies do."""
    if max(_header_lines(served), _header_lines(own)) > MAX_HEADER_LINES:
        return [f"the headers (over {MAX_HEADER_LINES:,} lines: not compared field by field)"]
    left, right = _parse(served), _parse(own)
    keys = sorted({k.lower() for k in left} | {k.lower() for k in right})
    fields = [key for key in keys if _values(left, key) != _values(right, key)]
    if _body(served) != _body(own):
        fields.append("description (body)")
    return fields


def _header_lines(data: bytes) -> int:
    end = min(
        (i for i in (data.find(b"\n\n"), data.find(b"\r\n\r\n")) if i >= 0), default=len(data)
    )
    return data.count(b"\n", 0, end)


def _parse(data: bytes) -> Message:
    return BytesHeaderParser().parsebytes(data)


def _values(message: Message, key: str) -> list[str]:
    return [" ".join(str(value).split()) for value in message.get_all(key) or ()]


def _body(data: bytes) -> bytes:
    for separator in (b"\n\n", b"\r\n\r\n"):
        at = data.find(separator)
        if at >= 0:
            return data[at + len(separator) :].strip()
    return b""
