"""`audit` of a source distribution: a file named `*.tar.gz` is read as an sdist (see
`audit.sdistread`) and judged as pip unpacks it and PyPI takes it: A002 for a file that is no
sound gzip-compressed tar, or that `zipfile` reads as a zip too (PyPI refuses it), A129-A133 for its members (`audit.sdistmembers`), A134 for a missing
or unreadable `PKG-INFO`, A135 for a `PKG-INFO` whose name or version is not the file name's
(PEP 625, both normalised) or a `pyproject.toml` whose `[project]` table names another (pip
builds that name and version, and `pip install NAME` from an index then refuses the sdist as
inconsistent: sdist76, it passed), A122 for core metadata PyPI refuses (the wheel's check), and
A137 for a file name PEP 625 spells otherwise (`demo-pkg-1.0.tar.gz` for `demo_pkg-1.0.tar.gz`),
which PyPI refuses on upload since October 2025 (sdist76: a warning, exit 0, after PyPI had
stopped warning and begun to refuse).

Which files are sdists, and the other source archives (A136), is `audit.sourcenames`' to say
by the name alone, so a run without an sdist imports neither `tarfile` nor this module.
"""

from __future__ import annotations

import io
import posixpath
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

from packaging.metadata import parse_email
from packaging.utils import (
    InvalidSdistFilename,
    canonicalize_name,
    parse_sdist_filename,
)
from packaging.version import InvalidVersion, Version

from k3diff.audit.sdistmembers import member_findings
from k3diff.audit.sdistread import SdistRead, is_pyproject, last_of, read_sdist
from k3diff.audit.sdistsetup import Identity, Pyproject, same_identity, setuptools_findings
from k3diff.audit.sourcenames import SDIST_SUFFIX
from k3diff.errors import InputError
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.coremeta import core_metadata_findings, uploaded_license_files
from k3diff.wheel.metadata import METADATA_LIMIT

_POLYGLOT = (
    "the file reads as a zip archive too (a zip end record in its last 64 KiB, as `zipfile` "
    "finds one): PyPI refuses it (`File is both a zip and a tar file`), and pip unzips it "
    "instead of untarring it (pip asks `zipfile.is_zipfile` before `tarfile`; sdist76: it "
    "passed)"
)


@dataclass(frozen=True)
class SdistAudit:
    """What `audit` found of one sdist."""

    findings: tuple[Finding, ...]
    """Every finding, unsorted."""
    member_count: int
    """Tar members read (directories included)."""
    directory_count: int
    """How many of them are directories."""


def audit_sdist(path: Path) -> SdistAudit:
    """Read the sdist at `path` and judge it (see the module); InputError when it cannot be
    read, CapError past a cap."""
    read = read_sdist(path)
    findings = [] if read.problem is None else [Finding(Code.A002, "", read.problem)]
    findings += _zip_too(path)
    named = _file_identity(path.name)
    top = _top(read) if read.members else path.name[: -len(SDIST_SUFFIX)]
    findings += member_findings(read.members, top)
    if isinstance(named, str):
        findings.append(Finding(Code.A135, "", named))
    else:
        findings += _unnormalised(path.name, named)
        if read.members and _identity(top) != named:
            findings.append(
                Finding(
                    Code.A133,
                    top,
                    f"the top directory is not {named[0]}-{named[1]}, the name and version of "
                    "the file name (PEP 625: NAME-VERSION/, both normalised as in the file name)",
                )
            )
    findings += _pkg_info_findings(read, top, named)
    if isinstance(named, tuple):
        found, pyproject = _pyproject_findings(read, top, named, str(path))
        findings += found + setuptools_findings(read, top, named, pyproject)
    directories = sum(1 for member in read.members if member.isdir())
    return SdistAudit(tuple(findings), len(read.members), directories)


def _zip_too(path: Path) -> list[Finding]:
    """A002 where `zipfile` reads the file as a zip too, or raises on the zip end record it
    finds (a ZIP64 locator naming several disks: `is_zipfile` raises `BadZipFile` there, from
    Python 3.8 to 3.13, so pip's unpacking stops with a traceback; review76b: an internal
    error, exit 2)."""
    try:
        if not zipfile.is_zipfile(path):
            return []
    except zipfile.BadZipFile as exc:
        detail = (
            f"`zipfile` finds a zip end record in the file's last 64 KiB and refuses it ({exc}): "
            "pip asks `zipfile.is_zipfile` before it untars an sdist, and stops there with a "
            "traceback"
        )
        return [Finding(Code.A002, "", detail)]
    return [Finding(Code.A002, "", _POLYGLOT)]


def _unnormalised(filename: str, named: Identity) -> list[Finding]:
    """A137 where the file name is not PEP 625's spelling of its own name and version."""
    normal = f"{named[0].replace('-', '_')}-{named[1]}"
    if filename == normal + SDIST_SUFFIX:
        return []
    return [
        Finding(
            Code.A137,
            "",
            f"the name to use is {normal}.tar.gz, PEP 625's spelling of its name and version "
            "(the name lower-cased with `_` for each run of `-`, `_` and `.`, the version in its "
            "normal form), which setuptools 69.3 or later, hatchling and flit-core write",
        )
    ]


def _top(read: SdistRead) -> str:
    return posixpath.normpath(read.members[0].name).partition("/")[0]


