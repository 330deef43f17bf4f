"""Whether pip can install a wheel, and the installed view both commands compare.

`install_check` is the one place `wheels` and `audit` learn what pip would do with a wheel:
the installed view (`k3diff.wheel.installed`) and every reason pip would refuse the wheel or
abort half-way (W616), every group of entries that end as one file (W615), every directory
entry carrying data pip silently drops (W617), every path RECORD lists twice (W618) and every
file Windows cannot write as named (W619: `k3diff.wheel.windowsnames`). The
refusals follow pip 26's `parse_wheel` (`k3diff.wheel.wheelfile`) and CPython's `zipfile`,
which pip reads archives with (`k3diff.wheel.zipextract`); the tags are pip's
(`k3diff.wheel.filename.installing_tags`, W630's too).
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.extplatforms import EVERY_CASE, CaseRule, case_rule
from k3diff.wheel.filename import installing_tags
from k3diff.wheel.installed import InstalledView, NameScreens, installed_view
from k3diff.wheel.installedbeside import installed_view_beside
from k3diff.wheel.record import Record, parse_record
from k3diff.wheel.refusals import dist_info_refusals, filename_refusals, script_file
from k3diff.wheel.targets import ANY, TargetPythons, target_pythons
from k3diff.wheel.versionbound import installs_nowhere, version_bound
from k3diff.wheel.wheelfile import dist_info_dir, member_text, root_is_purelib, tag_lines
from k3diff.wheel.windowsnames import (
    apart_on_windows,
    may_hold_windows_names,
    script_collisions,
    windows_refusals,
)
from k3diff.wheel.zipextract import header_problems, patched_data_problems
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

if TYPE_CHECKING:  # parsed by importlib.metadata, loaded only for a wheel with entry points
    from importlib.metadata import EntryPoint

_NAME = operator.itemgetter(0)
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
    tags: frozenset[str] = frozenset()
    """The tags pip installs it by (`filename.installing_tags`)."""

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
    dist_info = dist_info_dir(archive, problems, None if screens is None else screens.tops)
    wheel_text = member_text(archive, f"{dist_info}/WHEEL") if dist_info else None
    purelib = root_is_purelib(wheel_text, dist_info, problems)
    ep_text = member_text(archive, f"{dist_info}/entry_points.txt") if dist_info else None
    try:
        entry_points = parse_entry_points(ep_text)
    except (ValueError, TypeError, IndexError, AttributeError) as exc:  # hostile text
        problems.append(
            (f"{dist_info}/entry_points.txt", f"entry_points.txt does not parse: {exc}")
        )
        entry_points = ()
    scripts = [ep.name for ep in entry_points if ep.group in SCRIPT_GROUPS]
    console = {ep.name: ep.value for ep in entry_points if ep.group == "console_scripts"}
    tags = installing_tags(str(archive.path), tag_lines(wheel_text)).tags
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
        root_is_purelib=purelib,
        dist_name=name,
        entry_point_scripts=scripts,
        generated=generated,
        generated_from=f"{dist_info}/entry_points.txt",
        targets=targets,
        screens=screens,
    )
    problems.extend(view.problems)
    problems.extend(header_problems(archive))
    problems.extend(patched_data_problems(archive))
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
    checks += [Finding(Code.W615, path, f"in the {side} wheel: {why}") for path, why in view.alike]
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
    return WheelInstall(view, dist_info, entry_points, ep_text, tuple(checks), targets, case, tags)


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


def _duplicate_record_rows(
    archive: ZipArchive, record: str, side: str, parsed: Record | None
) -> list[Finding]:
    """One rule in both commands: a path RECORD lists twice fails; the first row counts (the
    RECORD parser's A112 findings, said here as W618 with the count)."""
    if parsed is None or parsed.path != record:
        text = member_text(archive, record)
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
