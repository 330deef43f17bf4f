"""The source archives in a release directory, as pip weighs them beside the wheels: where no
wheel of a project fits an interpreter, or a source archive holds a later version, pip builds
the archive (`wheels.competing` takes each release's choice with them).

pip takes a file of a `--find-links` directory as a source archive of a project by its suffix
(`.tar.gz`, `.zip`, `.tar`, `.tgz`, `.tar.bz2`, `.tar.xz`, ...: `pip._internal.utils.filetypes`;
matched here in any case, so that no spelling pip might take passes unweighed) and its stem:
the first `-` whose prefix is the project's name (PEP 503-normalised) ends the name, and the
rest is the version (`_find_name_version_sep`); a version packaging cannot read is skipped.
Among candidates pip ranks the version first and, within one version, every wheel that fits
above the source archive (`CandidateEvaluator._sort_key`).
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from k3diff.audit.sourcenames import OTHER_SOURCE_SUFFIXES, SDIST_SUFFIX
from k3diff.errors import InputError
from k3diff.filehash import file_sha256
from k3diff.wheel.filename import normalized_name

SOURCE_SUFFIXES = (SDIST_SUFFIX, *OTHER_SOURCE_SUFFIXES)
"""Every archive suffix pip builds a project from."""


@dataclass(frozen=True)
class SourceArchive:
    """A source archive of a release directory, read by its name."""

    path: Path
    stem: str
    """The name without its archive suffix (`demo_pkg-1.0`)."""


def source_archive(path: Path) -> SourceArchive | None:
    """The file as a source archive pip builds from, or None (its suffix is none of pip's)."""
    lower = path.name.lower()
    suffix = next((s for s in SOURCE_SUFFIXES if lower.endswith(s)), None)
    if suffix is None or len(path.name) == len(suffix):
        return None
    return SourceArchive(path, path.name[: -len(suffix)])


def archive_versions(archive: SourceArchive) -> Iterator[tuple[str, Version]]:
    """Each project (PEP 503-normalised) pip would take the archive for, with its version: the
    first `-` of each prefix naming a project, where the rest is a version (`a-1-2` is project
    `a` at 1.post2 and project `a-1` at 2)."""
    seen: set[str] = set()
    stem = archive.stem
    for index, char in enumerate(stem):
        if char != "-":
            continue
        project = normalized_name(stem[:index])
        if project in seen or not project:
            continue
        seen.add(project)
        try:
            yield project, Version(stem[index + 1 :])
        except InvalidVersion:
            continue


MAX_NAME_READINGS = 100_000
"""Readings of source archives' names a run may take, both directories together (k3diff's cap,
exit 2 past it): each `-` of a name is a project pip may take the archive for, read with a
name normalisation and a version parse (release78: 10,000 names of 116 `-` a side, 2.3 million
readings, took 10 s before any was weighed; a release's sdists hold a few)."""


def refuse_many_readings(archives: Sequence[SourceArchive]) -> None:
    """InputError where reading the archives' names (`archive_versions`) passes
    `MAX_NAME_READINGS`, before any is read."""
    total = 0
    for archive in archives:
        total += archive.stem.count("-")
        if total > MAX_NAME_READINGS:
            raise InputError(
                f"{archive.path.parent}: the source archives' names hold more `-` than "
                f"k3diff's cap of {MAX_NAME_READINGS:,} a run (each `-` a project pip may take "
                "an archive for): move the source archives out of the directories, or give "
                "the wheels with --base/--patch"
            )


@dataclass
class SameBytes:
    """Whether two archives hold the same bytes (size, then SHA-256), each file hashed once."""

    hashes: dict[Path, str]

    def __call__(self, left: Path, right: Path) -> bool:
        try:
            if left.stat().st_size != right.stat().st_size:
                return False
        except OSError:
            return False
        return self._hash(left) == self._hash(right)

    def _hash(self, path: Path) -> str:
        if path not in self.hashes:
            self.hashes[path] = file_sha256(path)[0]
        return self.hashes[path]


def refuse_index_page(path: Path) -> None:
    """InputError where pip reads the file as an HTML page of links (`--find-links DIR` takes
    every file whose name `mimetypes` calls `text/html` as an index page: pip 26's
    `_FlatDirectoryToUrls`), which may point to wheels in other directories or on other hosts
    that pip weighs beside the directory's own (review77a: a `notes.html` linking
    `extra/engine-2.0-py3-none-any.whl` made pip install that wheel, never compared, exit 0)."""
    if mimetypes.guess_type(path.absolute().as_uri(), strict=False)[0] == "text/html":
        raise InputError(
            f"{path}: an HTML file in a release directory: pip --find-links reads it as a page "
            "of links to more files (in other directories or on other hosts), which k3diff does "
            "not weigh; move it out of the directory"
        )


def refuse_source_directory(path: Path) -> None:
    """InputError for a directory named as a source archive or a wheel (`engine-2.0.tar.gz/`):
    pip --find-links lists it by its name and builds it as a project (review77a: such a
    directory, passed over as a directory, was what pip 26 built everywhere, exit 0)."""
    if source_archive(path) is not None or path.name.lower().endswith(".whl"):
        raise InputError(
            f"{path}: a directory named as a source archive or a wheel in a release directory: "
            "pip --find-links takes it by its name and builds it as a project, which k3diff "
            "does not weigh; move it out of the directory"
        )
