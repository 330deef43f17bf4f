"""Run source provenance (`--source REPO --commit REV | --commits OLD..NEW`) over a comparison.

Which files are checked: every changed or added Python file of the patch wheel, or every Python
file with `check_all` (an unchanged file that differs from the commit is also a stale or dirty
build). Their verdicts are attached to the entries, where the findings pick them up. A module
the base wheel shipped and the patch lacks is looked up too: the commit holding it is W410. A
commit the patch states from a dirty work tree is W411.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from k3diff.errors import UsageError
from k3diff.wheel.kinds import EntryKind
from k3diff.wheels.entrydetails import TEXT_LIMIT
from k3diff.wheels.model import EntryResult
from k3diff.wheels.proof import Status
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

if TYPE_CHECKING:
    from k3diff.provenance.blobs import StreamedFile
    from k3diff.provenance.check import ProvenanceReport
    from k3diff.provenance.revisions import RepoNote
    from k3diff.provenance.setupstop import SourceStart
    from k3diff.wheels.statedcommit import DirtyBuild, StatedCommit


@dataclass(frozen=True)
class SourceSpec:
    """Where the patch wheel's Python files are claimed to come from."""

    repo: Path
    """The git repository (any directory inside a work tree, or a bare repository)."""
    commit: str | None = None
    """A single revision the wheel was built from."""
    commits: str | None = None
    """A range OLD..NEW the wheel was built within."""
    prefix: str | None = None
    """Repository directory holding the package (None: detect it)."""
    check_all: bool = False
    """Check unchanged Python files too."""

    def __post_init__(self) -> None:
        if (self.commit is None) == (self.commits is None):
            raise UsageError("a source check needs exactly one of a commit or a commit range")


def _wanted(entry: EntryResult, check_all: bool) -> bool:
    if entry.kind is not EntryKind.PYTHON or entry.patch_path is None:
        return False
    return check_all or entry.status in (Status.CHANGED, Status.ADDED)


def _bytecode(entry: EntryResult, check_all: bool) -> bool:
    """Bytecode the check selects: never matchable, each one is `unverifiable` (W405). Its
    suffix in any case: macOS and Windows open `__pycache__/m.cpython-312.pyc` case-blind, so a
    `.PYC` there is the cache the import system reads (prov68)."""
    if entry.patch_path is None or not entry.patch_path.lower().endswith((".pyc", ".pyo")):
        return False
    return check_all or entry.status in (Status.CHANGED, Status.ADDED)


def attach_provenance(
    entries: Sequence[EntryResult],
    patch: ZipArchive,
    spec: SourceSpec,
    stated: Sequence[StatedCommit] = (),
    base_stated: Sequence[StatedCommit] = (),
    dirty_builds: Sequence[DirtyBuild] = (),
    version: str | None = None,
    start: SourceStart | None = None,
) -> tuple[tuple[EntryResult, ...], ProvenanceReport]:
    """Check the selected Python files against the source and attach each verdict; each
    commit the patch wheel states (`stated`) is held against the commit, or the range (W408),
    and with a range each the base wheel states against OLD (W409, informational); a dirty
    build, stated with a commit or (`dirty_builds`) without one, is W411. A module the build
    writes must be its tool's template stating `version`, the patch's METADATA Version.
    `start`: the repository, revisions and root setup read before the wheels were compared
    (`setupstop.read_start`), which the check starts from instead of reading them again."""
    from k3diff.provenance.check import check_source, check_source_range

    by_name = {entry.name: entry for entry in patch.entries}
    wanted = [e.patch_path for e in entries if _wanted(e, spec.check_all) and e.patch_path]
    # Files under NAME.data/purelib/ or /platlib/ install at the package root: look them up there.
    package_path = {path: _installed_path(path) for path in wanted}
    files = {package_path[path]: _wheel_file(patch, by_name[path]) for path in wanted}
    layout = _layout(entries)
    claims = _claims(stated)
    if spec.commit is not None:
        report = check_source(
            spec.repo, spec.commit, files, prefix=spec.prefix, diff_cap=TEXT_LIMIT, layout=layout,
            stated=claims, dropped=_dropped(entries), version=version, start=start,
        )  # fmt: skip
    else:
        assert spec.commits is not None
        report = check_source_range(
            spec.repo, spec.commits, files, prefix=spec.prefix, diff_cap=TEXT_LIMIT, layout=layout,
            stated=claims, base_stated=_claims(base_stated),
            dropped=_dropped(entries), version=version, start=start,
        )  # fmt: skip
    report = _with_bytecode(report, entries, patch, spec.check_all)
    report = replace(report, notes=report.notes + _dirty_notes(stated, dirty_builds))
    attached = tuple(
        replace(entry, source=report.file(_installed_path(entry.patch_path or "")))
        if entry.patch_path in package_path or _bytecode(entry, spec.check_all)
        else entry
        for entry in entries
    )
    return attached, report


