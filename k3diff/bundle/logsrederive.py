"""A logs document given with its two log files is believed only as far as `k3diff logs`, run
again on them with the document's own settings, writes the same document (stop 62).

A `k3diff.logs/1` document is checked against itself (its counts, and its verdict in the
passing direction), but nothing there ties its findings to the logs: a forger deleting an error
finding and editing the counts and verdict to match passed. Every document now records each
side's SHA-256 and size (of the one file read; a `.gz` log as given) and the settings it ran with
(`rerun`: the user rules as parsed, `--ignore-rule`, `--strict` and the caps). A file given to
`report` is a logs input exactly when its SHA-256 is one a logs document given records for a
side: the one mechanism by which `report` tells responses inputs apart
(`k3diff.bundle.responsesrederive`), so a samples log (a k3diff document, read as one) or a
responses capture is never taken for a server log. Where both files are given, `logs` runs again
on them and the two documents are compared whole (but for the paths, which name the files as
given), naming the first field that differs (exit 2). A document written before the digests,
given with log files, is refused (re-run `k3diff logs`, or give it alone): nothing ties a file
to it; one given alone is judged from itself, as before. A side given as a directory or several
files records every file read (`read`: name, SHA-256, size; rerun63) and is run again on the
same files: each file by its SHA-256, a directory as `k3diff.bundle.logsdirs` ties it. A log
changed since (given under the name it records, or in a directory given), missing, or added
to a directory is named with every other input changed (`changedinputs`, report67)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from k3diff.bundle import changedinputs, runagain
from k3diff.bundle.changedinputs import Mismatch, Recorded
from k3diff.bundle.difference import first_difference
from k3diff.bundle.givenfiles import Copies, pick_copies
from k3diff.bundle.logsdirs import SideTie, side_ties
from k3diff.bundle.stale import PROBLEM
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.errors import InputError, K3diffError

Tie = tuple[tuple[str, str, int], ...]
"""Each input's name as given, SHA-256 and size (what the bundle lists among its inputs)."""


def _options(rerun: Mapping[str, Any], name: str) -> Any:
    """The `LogsOptions` the document records (InputError naming a field that is not one)."""
    from k3diff.logs import LogsOptions, Severity, parse_user_rule

    def field(key: str, kind: type | tuple[type, ...]) -> Any:
        value = rerun.get(key)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, (int, float))):
            raise InputError(f"{name}: field 'rerun.{key}' is missing or of another type")
        return value

    rules = []
    for index, rule in enumerate(field("rules", list)):
        where = f"{name}: rerun.rules[{index}]"
        if not isinstance(rule, dict) or rule.get("severity") not in ("error", "warning"):
            raise InputError(f"{where}: not a rule of k3diff logs (name, severity, pattern)")
        try:
            rules.append(
                parse_user_rule(
                    f"{rule.get('name')}={rule.get('pattern')}", Severity(rule["severity"])
                )
            )
        except K3diffError as exc:
            raise InputError(f"{where}: {exc}") from None
    ignored = field("ignored", list)
    if not all(isinstance(n, str) for n in ignored):
        raise InputError(f"{name}: field 'rerun.ignored' must list rule names")
    max_seconds = float(field("max_seconds", (int, float)))
    if not math.isfinite(max_seconds) or max_seconds <= 0:
        raise InputError(f"{name}: field 'rerun.max_seconds' must be a positive number")
    return LogsOptions(
        rules=tuple(rules),
        ignored=tuple(ignored),
        strict=field("strict", bool),
        max_inflated=field("max_inflated_bytes", int),
        max_seconds=max_seconds,
    )


Found = dict[str, tuple[Path, ...]]
"""Per side, the paths `logs` runs again on, in the order the document records them."""


def _again(body: Mapping[str, Any], found: Found, ties: Sequence[SideTie], name: str) -> Any:
    """The document `logs` writes on the paths found with the document's settings, its paths
    named as the document names them, or why none."""
    from k3diff.documents.logs import write
    from k3diff.logs import scan_logs
    from k3diff.logs.compare import renamed

    options = _options(body["rerun"], name)
    try:
        report = scan_logs(found["base"], found["patch"], options)
    except K3diffError as exc:
        return f"logs refuses them: {exc}"
    shown_by_side = {tie.side: _shown_as(tie, found[tie.side]) for tie in ties}
    report = renamed(report, lambda side, entry: shown_by_side[side](entry))
    again: dict[str, Any] = json.loads(write(report))
    for tie in ties:
        shown = shown_by_side[tie.side]
        again[tie.side]["paths"] = list(tie.recorded)
        if not tie.directory:  # files named as given (logs64: given from elsewhere, refused)
            for entry in again[tie.side].get("read", ()):
                entry["name"] = shown(entry["name"])
        for entry in again["files"]:
            if entry["side"] == tie.side:
                entry["path"] = shown(entry["path"])
        for finding in again["findings"]:
            if finding["side"] == tie.side:
                for example in finding["examples"]:
                    example["file"] = shown(example["file"])
    return again


