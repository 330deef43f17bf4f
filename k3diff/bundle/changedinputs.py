"""Inputs changed since the document that records them (report67).

A responses, logs, wheels or audit document records each input it read by SHA-256, and
`report` ties a file given to it by those bytes. A file edited since (a capture, a log, a wheel
rebuilt) no longer has them: it was refused one document and one file at a time (responses and
logs), or as a file no document names (wheels and audit; "base.log: not a k3diff JSON
document" where both logs had changed), and never with the command that makes the document
again. Here every such input is found the one way, for every kind: an input the document
records is the file given with its bytes, else the file given under the name the document
records for it (the same path as given, else the one file given of that file name), which has
then changed; one neither way is missing. A document none of whose inputs is given either way
is judged alone, as before. Each input changed or missing is one refusal (`stale.StaleDocument`),
naming the file, its SHA-256 recorded and now, the document that records it and the command
that writes that document anew from the files as given, so that `report` says them all at once
with the documents that do not follow (`stale.refuse_stale`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k3diff import escape
from k3diff.bundle import runagain, wheelsource
from k3diff.bundle.stale import INPUT_STATES, StaleDocument
from k3diff.docbody import Kind
from k3diff.documents.read import Document

SHOWN = 16
"""Hex digits of a SHA-256 a refusal shows, as the other refusals show them."""

SAID = 10
"""Inputs of one document named each on a line of its own; the rest are counted on one more
line (review67b: a 0.9 MB logs document recording 3,000 files not given printed 3,001 lines,
each with the command naming all 3,000: 316 MB of error, 1.9 GB of memory)."""


@dataclass(frozen=True)
class Recorded:
    """One input a document records by its SHA-256."""

    name: str
    """The name the document records for it (the path as given to the command that wrote it,
    or a file's name in a directory it read)."""
    sha256: str
    """Its SHA-256 when the document was written."""
    role: str
    """What it was to the document: `its base input`, `a patch log`, `an audited wheel`."""


@dataclass(frozen=True)
class Mismatch:
    """A recorded input that the files given do not hold as it was."""

    recorded: Recorded
    given: Path | None
    """The file given under its name (changed, or added to a directory); None: missing."""
    sha256: str | None
    """That file's SHA-256 now."""
    added: bool = False
    """A file in a directory the document read that it does not record (`recorded.sha256`
    empty)."""
    directory: Path | None = None
    """The directory given that held it when the document was written (missing from it now)."""
    looked: Path | None = None
    """Missing: where `report` looked for it, as the command written anew names it
    (`where_recorded`; newuser68: the refusal named `dist/SHA256SUMS` as recorded, the command
    `nu68/rep/dist/SHA256SUMS`)."""


def given_under(
    name: str, files: Iterable[Path], place: Path | None = None, near: Path | None = None
) -> Path | None:
    """The file given under the name a document records: the same path as given, else that
    path under `near` (the document's directory, where the command that wrote it ran), else
    the one file given of that file name (None: none, or several); `place`: of those directly
    in that directory (a release set's side)."""
    files = [p for p in dict.fromkeys(files) if place is None or p.parent == place]
    for wanted in (Path(name), None if near is None else near / name):
        same = [path for path in files if wanted is not None and path == wanted]
        if same:
            return same[0]
    named = [path for path in files if path.name == Path(name).name]
    return named[0] if len(named) == 1 else None


def where_recorded(name: str, near: Path | None) -> Path:
    """A recorded input no file given holds, as a command run from here names it: the path
    the document records under the document's directory `near` (where the command that wrote
    it ran, as `given_under` reads it; lmrep68: named as recorded, a relative path run from
    another directory read no file), or the path as recorded where that one holds a file and
    the other none (review68: a document written elsewhere, `-o out/audit.json`, had each
    missing input named under `out/`, where no file was, and the command failed)."""
    recorded = Path(name)
    if near is None:
        return recorded
    beside = near / name
    return recorded if _is_file(recorded) and not _is_file(beside) else beside


def _is_file(path: Path) -> bool:
    """Whether a recorded path names a file here; False where the system cannot look it up (a
    name over 255 bytes: review72b, an internal error, `report` on an audit naming its artifact
    so)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def match(
    recorded: Sequence[Recorded],
    by_bytes: Sequence[Path | None],
    free: Sequence[Path],
    digest_of: Mapping[Path, str],
    alone: bool = False,
    places: Sequence[Path | None] | None = None,
    near: Path | None = None,
    claimed: frozenset[str] = frozenset(),
) -> tuple[list[Path], list[Mismatch]] | None:
    """For each recorded input, the file to run the document's command on (the one given with
    its bytes, `by_bytes`, else the one of `free` given under its name, changed, else the name
    it records), and each input changed or missing; None where no recorded input is given
    either way, or only by file name elsewhere (the document is then judged alone). `alone`:
    a document whose inputs may be given in part (an audit of wheels some of which a wheels
    document compares, a wheels document whose patch an audit audited) is judged alone where
    none is changed, and an input of it not given is no refusal. `places`: per input, the
    directory its file must lie in; `near`: the document's directory (`given_under`);
    `claimed`: the SHA-256 any document given records (`recorded_digests`), whose files are
    those inputs, never another's changed one."""
    taken = {path for path in by_bytes if path is not None}
    # Tied by a file given with its bytes, or under the very path it records (as given, or
    # under the document's directory; in its side's directory): a file of the same name
    # elsewhere alone ties no document (a document given alone beside another's inputs).
    strong = bool(taken)
    free = [path for path in free if digest_of.get(path) not in claimed]
    paths: list[Path] = []
    mismatches: list[Mismatch] = []
    found = False
    places = [None] * len(recorded) if places is None else places
    for entry, path, place in zip(recorded, by_bytes, places, strict=True):
        if path is not None:
            paths.append(path)
            found = True
            continue
        under = given_under(entry.name, [p for p in free if p not in taken], place, near)
        if under is not None:
            taken.add(under)
            found = True
            near_name = None if near is None else near / entry.name
            strong = strong or place is not None or under in (Path(entry.name), near_name)
            if digest_of.get(under) == entry.sha256:  # its bytes after all: unchanged
                paths.append(under)
                continue
        if under is None:  # missing: named where it was looked for, in the refusal too
            paths.append(where_recorded(entry.name, near))
            mismatches.append(Mismatch(entry, None, None, looked=paths[-1]))
        else:
            paths.append(under)
            mismatches.append(Mismatch(entry, under, digest_of.get(under)))
    if alone:
        mismatches = [m for m in mismatches if m.given is not None]
        if not mismatches and any(path is None for path in by_bytes):
            return None
    return (paths, mismatches) if found and strong else None


