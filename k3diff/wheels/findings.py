"""Turn entry results, metadata changes and RECORD rows into findings (a policy filters them).

RECORD is checked as far as the comparison proves things: every patch entry is listed, every
listed path exists, sizes agree, no row names a weak or unknown algorithm (W623), the base's
RECORD row is the reference for an identical entry whose row is unchanged, and every other row
of a changed, added or identical entry is verified against the content, hashed while it was read
or in a read of its own (see `k3diff.wheels.recordplan`). Verifying every hash is `k3diff
audit`'s job.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, compress, repeat
from operator import and_, attrgetter, eq, is_, is_not, itemgetter, not_, or_
from typing import TYPE_CHECKING

from k3diff.output import plural
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.modes import mode_findings
from k3diff.wheel.record import RECORD_FILES, RecordLine
from k3diff.wheel.recordhash import digest_mismatch, unverifiable_algorithm
from k3diff.wheels.entryruns import EntryResults, IdenticalRun
from k3diff.wheels.model import EntryResult
from k3diff.wheels.proof import How, Status

if TYPE_CHECKING:  # built only when the two wheels' identities differ
    from k3diff.provenance.check import FileSource
    from k3diff.wheel.metachange import MetadataChange

_STATUS_CODES = {
    EntryKind.NATIVE: {
        Status.CHANGED: Code.W101,
        Status.MISSING: Code.W102,
        Status.ADDED: Code.W103,
    },
    EntryKind.PYTHON: {
        Status.CHANGED: Code.W201,
        Status.MISSING: Code.W202,
        Status.ADDED: Code.W203,
    },
    EntryKind.OTHER: {
        Status.CHANGED: Code.W501,
        Status.MISSING: Code.W501,
        Status.ADDED: Code.W501,
    },
    EntryKind.METADATA: {
        Status.CHANGED: Code.W301,
        Status.MISSING: Code.W301,
        Status.ADDED: Code.W301,
    },
}


def collect_findings(
    entries: Sequence[EntryResult],
    metadata_changes: Iterable[MetadataChange],
    *,
    base_record: dict[str, RecordLine] | None,
    patch_record: dict[str, RecordLine] | None,
    archive_findings: Iterable[Finding] = (),
    patch_names: frozenset[str] | None = None,
) -> list[Finding]:
    """Every finding, before a policy filters them: wheel-level first, then per entry in path
    order, then RECORD's (its rows naming no archive path, then per entry). `archive_findings`
    are about the archives themselves (soundness)."""
    raw = [Finding(Code.W301, "", change.summary()) for change in metadata_changes]
    raw.extend(archive_findings)
    if patch_record is None:
        # A raw-identical run's pairs say nothing (`_says_nothing`): only the others are asked.
        said: Sequence[EntryResult] = entries
        if isinstance(entries, EntryResults) and entries.columnar:
            said = list(map(_RESULT, entries.singles))
        raw.extend(f for entry in said if not _says_nothing(entry) for f in _entry_findings(entry))
        raw.append(Finding(Code.W302, "", "the patch wheel has no .dist-info/RECORD"))
        return raw
    # Every archive path counts as present, also one overwritten by a later write (W615).
    present = patch_names or {e.patch_path for e in entries if e.patch_path is not None}
    absent = [
        Finding(Code.W302, listed, "listed in RECORD but absent from the archive")
        for listed in sorted(set(patch_record) - present)
    ]
    by_entry, by_row = _entry_and_row_findings(entries, patch_record, base_record)
    return [*raw, *by_entry, *absent, *by_row]


_IDENTICAL = Status.IDENTICAL


def _entry_and_row_findings(
    entries: Sequence[EntryResult],
    patch_record: dict[str, RecordLine],
    base_record: dict[str, RecordLine] | None,
) -> tuple[list[Finding], list[Finding]]:
    """The entries' own findings and their RECORD rows' findings, in entry order, in one pass
    (one loop instead of two): `_says_nothing` and `_row_agrees` decided inline (a
    test holds this to `_entry_findings` and `_record_line_findings` over every entry). Of a
    raw-identical run (`EntryResults.runs`) only the pairs `_run_rows_agree` cannot settle are
    asked: the others are sound, in the same mode, with rows that agree."""
    if isinstance(entries, EntryResults) and entries.columnar:
        asked = chain(entries.singles, _undecided(entries.runs, patch_record, base_record))
        entries = list(map(_RESULT, sorted(asked, key=_INDEX)))
    by_entry: list[Finding] = []
    by_row: list[Finding] = []
    row_of = patch_record.get
    base_row_of = base_record.get if base_record else None
    for entry in entries:
        status, corrupt, path = entry.status, entry.corrupt, entry.patch_path
        sound = status is _IDENTICAL and corrupt is None
        if not (
            sound
            and entry.base_mode == entry.patch_mode
            and entry.source is None
            and entry.native is None
        ):
            by_entry.extend(_entry_findings(entry))
        if path is None or path.endswith("/"):
            continue
        line = row_of(path)
        if line is None:
            if not _is_record_file(path):
                by_row.append(Finding(Code.W302, path, "not listed in RECORD"))
            continue
        if (
            sound
            and entry.patch_digest is None
            and line.sha256 is not None
            and line.size == entry.patch_size
        ):
            base_line = base_row_of(entry.base_path or "") if base_row_of is not None else None
            if base_line is None or base_line.sha256 is None or base_line.sha256 == line.sha256:
                continue  # `_row_agrees`
        by_row.extend(_record_line_findings(entry, line, base_record))
    return by_entry, by_row


def _undecided(
    runs: Iterable[IdenticalRun],
    patch_record: dict[str, RecordLine],
    base_record: dict[str, RecordLine] | None,
) -> Iterator[tuple[int, EntryResult]]:
    """(index, result) of the runs' pairs whose rows `_run_rows_agree` does not settle."""
    for run in runs:
        agree = _run_rows_agree(run, patch_record, base_record)
        for number in compress(range(len(agree)), map(not_, agree)):
            yield run.indices[number], run.result(number)


