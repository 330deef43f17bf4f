"""The `.dist-info` pip 26 installs a wheel by and what its WHEEL file says to pip: pip's
`wheel_dist_info_dir` (exactly one top-level `.dist-info`, named for the project), the
`Wheel-Version` checks of `parse_wheel` (major 1), `Root-Is-Purelib`, and the `Tag:` lines
(`k3diff.wheel.filename.installing_tags`). Members are read as `zipfile` reads them: the last
entry of a name (W608)."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from email.parser import HeaderParser
from itertools import repeat

from k3diff.errors import ArchiveError, CapError
from k3diff.wheel.filename import normalized_name, parse_wheel_filename
from k3diff.wheel.metadata import METADATA_LIMIT
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

_NAME = operator.itemgetter(0)
_HEAD = operator.itemgetter(0)


def member(archive: ZipArchive, name: str) -> ZipEntry | None:
    """The last entry of that name: the one zipfile reads and pip leaves on disk (W608)."""
    return next((entry for entry in reversed(archive.entries) if entry.name == name), None)


def member_text(archive: ZipArchive, name: str) -> str | None:
    """The member's text (UTF-8, errors replaced), None when it is absent or unreadable."""
    entry = member(archive, name)
    if entry is None:
        return None
    try:
        return archive.read_content(entry, METADATA_LIMIT).decode("utf-8", errors="replace")
    except CapError:
        raise  # over 16 MiB: refused (exit 2), as METADATA is, never read as absent
    except ArchiveError:
        return None  # a corrupt stream is its own finding (W604)


def dist_info_dir(
    archive: ZipArchive, problems: list[tuple[str, str]], tops: frozenset[str] | None = None
) -> str | None:
    """pip's `wheel_dist_info_dir`: exactly one top-level `.dist-info`, named for the project;
    `tops`: every name's first component, when told. What pip refuses goes to `problems`."""
    if tops is None:
        names: Iterator[str] = map(_NAME, archive.entries)
        tops = frozenset(map(_HEAD, map(str.partition, names, repeat("/"))))
    found = sorted(tops - {""})
    dirs = [name for name in found if name.endswith(".dist-info")]
    if not dirs:
        problems.append(("", "no .dist-info directory"))
        return None
    if len(dirs) > 1:
        problems.append(("", f"{len(dirs)} .dist-info directories ({', '.join(dirs)})"))
        return None
    filename = parse_wheel_filename(str(archive.path))
    if filename is not None:
        project = normalized_name(filename.name)
        if not normalized_name(dirs[0]).startswith(project):
            problems.append((dirs[0], f"the .dist-info directory does not start with {project!r}"))
    return dirs[0]


def root_is_purelib(
    text: str | None, dist_info: str | None, problems: list[tuple[str, str]]
) -> bool:
    """Root-Is-Purelib from WHEEL, after pip's Wheel-Version checks (what pip refuses goes to
    `problems`)."""
    if dist_info is None:
        return True
    where = f"{dist_info}/WHEEL"
    if text is None:
        problems.append((where, "no readable WHEEL file"))
        return True
    headers = HeaderParser().parsestr(text, headersonly=True)
    version = headers.get("Wheel-Version")
    if version is None:
        problems.append((where, "WHEEL has no Wheel-Version"))
    else:
        try:
            # pip parses every component, so "1.x" is refused as well.
            parts = tuple(map(int, str(version).strip().split(".")))
            major = parts[0]
        except ValueError:
            problems.append((where, f"invalid Wheel-Version {str(version).strip()!r}"))
        else:
            if major > 1:
                problems.append((where, f"Wheel-Version {str(version).strip()} (pip reads 1.x)"))
    return str(headers.get("Root-Is-Purelib", "")).strip().lower() == "true"


def tag_lines(text: str | None) -> tuple[str, ...]:
    """The `Tag:` lines of a WHEEL file's text (none where there is no text)."""
    headers = HeaderParser().parsestr(text or "", headersonly=True)
    return tuple(str(tag) for tag in headers.get_all("Tag") or ())
