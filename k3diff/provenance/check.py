"""Does each Python file in a wheel come from the git commit it is claimed to come from?

The check compares git blob ids: the id of the wheel's bytes (computed here, no git involved)
against the ids one ``git ls-tree`` lists for the commit. Nothing is checked out; the
repository is only read.

Where the package lives in the repository (``''``, ``src/``, ``python/``, ``python/pkg/`` …) is
given, read from the build configuration at the commit, or detected from the tree and the wheel's
paths, never from its content (`k3diff.provenance.lookup`).

For a range ``OLD..NEW`` a file that does not match NEW is looked for in older commits: the
candidates are the commits of ``git rev-list --topo-order NEW ^OLD`` (newest first) followed by
OLD itself. git's ``OLD..NEW`` excludes OLD, but a wheel built from OLD is exactly the stale build
this check exists to catch, so OLD is the oldest candidate.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cached_property
from pathlib import Path

from k3diff.errors import SourceError
from k3diff.provenance.blobs import (
    DIFF_CAP_BYTES,
    WheelFiles,
    bounded_diffs,
)
from k3diff.provenance.builtversion import version_notes
from k3diff.provenance.generated import Generated, generated_files
from k3diff.provenance.git import SHORT_ID_LENGTH, GitRepo, range_commits
from k3diff.provenance.leftout import left_out
from k3diff.provenance.lookup import Lookup, SourceLayout
from k3diff.provenance.rangewalk import newest_matches
from k3diff.provenance.revisions import RepoNote, Revision, history_notes
from k3diff.provenance.setupstop import SourceStart, read_start
from k3diff.provenance.skbuildgenerate import generated_by_skbuild
from k3diff.provenance.statedcheck import range_stated_notes, stated_notes
from k3diff.provenance.trees import link_over


class SourceStatus(StrEnum):
    """How a wheel file relates to the repository."""

    MATCH = "match"
    """Same blob id as the file at REV (for a range: at NEW)."""
    MISMATCH = "mismatch"
    """The file exists at REV/NEW with other content (and, for a range, matches no commit in it)."""
    ABSENT = "absent"
    """No such path at REV/NEW (and, for a range, no commit in it holds this content there)."""
    STALE = "stale"
    """Range only: differs from NEW but equals the file at an older commit of the range."""
    UNVERIFIABLE = "unverifiable"
    """Bytecode (`.pyc`, `.pyo`): a repository holds sources, so what runs cannot be matched."""
    GENERATED = "generated"
    """A module the build writes (setuptools-scm's `_version.py`), named so by the configuration
    at REV/NEW, that is its tool's template stating the wheel's version (`generated`)."""
    LEFT_OUT = "left out"
    """Same blob id as the file at REV/NEW, but the commit's build leaves it out of the wheel
    (W412, `leftout`): the text table said so while the JSON said `match` (stop 73)."""


@dataclass(frozen=True)
class FileSource:
    """Where one Python file of the wheel comes from."""

    path: str
    """Path inside the wheel."""
    repo_path: str
    """Path in the repository the file was compared with: the prefix followed by `path`."""
    status: SourceStatus
    """match, mismatch, absent or stale."""
    wheel_blob: str
    """git blob id of the wheel's bytes."""
    repo_blob: str | None
    """git blob id of `repo_path` at REV/NEW, None when absent there."""
    matched_commit: str | None
    """Newest commit whose version equals the wheel's (REV/NEW on a match), else None."""
    diff: str | None
    """Unified diff from the repository version at REV/NEW to the wheel's (mismatch, stale)."""
    added: int | None
    """Lines the wheel adds relative to REV/NEW, when there is a diff."""
    removed: int | None
    """Lines the wheel removes relative to REV/NEW, when there is a diff."""
    diff_skipped: str | None = None
    """Why a differing file has no diff: ``too large to diff: …`` (compared by blob id only and
    never read whole), or ``line endings only …`` (`blobs.LINE_ENDINGS_ONLY`)."""
    link: str | None = None
    """Absent, but the symbolic link at `repo_path` or a directory above it (no file whose
    bytes are compared; `trees.link_over`)."""
    submodule: str | None = None
    """Absent, but in the submodule at this path (another repository's files, unread)."""
    generated_by: str | None = None
    """The tool the configuration says writes this file, and where it says so
    (``setuptools-scm (pyproject.toml [tool.setuptools_scm] version_file)``), else None."""
    not_generated: str | None = None
    """Where `generated_by` is set but the file is not that tool's template stating the wheel's
    version: what is not, said in its W401/W402 (its status stays absent or mismatch)."""
    stated_version: str | None = None
    """`generated` only: the version the module states where METADATA's extends it by local
    segments a build script appends (vLLM's ``0.11.0``, METADATA ``0.11.0+cu128``), else
    None (it states METADATA's)."""


@dataclass(frozen=True)
class ProvenanceReport:
    """Every checked wheel file against one commit or one range of commits."""

    repo: str
    """The repository as given by the user."""
    rev: str | None
    """The revision as given, for a single-commit check; None for a range."""
    range: str | None
    """``OLD..NEW`` as given, for a range check; None for a single commit."""
    commit: str
    """Full id of the commit compared with: REV, or NEW for a range."""
    old_commit: str | None
    """Full id of OLD for a range; None for a single commit."""
    object_format: str
    """``sha1`` or ``sha256``: the hash behind every id in this report."""
    layout: SourceLayout
    """Where the wheel paths were looked up: a prefix ('' or ending in '/') and the packages'
    directories the build configuration maps, given, read from the configuration or detected."""
    commits_examined: int
    """Commits a file could have matched: 1 for REV; the range's commits plus OLD for a range."""
    files: tuple[FileSource, ...]
    """One verdict per checked file, sorted by wheel path."""
    revisions: tuple[Revision, ...] = ()
    """How each revision given resolved: REV, or OLD then NEW for a range."""
    notes: tuple[RepoNote, ...] = ()
    """What the repository says about its history: replace refs and grafts (ignored), objects
    borrowed from another repository's store."""
    version: str | None = None
    """The patch wheel's METADATA Version, which a generated version module must state."""
    head_commit: str | None = None
    """The repository's HEAD commit when a single revision was checked (None for a range, or
    where HEAD names none): where it is `commit`, no newer commit exists to check against."""

    @property
    def prefix(self) -> str:
        """Repository directory of every wheel path no configured package directory covers."""
        return self.layout.prefix

    @property
    def prefix_detected(self) -> bool:
        """True unless the prefix was given (`--source-prefix`)."""
        return self.layout.origin != "given"

    def counts(self) -> dict[str, int]:
        """How many files have each status (every status present, zero included)."""
        totals = {status.value: 0 for status in SourceStatus}
        for entry in self.files:
            totals[entry.status.value] += 1
        for status in (SourceStatus.UNVERIFIABLE, SourceStatus.GENERATED, SourceStatus.LEFT_OUT):
            if not totals[status.value]:
                del totals[status.value]  # only runs that checked bytecode or one say it
        return totals

    @property
    def ok(self) -> bool:
        """True when every file matches REV/NEW, or is a module the build writes that holds."""
        passing = (SourceStatus.MATCH, SourceStatus.GENERATED)
        return all(entry.status in passing for entry in self.files)

    def file(self, path: str) -> FileSource | None:
        """The verdict for wheel path `path`, if it was checked."""
        return self._by_path.get(path)

    @cached_property
    def _by_path(self) -> Mapping[str, FileSource]:
        """Each verdict by its wheel path (the first, where two share one), built on the first
        lookup: a scan of `files` for each (one per wheel entry) cost a 12,000-file wheel's
        ``--source-all`` run 3.4 s of its 6.7 s under a profiler (prov71b)."""
        return {entry.path: entry for entry in reversed(self.files)}


def check_source(
    repo: Path,
    rev: str,
    files: WheelFiles,
    *,
    prefix: str | None = None,
    diff_cap: int = DIFF_CAP_BYTES,
    layout: Sequence[Collection[str]] = (),
    stated: Sequence[tuple[str, str, str]] = (),
    dropped: Collection[str] = (),
    version: str | None = None,
    start: SourceStart | None = None,
) -> ProvenanceReport:
    """Compare each of `files` (wheel path -> exact bytes) with the same file at `rev`;
    `layout` (sets of wheel paths, most trusted first) says where the package lives when the
    prefix is detected (`k3diff.provenance.prefix`); `stated` (commit, entry, description): the
    commits the wheel states, each not `rev`'s a W408 note (`statedcheck.stated_notes`);
    `dropped`: modules the base wheel shipped and the patch lacks, each `rev` holds a W410 note;
    `version`: the patch's METADATA Version, which a module the build writes must state;
    `start`: the repository, `rev` and the commit's root as read before the wheels were
    compared (`setupstop.read_start`), else read here."""
    start = start or read_start(repo, rev, None, prefix)
    git, (revision,), commit = start.git, start.revisions, start.commit
    lookup = Lookup.build(
        git, commit, start.listing, start.config, files, prefix, layout, start.placed
    )
    matches = lookup.matching(commit)
    written = generated_files(git, lookup, files, set(files) - set(matches), version, {commit})
    written |= _replaced(generated_by_skbuild(git, lookup, files, version), matches)
    leaves = left_out(git, lookup)
    notes = (
        history_notes(git, (revision,))
        + stated_notes(git, revision, stated)
        + version_notes(git, lookup, commit, version)
        + lookup.dropped_notes(leaves.kept(lookup, dropped))
        + leaves.notes(lookup, matches)
    )
    return ProvenanceReport(
        repo=str(repo),
        rev=rev,
        range=None,
        commit=commit,
        old_commit=None,
        object_format=git.object_format,
        layout=lookup.layout,
        commits_examined=1,
        files=_left_out(
            _file_sources(git, commit, lookup, files, matches, diff_cap, written), notes
        ),
        revisions=(revision,),
        notes=notes,
        version=version,
        head_commit=start.head,
    )


def check_source_range(
    repo: Path,
    commits: str,
    files: WheelFiles,
    *,
    prefix: str | None = None,
    diff_cap: int = DIFF_CAP_BYTES,
    layout: Sequence[Collection[str]] = (),
    stated: Sequence[tuple[str, str, str]] = (),
    base_stated: Sequence[tuple[str, str, str]] = (),
    dropped: Collection[str] = (),
    version: str | None = None,
    start: SourceStart | None = None,
) -> ProvenanceReport:
    """Like `check_source` against NEW of ``OLD..NEW``; a file that differs from NEW is traced
    to the newest commit of the range (OLD included) holding the wheel's version: stale. Each
    commit the patch wheel states (`stated`) must be in the range, each the base states
    (`base_stated`) is said where it is not OLD (`statedcheck.range_stated_notes`)."""
    start = start or read_start(repo, None, commits, prefix)
    git, (old_end, new_end) = start.git, start.revisions
    new, old = new_end.commit, old_end.commit
    lookup = Lookup.build(
        git, new, start.listing, start.config, files, prefix, layout, start.placed
    )
    history = range_commits(git, old, new)
    if not history and old != new:
        raise SourceError(f"{repo}: range {commits!r} holds no commits (NEW is an ancestor of OLD)")
    matches = lookup.matching(new)
    where = lookup.repo_path
    wanted = {where(p): blob for p, blob in lookup.wheel_blobs.items() if p not in matches}
    older = newest_matches(git, commits, (old, new), history, lookup.tree, wanted)
    matches.update({p: older[where(p)] for p in lookup.wheel_blobs if where(p) in older})
    built = {old, new, *(c for c, _ in history)}
    written = generated_files(git, lookup, files, set(files) - set(matches), version, built)
    written |= _replaced(generated_by_skbuild(git, lookup, files, version), matches)
    leaves = left_out(git, lookup)
    notes = (
        history_notes(git, (old_end, new_end))
        + range_stated_notes(git, (old_end, new_end), {c for c, _ in history}, stated, base_stated)
        + lookup.dropped_notes(leaves.kept(lookup, dropped))
        + leaves.notes(lookup, [p for p, c in matches.items() if c == new])
    )
    return ProvenanceReport(
        repo=str(repo),
        rev=None,
        range=commits,
        commit=new,
        old_commit=old,
        object_format=git.object_format,
        layout=lookup.layout,
        commits_examined=len(history) + 1,
        files=_left_out(_file_sources(git, new, lookup, files, matches, diff_cap, written), notes),
        revisions=(old_end, new_end),
        notes=notes,
        version=version,
    )


def _replaced(written: dict[str, Generated], matches: dict[str, str]) -> dict[str, Generated]:
    """`written` (files the build writes over the commit's copy), each dropped from `matches`:
    the commit's copy is never what the wheel ships (`skbuildgenerate`)."""
    for path in written:
        matches.pop(path, None)
    return written


def _left_out(files: tuple[FileSource, ...], notes: Sequence[RepoNote]) -> tuple[FileSource, ...]:
    """`files` with each match a W412 names (its commit's build leaves it out of the wheel)
    `left out`, as the text table says it (src73: the JSON said `match`)."""
    named = {note.path for note in notes if note.code == "W412"}
    return tuple(
        replace(entry, status=SourceStatus.LEFT_OUT)
        if entry.path in named and entry.status is SourceStatus.MATCH
        else entry
        for entry in files
    )


def _file_sources(
    git: GitRepo,
    commit: str,
    lookup: Lookup,
    files: WheelFiles,
    matches: Mapping[str, str],
    diff_cap: int,
    written: Mapping[str, Generated],
) -> tuple[FileSource, ...]:
    """Build the verdicts, with a diff (or the reason for none) for every file that differs
    from the commit; a module the build writes (`written`) that holds is `generated`, with no
    diff (the commit's copy, if any, is not what it is held to)."""
    tree, where = lookup.tree, lookup.repo_path
    holds = {p for p, verdict in written.items() if verdict.refused is None}
    differing = {
        p: tree[where(p)]
        for p in files
        if matches.get(p) != commit
        and where(p) in tree
        and p not in holds
        and tree[where(p)] != lookup.wheel_blobs[p]  # the commit's copy a build writes over
    }
    label = f"@{commit[:SHORT_ID_LENGTH]}"
    diffs, skipped = bounded_diffs(git, differing, files, where, label, diff_cap)
    entries = []
    for path in sorted(files):
        repo_blob, wheel_blob = tree.get(where(path)), lookup.wheel_blobs[path]
        status = _status(repo_blob, wheel_blob, matches.get(path), commit)
        verdict = written.get(path)
        if path in holds:
            status = SourceStatus.GENERATED
        elif verdict is not None and verdict.written.replaces and status is SourceStatus.MATCH:
            status = SourceStatus.MISMATCH  # the commit's copy, which the build writes over
        absent = status is SourceStatus.ABSENT
        diff = diffs.get(path, (None, None, None))
        entries.append(
            FileSource(
                path, where(path), status, wheel_blob, repo_blob, matches.get(path), *diff,
                diff_skipped=skipped.get(path),
                link=link_over(lookup.links, where(path)) if absent else None,
                submodule=link_over(lookup.submodules, where(path)) if absent else None,
                generated_by=verdict.written.describe() if verdict else None,
                not_generated=verdict.refusal() if verdict else None,
                stated_version=verdict.stated if verdict and path in holds else None,
            )
        )  # fmt: skip
    return tuple(entries)


def _status(
    repo_blob: str | None, wheel_blob: str, matched: str | None, commit: str
) -> SourceStatus:
    if repo_blob == wheel_blob:
        return SourceStatus.MATCH
    if matched is not None and matched != commit:
        return SourceStatus.STALE
    return SourceStatus.ABSENT if repo_blob is None else SourceStatus.MISMATCH