def recorded_digests(documents: Sequence[Document]) -> frozenset[str]:
    """Every SHA-256 a document given records for an input it read (a responses document's
    sides, a logs document's files, a wheels document's or a release set's wheels, an audit's
    artifacts): a file given with those bytes is that input, so no document takes it by name
    for an input of its own that changed (two documents whose inputs share a file name, one
    given with them and one alone)."""
    found: set[str] = set()
    for doc in documents:
        if doc.kind not in _RECORDING:
            continue
        body = doc.body_again(_RECORDING[doc.kind])
        found.update(_digests_in(body, doc.kind))
    return frozenset(found)


_RECORDING = {
    Kind.RESPONSES: "responses document",
    Kind.LOGS: "logs document",
    Kind.WHEELS: "wheels document",
    Kind.WHEELSET: "release-set document",
    Kind.AUDIT: "audit document",
}


def _digests_in(body: Mapping[str, Any], kind: Kind) -> list[str]:
    """The SHA-256 a document's body records for its inputs."""
    sides = [body.get(side) for side in ("base", "patch")]
    if kind is Kind.AUDIT:
        items: list[Any] = list(body.get("artifacts") or [])
    elif kind is Kind.WHEELSET:
        pairs = [p.get("wheels") for p in body.get("pairs") or [] if isinstance(p, Mapping)]
        items = [w.get(side) for w in pairs if isinstance(w, Mapping) for side in ("base", "patch")]
        items += [*(body.get("only_base") or []), *(body.get("only_patch") or [])]
    else:
        items = [*sides, *(r for s in sides if isinstance(s, Mapping) for r in s.get("read") or [])]
    digests = [item.get("sha256") for item in items if isinstance(item, Mapping)]
    return [digest for digest in digests if isinstance(digest, str)]