def _shown_as(tie: SideTie, given: Sequence[Path]) -> Callable[[str], str]:
    """A name the run again writes (a path as given to report, or under a directory given)
    as the document names it."""
    same = {str(path): recorded for path, recorded in zip(given, tie.recorded, strict=True)}

    def shown(name: str) -> str:
        if name in same:
            return same[name]
        if tie.directory:
            try:
                return str(Path(tie.recorded[0]) / Path(name).relative_to(given[0]))
            except ValueError:
                return name
        return name

    return shown


def _picks(ties: Sequence[SideTie], copies: Copies) -> dict[str, tuple[Path | None, ...]]:
    """For each side given as files, a distinct file given for each file it read, by its bytes
    (newuser64: two logs of the same bytes, on one side or on both, were one file read twice,
    and the other refused as given for nothing)."""
    files = [tie for tie in ties if not tie.directory]
    wanted = [(name, digest) for tie in files for name, digest, _ in tie.read]
    picked = iter(pick_copies(copies, wanted))
    return {tie.side: tuple(next(picked) for _ in tie.read) for tie in files}


def check_logs_again(
    documents: Sequence[Document],
    given: Mapping[str, tuple[Path, int]],
    directories: Mapping[tuple[str, str], Path] | None = None,
    copies: Copies | None = None,
    *,
    stale: list[runagain.StaleDocument],
) -> tuple[dict[str, Tie], frozenset[Path], tuple[str, ...]]:
    """Add to `stale` the refusal of a logs document that `logs`, run again on its files (each
    among `given`: each file `report` could not read as a document, by SHA-256, with its size)
    or directories (`directories`, from `logsdirs.logs_directories`), does not reproduce, and
    of each log it records that changed since, or is missing (`changedinputs`: a file given
    under its name, a file of a directory given); raise InputError for one side's directory
    given without the other; return the documents so re-derived (each to the files read), the
    files they tied, and the logs documents that record no SHA-256 (older)."""
    copies = copies if copies is not None else {d: (p,) for d, (p, _) in given.items()}
    digest_of = {path: digest for digest, paths in copies.items() for path in paths}
    checked: dict[str, Tie] = {}
    tied: set[Path] = set()
    older: list[str] = []
    claimed = changedinputs.recorded_digests(documents)
    for doc in documents:
        if doc.kind is not Kind.LOGS:
            continue
        body = doc.body_again("logs document")
        ties = side_ties(body)
        if ties is None:
            older.append(doc.name)
            continue
        free = [p for p in digest_of if p not in tied]
        picks = _picks(ties, copies)
        try:
            found = _found(doc.name, ties, picks, free, digest_of, directories or {}, claimed)
        except InputError as exc:  # a side's directory not given: said with the others
            files = tuple(p for side in picks.values() for p in side if p is not None)
            key = f"{doc.name}\0dir"
            stale.append(runagain.StaleDocument(str(exc), doc.name, files, key, PROBLEM))
            continue
        if found is None:  # none of its logs given: judged from the document alone
            continue
        paths, mismatches = found
        tied.update(path for p in paths.values() for path in p)
        again: Any = None
        if not mismatches:
            again = _again(body, paths, ties, doc.name)
            mismatches = [] if isinstance(again, str) else _changed(ties, paths, again)
        command = runagain.logs_args(body, paths)
        if mismatches:  # a log changed since, missing or added (report67)
            tied_now = [path for p in paths.values() for path in p if path in digest_of]
            stale.extend(
                changedinputs.refusals(doc.name, mismatches, "logs", command, "logs", tied_now)
            )
            continue
        shown = " and ".join(", ".join(map(str, paths[side])) for side in ("base", "patch"))
        difference = again if isinstance(again, str) else first_difference(body, again)
        if difference is not None:
            stale.append(
                runagain.refusal(
                    doc.name,
                    "logs",
                    f"logs run again on {shown}",
                    difference,
                    "give the document the logs it was made from, or "
                    + runagain.again(command, doc.name, "logs"),
                )
            )
        checked[doc.name] = _inputs(ties, paths)
    return checked, frozenset(tied), tuple(older)