def _dirty_notes(
    stated: Sequence[StatedCommit], dirty_builds: Sequence[DirtyBuild]
) -> tuple[RepoNote, ...]:
    """W411 for each distinct commit the patch states from a dirty work tree (`.dYYYYMMDD`,
    `.dirty`, versioneer's `"dirty": true`), at the first place it says so: its files need not
    be the commit's, and only the Python files the check selects are compared (prov69: it was
    said, and passed). A dirty build that states no commit (the first of `dirty_builds`) is
    W411 too (review69b: a dirty build at a tag, `1.2.3+d20260101`, passed)."""
    from k3diff.provenance.revisions import RepoNote
    from k3diff.wheels.statedcommit import distinct

    first = distinct([c for c in stated if c.dirty])
    if not first and dirty_builds:
        said = dirty_builds[0]
        message = (
            f"the patch wheel's {said.describe()} marks a dirty build and states no commit: "
            "built from a work tree with uncommitted changes, its files need not be the "
            "commit's, and the source check compares its Python files alone"
        )
        return (RepoNote("W411", message, said.path),)
    return tuple(
        RepoNote(
            "W411",
            # describe() says the dirty build (newuser70: it was said twice).
            f"the patch wheel states commit {c.describe()}: its files need not be that "
            "commit's, and the source check compares its Python files alone",
            c.path,
        )
        for c in first
    )


def _claims(stated: Sequence[StatedCommit]) -> list[tuple[str, str, str]]:
    """(commit, entry, description) of each distinct commit stated, at the first place read."""
    from k3diff.wheels.statedcommit import distinct

    return [(c.commit, c.path, c.describe()) for c in distinct(stated)]


def _layout(entries: Sequence[EntryResult]) -> tuple[frozenset[str], frozenset[str]]:
    """Where the package lives, as the prefix detection counts it: the base wheel's Python
    files, then the patch wheel's, checked or not (review67: counted over the checked files
    alone, a one-file patch let an old copy of that file kept elsewhere in the repository stand
    in for the package)."""
    python = [entry for entry in entries if entry.kind is EntryKind.PYTHON]
    return (
        frozenset(_installed_path(e.base_path) for e in python if e.base_path is not None),
        frozenset(_installed_path(e.patch_path) for e in python if e.patch_path is not None),
    )


def _dropped(entries: Sequence[EntryResult]) -> list[str]:
    """The modules the base wheel installs and the patch does not (a stub, `.pyi`, runs
    nothing): the commit compared must not hold them either (W410)."""
    return [
        _installed_path(entry.base_path)
        for entry in entries
        if entry.kind is EntryKind.PYTHON
        and entry.status is Status.MISSING
        and entry.base_path is not None
        and not entry.base_path.lower().endswith(".pyi")
    ]


def _wheel_file(patch: ZipArchive, entry: ZipEntry) -> bytes | StreamedFile:
    """The entry's bytes, or, over the text-diff cap, a stream its blob id is computed from
    (compared by id only, never held whole)."""
    from k3diff.provenance.blobs import StreamedFile

    if entry.size <= TEXT_LIMIT:
        return patch.read_content(entry, TEXT_LIMIT)
    return StreamedFile(entry.size, functools.partial(patch.content_chunks, entry))


def _with_bytecode(
    report: ProvenanceReport, entries: Sequence[EntryResult], patch: ZipArchive, check_all: bool
) -> ProvenanceReport:
    """The report with every selected `.pyc`/`.pyo` added as `unverifiable`: a git commit holds
    sources, and nothing proves which source (if any) a bytecode file was compiled from."""
    from k3diff.provenance.blobs import wheel_blob_id
    from k3diff.provenance.check import FileSource, SourceStatus

    by_name = {entry.name: entry for entry in patch.entries}
    added = [
        FileSource(
            path=_installed_path(entry.patch_path),
            repo_path=report.layout.repo_path(_installed_path(entry.patch_path)),
            status=SourceStatus.UNVERIFIABLE,
            wheel_blob=wheel_blob_id(
                _wheel_file(patch, by_name[entry.patch_path]), report.object_format
            ),
            repo_blob=None,
            matched_commit=None,
            diff=None,
            added=None,
            removed=None,
        )
        for entry in entries
        if entry.patch_path is not None and _bytecode(entry, check_all)
    ]
    if not added:
        return report
    files = tuple(sorted((*report.files, *added), key=lambda f: f.path))
    return replace(report, files=files)


_DATA_LIB = re.compile(r"^[^/]+\.data/(?:purelib|platlib)/(?P<rest>.+)$")


def _installed_path(path: str) -> str:
    match = _DATA_LIB.match(path)
    return match["rest"] if match else path