def _short(digest: str | None) -> str:
    return "?" if not digest else f"{digest[:SHOWN]}…"


def said(document: str, mismatch: Mismatch) -> str:
    """One input as a refusal names it: the file, what changed, the document recording it.
    Names are escaped here (`escape.text`): the error line folds whitespace, so a newline in
    a name would read as a space, the name as another; it reads `\\n`."""
    entry = mismatch.recorded
    document = escape.text(document)
    entry = Recorded(escape.text(entry.name), entry.sha256, entry.role)
    given = None if mismatch.given is None else escape.text(str(mismatch.given))
    if mismatch.added:
        return (
            f"{given}: added since {document} was written (SHA-256 "
            f"{_short(mismatch.sha256)}; it records no such file as {entry.role})"
        )
    if mismatch.given is None:
        gone = (
            "no file given holds those bytes or has that name"
            if mismatch.directory is None
            else f"the directory {escape.text(str(mismatch.directory))} no longer holds it"
        )
        # Named where report looked, as the command names it; the recorded name beside it.
        looked = mismatch.looked
        moved = looked is not None and str(looked) != mismatch.recorded.name
        named = escape.text(str(looked)) if moved else entry.name
        recorded = f", named {entry.name} there" if moved else ""
        return (
            f"{named}: missing ({document} records it as {entry.role}{recorded}, SHA-256 "
            f"{_short(entry.sha256)}; {gone})"
        )
    return (
        f"{given}: changed since {document} recorded it as {entry.role} (SHA-256 "
        f"{_short(entry.sha256)} recorded, {_short(mismatch.sha256)} now)"
    )


def refusals(
    document: str,
    mismatches: Sequence[Mismatch],
    what: str,
    command: Sequence[str] | None,
    tool: str,
    tied: Iterable[Path] = (),
) -> list[StaleDocument]:
    """One refusal per input changed, added or missing, each naming what to give instead (the
    `what` the document was made from, or the document alone) and `command`, `tool`'s
    arguments, that writes `document` anew from the files as given (`runagain.again`); `tied`,
    the document's other inputs given, which no later check may refuse as given for nothing.
    The first `SAID` are named, each on its line; the rest are counted on one line more."""
    tied = tuple(tied)
    fix = (
        f"give report the {what} {document} was made from (or {document} alone), or "
        + runagain.again(command, document, tool, document)
    )
    given = [() if m.given is None else (m.given,) for m in mismatches]
    states = [
        "added" if m.added else "missing" if m.given is None else "changed" for m in mismatches
    ]
    found = [
        StaleDocument(
            f"{said(document, m)}; {fix}",
            document,
            files=tuple(dict.fromkeys([*(tied if n == 0 else ()), *given[n]])),
            key=f"{document}\0{m.recorded.role}\0{m.given or m.recorded.name}",
            what=states[n],
        )
        for n, m in enumerate(mismatches[:SAID])
    ]
    for state in INPUT_STATES:
        rest = [n for n in range(SAID, len(mismatches)) if states[n] == state]
        if rest:
            found.append(
                StaleDocument(
                    f"{escape.text(document)}: {len(rest):,} more of its inputs {state} since it "
                    "was written, not named here; the command above brings it up to date",
                    document,
                    files=tuple(path for n in rest for path in given[n]),
                    key=f"{document}\0more\0{state}",
                    what=state,
                    count=len(rest),
                )
            )
    return found