def _run_rows_agree(
    run: IdenticalRun,
    patch_record: dict[str, RecordLine],
    base_record: dict[str, RecordLine] | None,
) -> list[bool]:
    """Per pair of `run` (identical, read clean, not hashed, one path on both sides), whether
    its RECORD row agrees as `_entry_and_row_findings` decides inline (`_row_agrees`): listed
    with a SHA-256 and the archive's size, and the base's row for the path has none, another
    algorithm, or the same SHA-256. Decided column by column in C."""
    names = run.names()
    lines = list(map(patch_record.get, names, repeat(_NO_ROW)))
    shas = list(map(_SHA256, lines))
    sizes = list(map(_SIZE, run.patch_entries()))
    base_shas = (
        list(map(_SHA256, map(base_record.get, names, repeat(_NO_ROW)))) if base_record else None
    )
    if None not in shas and list(map(_SIZE, lines)) == sizes and base_shas in (None, shas):
        return [True] * len(names)  # nearly every run: whole columns compared at once
    agree = map(and_, map(is_not, shas, repeat(None)), map(eq, map(_SIZE, lines), sizes))
    if base_shas is None:
        return list(agree)
    base_agree = map(or_, map(is_, base_shas, repeat(None)), map(eq, base_shas, shas))
    return list(map(and_, agree, base_agree))


_NO_ROW = RecordLine(None, None)
_SHA256, _SIZE = attrgetter("sha256"), attrgetter("size")
"""`RecordLine.sha256`, and `RecordLine.size` or `ZipEntry.size`."""
_INDEX, _RESULT = itemgetter(0), itemgetter(1)


def _says_nothing(entry: EntryResult) -> bool:
    """True for an entry `_entry_findings` has nothing to say about, decided in a few attribute
    reads: identical, read clean, same mode, no source or native detail (nearly every entry of
    a rebuilt wheel; a test holds this to `_entry_findings`)."""
    return (
        entry.status is Status.IDENTICAL
        and entry.corrupt is None
        and entry.base_mode == entry.patch_mode
        and entry.source is None
        and entry.native is None
    )


def _entry_findings(entry: EntryResult) -> Iterator[Finding]:
    if entry.corrupt is not None:
        yield Finding(Code.W604, entry.path, entry.corrupt)
    code = _STATUS_CODES[entry.kind].get(entry.status)
    # A stream that fails its own check says nothing about a content change; identical content
    # installed with another mode is said by the mode findings.
    if entry.how in (How.CORRUPT, How.MODE):
        code = None
    if code is not None and not _is_record_file(entry.path):
        yield Finding(code, entry.path, _describe(entry))
    if entry.base_mode != entry.patch_mode:  # rare: the property only then
        change = entry.mode_change
        if change is not None:
            yield from mode_findings(entry.path, change)
    if entry.source is not None:
        yield from _source_findings(entry)
    if entry.native is not None and entry.native.platform is not None:
        base, patch = entry.native.platform
        changes = base.raised_changes(patch)
        if changes:
            yield Finding(Code.W713, entry.path, "; ".join(changes))
        from k3diff.wheels.nativeread import search_path_findings  # a native whose needs moved

        base_path = entry.base_path or entry.path
        for finding in search_path_findings(
            entry.patch_path or entry.path, patch, (base_path, base)
        ):
            yield Finding(finding.code, entry.path, finding.detail)
    elif entry.native is not None and entry.native.format == "elf":
        # review74: unreadable tables gave no W713, so `--allow-native-changes` passed the
        # entry whatever glibc it needs; unchecked is held, as `audit` cannot hold it (A116)
        why = entry.native.platform_problem or entry.native.error or "not read"
        detail = f"loader tables unreadable, platform needs unchecked: {why}"
        yield Finding(Code.W713, entry.path, detail)