def _found(
    name: str,
    ties: Sequence[SideTie],
    picks: Mapping[str, tuple[Path | None, ...]],
    free: Sequence[Path],
    digest_of: Mapping[Path, str],
    directories: Mapping[tuple[str, str], Path],
    claimed: frozenset[str],
) -> tuple[Found, list[Mismatch]] | None:
    """Per side, the paths `logs` runs again on (a directory given for a side read as one; for
    a side of files, each file given with its bytes, else the one given under its name, which
    changed), with each file changed or missing; None where none is given either way.
    InputError for a side's directory not given while the other side's logs are."""
    files = [tie for tie in ties if not tie.directory]
    recorded = [
        Recorded(name, digest, f"{'the' if len(tie.read) == 1 else 'a'} {tie.side} log")
        for tie in files
        for name, digest, _ in tie.read
    ]
    by_bytes = [path for tie in files for path in picks[tie.side]]
    near = Path(name).parent
    matched = (
        changedinputs.match(recorded, by_bytes, free, digest_of, near=near, claimed=claimed)
        if recorded
        else None
    )
    held = {tie.side: directories.get((name, tie.side)) for tie in ties if tie.directory}
    if matched is None and all(d is None for d in held.values()):
        return None
    for tie in ties:
        if tie.directory and held[tie.side] is None:
            raise InputError(_not_given(name, tie))
    paths: Found = {}
    rest = iter(matched[0] if matched is not None else ())
    for tie in ties:
        directory = held.get(tie.side)
        paths[tie.side] = (
            (directory,) if directory is not None else tuple(next(rest) for _ in tie.read)
        )
    return paths, [] if matched is None else matched[1]


def _changed(ties: Sequence[SideTie], found: Found, again: Mapping[str, Any]) -> list[Mismatch]:
    """For a side given as a directory: each file added to it, missing from it or changed in
    it since `logs` read it (none where it holds exactly those)."""
    mismatches = []
    for tie in ties:
        if not tie.directory:
            continue
        directory = found[tie.side][0]
        role = f"a {tie.side} log"
        now = {e["name"]: e["sha256"] for e in again[tie.side].get("read", ())}
        then = {name: digest for name, digest, _ in tie.read}
        for name, digest in then.items():
            path = directory / name
            if name not in now:
                mismatches.append(
                    Mismatch(Recorded(str(path), digest, role), None, None, directory=directory)
                )
            elif now[name] != digest:
                mismatches.append(Mismatch(Recorded(str(path), digest, role), path, now[name]))
        mismatches += [
            Mismatch(Recorded(name, "", role), directory / name, digest, added=True)
            for name, digest in now.items()
            if name not in then
        ]
    return mismatches


def _inputs(ties: Sequence[SideTie], found: Found) -> Tie:
    """Every file the document was run again on, as the bundle lists them."""
    files: list[tuple[str, str, int]] = []
    for tie in ties:
        if tie.directory:
            files += [(str(found[tie.side][0] / n), d, b) for n, d, b in tie.read]
        else:
            files += [
                (str(path), digest, size)
                for path, (_, digest, size) in zip(found[tie.side], tie.read, strict=True)
            ]
    return tuple(dict.fromkeys(files))


def _not_given(doc: str, tie: SideTie) -> str:
    """Why one side's directory is not among those given while the other side's logs are."""
    count = f"{len(tie.read)} file{'s' if len(tie.read) != 1 else ''}"
    return (
        f"{doc}: no directory given holds the {tie.side} logs it records ({tie.recorded[0]}, "
        f"{count}: {tie.read[0][0]}…); give report both sides' logs it was made from to run "
        "k3diff logs again on them, or the document without its logs"
    )


def older_refusal(older: Sequence[str]) -> Callable[[Path], InputError | None]:
    """Why a file no document ties cannot be the logs of a logs document given beside it that
    records no SHA-256 (None where none was given)."""

    def refusal(path: Path) -> InputError | None:
        if not older:
            return None
        return InputError(
            f"{older[0]}: records no SHA-256 of its logs, or not the settings it ran with "
            "(`rerun`; written before k3diff logs recorded them, or a side given as a "
            f"directory before rerun63), so {path} cannot be tied to it: re-run "
            "k3diff logs on the two sides' logs, or give report the document without its logs"
        )

    return refusal