def changed_wheels(
    name: str,
    body: Mapping[str, Any],
    given: Mapping[str, tuple[Path, int]],
    stale: list[StaleDocument],
    whole: tuple[str, Mapping[str, Any], list[list[str]] | None] | None,
    claimed: frozenset[str] = frozenset(),
    repos: Sequence[Path] = (),
) -> set[Path] | None:
    """A wheel a wheels document (`body`; a release set's pair: `whole`, the set's name, body
    and sides as given) records, given under its name but changed since: its refusal added to
    `stale`, naming the command that writes the document (a pair's: its set) anew from the
    wheels as given, its source check in the directory of `repos` holding its commit; the
    wheels given that it names (the other too) and that directory, None where none changed
    (newuser67: the command said `--source REPO` though the repository was given, and that
    directory, tied to nothing, stopped the checks after it, so the inputs they would have
    named changed were met one run later)."""
    recorded = []
    for side in ("base", "patch"):
        wheel = body.get(side)
        if not isinstance(wheel, Mapping) or not isinstance(wheel.get("sha256"), str):
            return None  # a --no-file-hash document: tied by name and size, or judged alone
        recorded.append(Recorded(str(wheel.get("path")), wheel["sha256"], f"its {side} wheel"))
    places: list[Path | None] = [None, None]
    if (
        whole is not None
        and whole[2] is not None
        and all(len(side) == 1 and not side[0].lower().endswith(".whl") for side in whole[2])
    ):  # a set made from two directories: each side's wheel lies in its own
        places = [Path(side[0]) for side in whole[2]]
    by_bytes = [
        given[r.sha256][0]
        if r.sha256 in given and place in (None, given[r.sha256][0].parent)
        else None
        for r, place in zip(recorded, places, strict=True)
    ]
    digest_of = {path: digest for digest, (path, _) in given.items()}
    near = Path(name if whole is None else whole[0]).parent
    found = match(recorded, by_bytes, list(digest_of), digest_of, True, places, near, claimed)
    if found is None or not found[1]:
        return None  # none given, or both with the bytes recorded: run again (wheelsrederive)
    paths, mismatches = found
    repository = wheelsource.recorded_repository(body, name, repos)
    if whole is None:
        written, command = name, runagain.wheels_args(body, paths[0], paths[1], repository)
    else:  # a pair is written by its release set's command, on the wheels as given now
        written, body_of_set, sides = whole
        now = {m.recorded.sha256: (m.given, 0) for m in mismatches if m.given is not None}
        sides = sides or runagain.given_sides(body_of_set, {**given, **now})
        command = runagain.wheelset_args(body_of_set, sides, repository)
    tied = {path for path in paths if path in digest_of}
    tied.update([] if repository is None else [repository])
    stale.extend(refusals(written, mismatches, "wheels", command, "wheels", tied))
    return tied


def changed_unpaired(
    name: str,
    body: Mapping[str, Any],
    given: Mapping[str, tuple[Path, int]],
    stale: list[StaleDocument],
    claimed: frozenset[str],
) -> set[Path]:
    """A wheel a release set made from files lists on one side only, given under its name but
    changed since: its refusal added to `stale` with the set's command on the wheels as given;
    the wheels so named (none where none changed)."""
    rows = [
        Recorded(str(row.get("path")), row["sha256"], f"its {side} wheel on one side only")
        for side in ("base", "patch")
        for row in body.get(f"only_{side}") or []
        if isinstance(row, Mapping) and isinstance(row.get("sha256"), str)
    ]
    by_bytes = [given[r.sha256][0] if r.sha256 in given else None for r in rows]
    digest_of = {path: digest for digest, (path, _) in given.items()}
    near = Path(name).parent
    found = match(rows, by_bytes, list(digest_of), digest_of, True, near=near, claimed=claimed)
    if found is None or not found[1]:
        return set()
    now = {m.recorded.sha256: (m.given, 0) for m in found[1] if m.given is not None}
    command = runagain.wheelset_args(body, runagain.given_sides(body, {**given, **now}))
    stale.extend(refusals(name, found[1], "wheels", command, "wheels"))
    return {m.given for m in found[1] if m.given is not None}


def recorded_sides(doc: Document, what: str) -> str:
    """ ": BASE and PATCH", the two inputs a document records (its `base.path` and
    `patch.path`), named as the report's reader looks for them (`where_recorded`), for the
    qualification of a document judged alone; "" where it records no such pair (newuser72:
    "give report both inputs" named no file, and a newcomer could not tell which)."""
    body = doc.body_again(what)
    sides = [body.get(side) for side in ("base", "patch")]
    paths = [side.get("path") if isinstance(side, dict) else None for side in sides]
    if not all(isinstance(path, str) and 0 < len(path) <= 300 for path in paths):
        return ""
    near = Path(doc.name).parent
    base, patch = (escape.text(str(where_recorded(str(path), near))) for path in paths)
    return f": {base} and {patch}"
