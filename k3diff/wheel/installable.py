"""Whether pip can install a wheel, and the installed view both commands compare.

`install_check` is the one place `wheels` and `audit` learn what pip would do with a wheel:
the installed view (`k3diff.wheel.installed`) and every reason pip would refuse the wheel or
abort half-way (W616), every group of entries that end as one file (W615), every directory
entry carrying data pip silently drops (W617), every path RECORD lists twice (W618) and every
file Windows cannot write as named (W619: `k3diff.wheel.windowsnames`). The
refusals follow pip 26's `parse_wheel` (exactly one `.dist-info`, named for the project, a WHEEL
with `Wheel-Version` major 1) and CPython's `zipfile`, which pip reads archives with (a name
decoding differently in the local header, because the UTF-8 flag differs, is "File name in
directory and header differ"; flag bit 5 in a directory record is "compressed patched data"; an extra field running past its area, "Corrupt extra field", is
refused when the archive is opened, by k3diff's reader as by `zipfile`).
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from email.parser import HeaderParser
from functools import partial
from itertools import repeat
from operator import and_
from typing import TYPE_CHECKING

from k3diff.errors import ArchiveError, CapError
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.extplatforms import EVERY_CASE, CaseRule, case_rule
from k3diff.wheel.filename import normalized_name, parse_wheel_filename
from k3diff.wheel.installed import InstalledView, NameScreens, installed_view
from k3diff.wheel.installedbeside import installed_view_beside
from k3diff.wheel.metadata import METADATA_LIMIT
from k3diff.wheel.record import Record, parse_record
from k3diff.wheel.refusals import dist_info_refusals, filename_refusals, script_file
from k3diff.wheel.tags import expand_all
from k3diff.wheel.targets import ANY, TargetPythons, target_pythons
from k3diff.wheel.versionbound import installs_nowhere, version_bound
from k3diff.wheel.windowsnames import (
    apart_on_windows,
    may_hold_windows_names,
    script_collisions,
    windows_refusals,
)
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import LOCAL_HEADER, ZipEntry

if TYPE_CHECKING:  # parsed by importlib.metadata, loaded only for a wheel with entry points
    from importlib.metadata import EntryPoint

_UTF8 = 0x800
_PATCHED_DATA = 0x20
"""Flag bit 5 of a directory record, "compressed patched data" (PKZIP 2.7)."""
_FLAGS = operator.itemgetter(3)
_NAME = operator.itemgetter(0)
_NAME_BYTES = operator.itemgetter(10)
_HEAD = operator.itemgetter(0)
SCRIPT_GROUPS = ("console_scripts", "gui_scripts")
"""Entry-point groups pip turns into scripts in the scripts directory."""


@dataclass(frozen=True)
class WheelInstall:
    """What pip would make of one wheel."""

    view: InstalledView
    """Every file entry and where it installs, with collisions and refusals."""
    dist_info: str | None
    """The one `.dist-info` directory pip would use (None when there is none, or several)."""
    entry_points: Sequence[EntryPoint]
    """`entry_points.txt`, parsed by `importlib.metadata` (its `EntryPoints`; an empty tuple
    when absent or unparsable)."""
    entry_points_text: str | None
    """The raw `entry_points.txt`, None when absent."""
    checks: tuple[Finding, ...]
    """W615-W619 for this wheel."""
    targets: TargetPythons = ANY
    """The Pythons and platforms its tags admit."""
    case: CaseRule = EVERY_CASE
    """Where a system its tags admit finds a name in another case (`extplatforms.case_rule`)."""

    @property
    def unusable_dist_info(self) -> bool:
        """pip finds no one `.dist-info` with METADATA: what the wheel says of itself (its
        identity, its RECORD) is not what pip would read, and only W616 says so."""
        return self.dist_info is None or any(
            f.code is Code.W616
            and f.path == f"{self.dist_info}/METADATA"
            and "no METADATA" in f.detail
            for f in self.checks
        )


def parse_entry_points(text: str | None) -> Sequence[EntryPoint]:
    """Entry points of an `entry_points.txt`, parsed by the standard library (`()` when there
    is none: most wheels have none, and `importlib.metadata`, with the `zipfile`, `shutil`,
    `tempfile` and `importlib.resources` it imports, is then never loaded)."""
    if text is None:
        return ()
    from k3diff.wheel.entrypoints import parse_text

    return parse_text(text)


def generated_scripts(
    console: dict[str, str], targets: TargetPythons = ANY
) -> list[tuple[str, str, str]]:
    """(file, object, name) of the console scripts pip generates (the file under the scripts
    directory: `refusals.script_file`; the name pip made it for), with its special cases (pip's
    `get_console_script_specs`, no `ENSUREPIP_OPTIONS`): `pip` also becomes `pipX` and `pipX.Y`
    and `easy_install` also `easy_install-X.Y`, for the X.Y of the Python the wheel installs on
    (the running interpreter's when its tags admit several), and other versioned names of the
    two are dropped."""
    console = dict(console)
    version = targets.version_text()
    scripts: list[tuple[str, str]] = []
    pip = console.pop("pip", None)
    if pip is not None:
        major = version.split(".", 1)[0]
        scripts += [("pip", pip), (f"pip{major}", pip), (f"pip{version}", pip)]
        console = {k: v for k, v in console.items() if not re.match(r"pip(\d+(\.\d+)?)?$", k)}
    easy = console.pop("easy_install", None)
    if easy is not None:
        scripts += [("easy_install", easy), (f"easy_install-{version}", easy)]
        console = {
            k: v for k, v in console.items() if not re.match(r"easy_install(-\d+\.\d+)?$", k)
        }
    return [
        (script_file(name, value), value, name) for name, value in scripts + list(console.items())
    ]


def install_check(
    archive: ZipArchive,
    side: str,
    *,
    record_rows: bool = True,
    record: Record | None = None,
    screens: NameScreens | None = None,
    beside: WheelInstall | None = None,
    requires_python: str | None = None,
) -> WheelInstall:
    """The installed view of `archive` and the W615-W619 findings (`side`: base, patch, audited;
    `record_rows` False skips W618, for `audit`, whose strict RECORD reader says A112).
    `record`: the wheel's RECORD as the caller already parsed it, so that it is not read and
    parsed again here (used when it is the RECORD of the `.dist-info` pip would use).
    `screens`: the archive's names screened already (`wheel.namescreens`); `beside`: another
    wheel's, whose installed view the view may share (`wheel.installedbeside`);
    `requires_python`: its METADATA's, as the caller read it for the wheel's identity (W629)."""
    problems: list[tuple[str, str]] = []
    joined = _joined(archive)  # the name screens below test it
    dist_info = _dist_info(archive, problems, None if screens is None else screens.tops)
    wheel_text = _member_text(archive, f"{dist_info}/WHEEL") if dist_info else None
    root_is_purelib = _wheel_file(wheel_text, dist_info, problems)
    ep_text = _member_text(archive, f"{dist_info}/entry_points.txt") if dist_info else None
    try:
        entry_points = parse_entry_points(ep_text)
    except (ValueError, TypeError, IndexError, AttributeError) as exc:  # hostile text
        problems.append(
            (f"{dist_info}/entry_points.txt", f"entry_points.txt does not parse: {exc}")
        )
        entry_points = ()
    scripts = [ep.name for ep in entry_points if ep.group in SCRIPT_GROUPS]
    console = {ep.name: ep.value for ep in entry_points if ep.group == "console_scripts"}
    tags = installing_tags(archive, wheel_text)
    case = case_rule(tags)
    targets = target_pythons(tags)
    # pip writes every console script, then every GUI script, each over any file there: two
    # that resolve to one file are told apart by their group and declared name (W615).
    generated = [
        (file, f"console script {name!r}") for file, _, name in generated_scripts(console, targets)
    ] + [
        (script_file(ep.name, ep.value), f"GUI script {ep.name!r}")
        for ep in entry_points
        if ep.group == "gui_scripts"
    ]
    name = dist_info.split("-", 1)[0] if dist_info else None
    view = (
        installed_view if beside is None else partial(installed_view_beside, beside=beside.view)
    )(
        archive.entries,
        root_is_purelib=root_is_purelib,
        dist_name=name,
        entry_point_scripts=scripts,
        generated=generated,
        generated_from=f"{dist_info}/entry_points.txt",
        targets=targets,
        screens=screens,
    )
    problems.extend(view.problems)
    problems.extend(_header_problems(archive))
    problems.extend(_patched_data_problems(archive))
    problems.extend(filename_refusals(str(archive.path)))
    if dist_info and (nowhere := installs_nowhere(tags, requires_python)) is not None:
        problems.append((nowhere[0] and f"{dist_info}/{nowhere[0]}", nowhere[1]))
    if dist_info is not None:
        script_values = [(ep.name, ep.value) for ep in entry_points if ep.group in SCRIPT_GROUPS]
        # A RECORD the caller read as plain lines holds no blank row: not searched again.
        plain = record is not None and record.plain and record.path == f"{dist_info}/RECORD"
        problems.extend(dist_info_refusals(archive, dist_info, script_values, plain))
    checks: list[Finding] = [  # W616 says "pip cannot install"
        Finding(Code.W616, path, f"in the {side} wheel: {reason}") for path, reason in problems
    ]
    checks += [
        Finding(Code.W615, collision.path, f"in the {side} wheel: {collision.describe()}")
        for collision in (*view.collisions, *script_collisions(view.files))
        # whatever the tags, as W619 (`--platform manylinux…` onto NTFS, APFS: review69d)
        if not apart_on_windows(collision, view.files)
    ]
    maybe = may_hold_windows_names(joined) if screens is None else screens.windows_names
    checks += [
        Finding(Code.W619, path, f"in the {side} wheel, installed as {installed}: {why}")
        for path, installed, why in windows_refusals(view.files, names_clear=not maybe)
    ]
    checks += [
        Finding(Code.W627, path, f"in the {side} wheel: {reason}") for path, reason in view.partial
    ]
    checks += [
        Finding(Code.W629, path, f"in the {side} wheel: {reason}")
        for path, reason in version_bound(joined, view.files, tags, requires_python)
    ]
    checks += [
        Finding(
            Code.W617,
            entry.name,
            f"in the {side} wheel: a directory entry carrying {entry.size:,} bytes, which pip "
            "never installs",
        )
        for entry in _directories(
            archive, joined, None if screens is None else screens.has_directory
        )
        if entry.size > 0 or entry.compressed_size > 2
    ]
    if dist_info is not None and record_rows:
        checks += _duplicate_record_rows(archive, f"{dist_info}/RECORD", side, record)
    return WheelInstall(view, dist_info, entry_points, ep_text, tuple(checks), targets, case)


def _joined(archive: ZipArchive) -> str:
    """The archive's names joined by NULs (no name holds one: zipfile cuts names there)."""
    return "\0".join(map(_NAME, archive.entries))


def _directories(
    archive: ZipArchive, joined: str, has_directory: bool | None = None
) -> list[ZipEntry]:
    """The directory entries (names ending in a slash), told by one test of every name first
    (`has_directory`, when told, else of `joined`, the names `_joined`)."""
    if has_directory is None:
        has_directory = "/\0" in joined or joined.endswith("/")
    if not has_directory:
        return []
    return [entry for entry in archive.entries if entry.is_dir]


def installing_tags(archive: ZipArchive, wheel_text: str | None) -> frozenset[str]:
    """The tags pip selects the wheel by: its filename's, else its WHEEL file's Tag lines."""
    filename = parse_wheel_filename(str(archive.path))
    if filename is not None:
        return filename.tags
    headers = HeaderParser().parsestr(wheel_text or "", headersonly=True)
    return expand_all(str(tag) for tag in headers.get_all("Tag") or ())


def _member(archive: ZipArchive, name: str) -> ZipEntry | None:
    """The last entry of that name: the one zipfile reads and pip leaves on disk (W608)."""
    return next((entry for entry in reversed(archive.entries) if entry.name == name), None)


def _member_text(archive: ZipArchive, name: str) -> str | None:
    entry = _member(archive, name)
    if entry is None:
        return None
    try:
        return archive.read_content(entry, METADATA_LIMIT).decode("utf-8", errors="replace")
    except CapError:
        raise  # over 16 MiB: refused (exit 2), as METADATA is, never read as absent
    except ArchiveError:
        return None  # a corrupt stream is its own finding (W604)


def _dist_info(
    archive: ZipArchive, problems: list[tuple[str, str]], tops: frozenset[str] | None = None
) -> str | None:
    """pip's `wheel_dist_info_dir`: exactly one top-level `.dist-info`, named for the project;
    `tops`: every name's first component, when told."""
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


def _wheel_file(text: str | None, dist_info: str | None, problems: list[tuple[str, str]]) -> bool:
    """Root-Is-Purelib from WHEEL, after pip's Wheel-Version checks."""
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


def _header_problems(archive: ZipArchive) -> Iterator[tuple[str, str]]:
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


def _patched_data_problems(archive: ZipArchive) -> Iterator[tuple[str, str]]:
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


def _duplicate_record_rows(
    archive: ZipArchive, record: str, side: str, parsed: Record | None
) -> list[Finding]:
    """One rule in both commands: a path RECORD lists twice fails; the first row counts (the
    RECORD parser's A112 findings, said here as W618 with the count)."""
    if parsed is None or parsed.path != record:
        text = _member_text(archive, record)
        if text is None:
            return []
        parsed = parse_record(text, record)
    repeats = Counter(f.path for f in parsed.findings if f.code is Code.A112)
    return [
        Finding(
            Code.W618,
            path,
            f"in the {side} wheel: RECORD lists this path {count + 1} times (the first row is "
            "the one checked)",
        )
        for path, count in sorted(repeats.items())
    ]