def _describe(entry: EntryResult) -> str:
    if entry.status is Status.MISSING:
        return f"{entry.kind.value} entry only in the base ({_bytes(entry.base_size)})"
    if entry.status is Status.ADDED:
        return f"{entry.kind.value} entry only in the patch ({_bytes(entry.patch_size)})"
    detail = f"{entry.how.value} differs"
    if entry.base_size != entry.patch_size:
        detail += f": {entry.base_size:,} -> {_bytes(entry.patch_size)}"
    if entry.diff is not None and entry.diff.binary is not None:
        detail += f" (not text: {entry.diff.binary})"
    elif entry.diff is not None and entry.diff.line_endings_only:
        detail += " (line endings only)"
    elif entry.diff is not None:
        detail += f" (+{entry.diff.added:,} -{entry.diff.removed:,} lines)"
    return detail


def _bytes(size: int | None) -> str:
    return "? bytes" if size is None else plural(size, "byte")


def _source_findings(entry: EntryResult) -> Iterator[Finding]:
    source = entry.source
    if source is None:
        return
    # Imported here: provenance (and git plumbing) loads only for runs that use --source.
    from k3diff.provenance.check import SourceStatus

    if source.status is SourceStatus.MISMATCH:
        lines = f" (+{source.added:,} -{source.removed:,} lines)" if source.diff else ""
        if source.diff_skipped:
            lines = f"; {source.diff_skipped}"
        detail = f"differs from {source.repo_path} at the source commit{lines}"
        if source.repo_blob == source.wheel_blob:  # a file the build writes over that copy
            detail = (
                f"is {source.repo_path} as the source commit holds it, which the build replaces"
            )
        yield Finding(Code.W401, entry.path, detail + _not_generated(source))
    elif source.status is SourceStatus.ABSENT:
        held = "does not exist at the source commit"
        if source.link is not None:  # newuser68: said not to exist, where a checkout holds it
            link = source.link
            where = "a symbolic link" if link == source.repo_path else f"under the link {link}"
            held = f"is {where} at the source commit: k3diff does not follow it, so the wheel's "
            held += "file was compared with nothing"
        elif source.submodule is not None:  # review69: said not to exist, as the link was
            held = f"is in the submodule {source.submodule} at the source commit: k3diff does "
            held += "not read another repository, so the wheel's file was compared with nothing"
        detail = f"{source.repo_path} {held}" + _not_generated(source)
        yield Finding(Code.W402, entry.path, detail)
    elif source.status is SourceStatus.UNVERIFIABLE:
        yield Finding(
            Code.W405,
            entry.path,
            "bytecode cannot be matched to the source commit: a repository holds sources, and "
            "what this file runs is not among them",
        )
    elif source.status is SourceStatus.STALE:
        matched = source.matched_commit or "?"
        yield Finding(
            Code.W403, entry.path, f"matches {source.repo_path} at older commit {matched}"
        )


def _not_generated(source: FileSource) -> str:
    """Why a module the configuration says the build writes is not held to be what it writes
    (prov70c): it runs at import, so it is compared with the commit as any other."""
    return "" if source.not_generated is None else f"; {source.not_generated}"


def _is_record_file(path: str) -> bool:
    return path.endswith(RECORD_FILES) and path.count("/") == 1


def _row_agrees(entry: EntryResult, line: RecordLine, base_line: RecordLine | None) -> bool:
    """True when `_record_line_findings` has nothing to say, decided without it: identical
    content read clean, not hashed, whose row gives its size and the base row's SHA-256 (or
    the base has no row to compare with). A test holds this to `_record_line_findings`."""
    return (
        entry.status is Status.IDENTICAL
        and entry.corrupt is None
        and entry.patch_digest is None
        and line.sha256 is not None
        and line.size == entry.patch_size
        and (base_line is None or base_line.sha256 is None or base_line.sha256 == line.sha256)
    )


def _record_line_findings(
    entry: EntryResult, line: RecordLine, base_record: dict[str, RecordLine] | None
) -> Iterator[Finding]:
    path = entry.patch_path or entry.path
    if line.size is not None and line.size != entry.patch_size:
        yield Finding(
            Code.W302,
            path,
            f"RECORD says {_bytes(line.size)}, the archive holds {_bytes(entry.patch_size)}",
        )
    unverifiable = unverifiable_algorithm(line)
    if unverifiable is not None:
        yield Finding(Code.W623, path, unverifiable)
    if entry.corrupt is not None:
        return  # the content is unknown: its hash can be neither checked nor compared
    base_line = base_record.get(entry.base_path or "") if base_record else None
    mismatch = digest_mismatch(entry.patch_digest, line)
    if mismatch is not None:
        stale = base_line is not None and base_line.hash == line.hash
        yield Finding(Code.W302, path, mismatch + (" (the base's: stale RECORD)" if stale else ""))
        return
    if entry.patch_digest is not None:
        return  # verified against the content itself
    if base_line is None or base_line.sha256 is None or line.sha256 is None:
        return
    if base_line.sha256 == line.sha256:
        if entry.status is Status.CHANGED and not entry.content_identical:
            yield Finding(
                Code.W302,
                path,
                "RECORD hash is the base's although the content changed (stale RECORD)",
            )
    elif entry.content_identical:
        yield Finding(
            Code.W302, path, "RECORD hash changed although the content is identical to the base"
        )
