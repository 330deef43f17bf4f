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
same files: each file by its SHA-256, a directory as `k3diff.bundle.logsdirs` ties it, a file
added to, missing from or changed in it named."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from k3diff.bundle import runagain
from k3diff.bundle.difference import first_difference
from k3diff.bundle.givenfiles import Copies, pick_copies
from k3diff.bundle.logsdirs import SideTie, side_ties
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


def _found(
    tie: SideTie,
    doc: str,
    given: Mapping[str, tuple[Path, int]],
    directories: Mapping[tuple[str, str], Path],
    picked: Sequence[Path | None],
) -> tuple[Path, ...] | None:
    """The paths given for one side, None where none is (InputError for some files of a side
    given as several but not all). `picked`: for a side of files, the file given for each
    file read (`_picks`)."""
    if tie.directory:
        directory = directories.get((doc, tie.side))
        return None if directory is None else (directory,)
    if all(f is None for f in picked):
        return None
    if any(f is None for f in picked):
        missing = next(entry for entry, f in zip(tie.read, picked, strict=True) if f is None)
        raise InputError(_unmatched(doc, tie, missing, given))
    return tuple(f for f in picked if f is not None)


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
    or directories (`directories`, from `logsdirs.logs_directories`), does not reproduce; raise
    InputError for one side given without the other; return the documents so re-derived (each to the files
    read), the files they tied, and the logs documents that record no SHA-256 (older)."""
    checked: dict[str, Tie] = {}
    tied: set[Path] = set()
    older: list[str] = []
    for doc in documents:
        if doc.kind is not Kind.LOGS:
            continue
        body = doc.body_again("logs document")
        ties = side_ties(body)
        if ties is None:
            older.append(doc.name)
            continue
        picks = _picks(
            ties, copies if copies is not None else {d: (p,) for d, (p, _) in given.items()}
        )
        found = {
            tie.side: _found(tie, doc.name, given, directories or {}, picks.get(tie.side, ()))
            for tie in ties
        }
        if all(paths is None for paths in found.values()):
            continue
        for tie in ties:
            if found[tie.side] is None:
                raise InputError(_not_given(doc.name, tie, given))
        paths: Found = {side: p for side, p in found.items() if p is not None}
        tied.update(path for p in paths.values() for path in p)
        again = _again(body, paths, ties, doc.name)
        shown = " and ".join(", ".join(map(str, paths[side])) for side in ("base", "patch"))
        difference = again if isinstance(again, str) else _changed(ties, paths, again)
        if difference is None:
            difference = first_difference(body, again)
        if difference is not None:
            stale.append(
                runagain.refusal(
                    doc.name,
                    "logs",
                    f"logs run again on {shown}",
                    difference,
                    "give the document the logs it was made from, or "
                    + runagain.again(runagain.logs_args(body, paths), doc.name, "logs"),
                )
            )
        checked[doc.name] = _inputs(ties, paths)
    return checked, frozenset(tied), tuple(older)


def _changed(ties: Sequence[SideTie], found: Found, again: Mapping[str, Any]) -> str | None:
    """For a side given as a directory: the files added to it, missing from it or changed in
    it since `logs` read it, by name (None where it holds exactly those)."""
    for tie in ties:
        if not tie.directory:
            continue
        now = {e["name"]: e["sha256"] for e in again[tie.side].get("read", ())}
        then = {name: digest for name, digest, _ in tie.read}
        parts = [
            f"{what} {', '.join(names[:5])}{f' and {len(names) - 5} more' if len(names) > 5 else ''}"
            for what, names in (
                ("added", [n for n in now if n not in then]),
                ("missing", [n for n in then if n not in now]),
                ("changed", [n for n in then if n in now and now[n] != then[n]]),
            )
            if names
        ]
        if parts:
            return (
                f"the {tie.side} directory {found[tie.side][0]} does not hold the files logs "
                f"read in {tie.recorded[0]}: {'; '.join(parts)}"
            )
    return None


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


def _not_given(doc: str, tie: SideTie, given: Mapping[str, tuple[Path, int]]) -> str:
    """Why one side's logs are not among those given while the other side's are."""
    if not tie.directory:
        return _unmatched(doc, tie, tie.read[0], given)
    count = f"{len(tie.read)} file{'s' if len(tie.read) != 1 else ''}"
    return (
        f"{doc}: no directory given holds the {tie.side} logs it records ({tie.recorded[0]}, "
        f"{count}: {tie.read[0][0]}…); give report both sides' logs it was made from to run "
        "k3diff logs again on them, or the document without its logs"
    )


def _unmatched(
    name: str, tie: SideTie, entry: tuple[str, str, int], given: Mapping[str, tuple[Path, int]]
) -> str:
    """Why one of a side's log files is not among those given (matched by SHA-256 only): the
    name and SHA-256 the document records for it, and the file given under that name, if any
    (edited since `logs` read it; polish62b: it read as "the other log, given without its
    base")."""
    shown, digest, _ = entry
    same = [str(p) for p, _ in given.values() if str(p) == shown or p.name == Path(shown).name]
    differs = f" {same[0]}, given under that name, differs:" if same else ""
    return (
        f"{name}: no file given matches the {tie.side} log it records ({shown}, SHA-256 "
        f"{digest[:16]}…);{differs} give report both log files it was made from to run k3diff "
        "logs again on them, or the document without its logs"
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