def _file_identity(filename: str) -> Identity | str:
    """The file name's project and version, or why it is no PEP 625 sdist name."""
    try:
        return parse_sdist_filename(filename[: -len(SDIST_SUFFIX)] + SDIST_SUFFIX)
    except (InvalidSdistFilename, InvalidVersion) as exc:
        return f"not an sdist file name NAME-VERSION.tar.gz (PEP 625): {exc}"


def _identity(stem: str) -> Identity | None:
    name, _, version = stem.rpartition("-")
    try:
        return canonicalize_name(name), Version(version)
    except InvalidVersion:
        return None


def _pkg_info_findings(read: SdistRead, top: str, named: Identity | str) -> list[Finding]:
    path = f"{top}/PKG-INFO"
    data = read.top_files.get(path)
    if data is None:
        last = last_of(read, path)
        if last is None and read.problem is not None:
            return []  # the read stopped before it: A002 says why
        return [Finding(Code.A134, path, _why_unread(last))]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [Finding(Code.A134, path, f"not UTF-8 ({exc.reason})")]
    found = core_metadata_findings(path, text, Code.A122)
    raw, _ = parse_email(text)
    found += _missing_license_files(read, top, uploaded_license_files(raw))
    stated = (raw.get("name"), raw.get("version"))
    if isinstance(named, tuple) and not same_identity(stated, named):
        found.append(
            Finding(
                Code.A135,
                path,
                f"PKG-INFO says {stated[0]!r} {stated[1]!r}, the file name "
                f"{named[0]} {named[1]} (both normalised: PEP 503 name, PEP 440 version)",
            )
        )
    return found


def _missing_license_files(read: SdistRead, top: str, named: list[str]) -> list[Finding]:
    """A122 per `License-File` of PKG-INFO (`named`) that names no member under `top`: PyPI
    refuses the upload (`License-File LICENSE does not exist in distribution file ...`, PEP
    639; sdist76: it passed, exit 0)."""
    if not named:
        return []
    held = {posixpath.normpath(member.name) for member in read.members}
    return [
        Finding(
            Code.A122,
            f"{top}/PKG-INFO",
            f"License-File: {name!r} names {top}/{name}, which the sdist does not hold (PyPI "
            "refuses the upload: PEP 639 asks every License-File to be in the sdist)",
        )
        for name in named
        if posixpath.normpath(f"{top}/{name}") not in held
    ]


def _pyproject_findings(
    read: SdistRead, top: str, named: Identity, sdist: str
) -> tuple[list[Finding], Pyproject]:
    """A135 where `TOP/pyproject.toml`'s `[project]` table states a name or version other than
    the file name's: the build backend writes the wheel's
    metadata from it, and pip compares that with the name and version it asked the index for
    (pip 26: `inconsistent name: expected 'demo', but metadata has 'other'`). Read as pip,
    hatchling and flit-core read it: UTF-8 text with universal newlines (a bare CR ends a
    line). A member k3diff does not read (a link, a sparse file, over `METADATA_LIMIT`) is
    A135 too, its name and version unchecked (review76b: both passed, exit 0). A file that is
    no TOML, or holds no such table, is not judged here; one nested past `tomllib`'s recursion
    (pip's reader too) is InputError, naming `sdist` (review76b: a message naming no file).
    Also the document read (`Pyproject`: `{}` where there is none), for `sdistsetup`."""
    path = _pyproject_path(read, top)
    data = read.top_files.get(path)
    if data is None:
        last = last_of(read, path)
        if last is None:
            return [], {}
        unread = f"{_why_unread(last, 'pyproject.toml')}: the name and version pip builds unchecked"
        return [Finding(Code.A135, path, unread)], None
    try:
        text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()
        document = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return [], None
    except RecursionError as exc:
        raise InputError(
            f"{sdist}: {path} is nested too deeply for tomllib, which pip reads it with; refused"
        ) from exc
    table = document.get("project")
    if not isinstance(table, dict):
        return [], document
    # unstated: the name PEP 621 requires, a version the backend computes (`dynamic`)
    stated = (table.get("name", str(named[0])), table.get("version", str(named[1])))
    if same_identity(stated, named):
        return [], document
    detail = (
        f"pyproject.toml's [project] says {stated[0]!r} {stated[1]!r}, the file name "
        f"{named[0]} {named[1]}: pip builds the project pyproject.toml names, and `pip install "
        f"{named[0]}` from an index refuses the sdist as inconsistent"
    )
    if not path.endswith("/pyproject.toml"):
        detail += " (pip finds this name as pyproject.toml on macOS and Windows)"
    return [Finding(Code.A135, path, detail)], document


def _pyproject_path(read: SdistRead, top: str) -> str:
    """`TOP/pyproject.toml`, or the name alike but for case that pip finds as it on macOS and
    Windows, where the sdist holds no member of that exact name (review76b: `PyProject.toml`
    naming another project passed, exit 0)."""
    exact = f"{top}/pyproject.toml"
    alike = [path for m in read.members if is_pyproject(path := posixpath.normpath(m.name), top)]
    return exact if exact in alike or not alike else alike[-1]


def _why_unread(member: tarfile.TarInfo | None, name: str = "PKG-INFO") -> str:
    if member is None:
        return "no PKG-INFO in the top directory: pip and PyPI read the sdist's metadata from it"
    if not member.isreg():
        return f"{name} is not a regular file (a link, directory or special file)"
    if member.size > METADATA_LIMIT:
        return f"{name} of {member.size:,} bytes, over k3diff's cap of {METADATA_LIMIT:,}"
    return f"{name} is a sparse member"
