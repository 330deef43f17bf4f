"""The source check of a wheels document run again (forge62): the repository is a directory
among `report`'s inputs, used for a document only when the commit(s) its `rerun.source` records
(full ids) resolve in it, and read exactly as `wheels --source` reads it (`k3diff.provenance.git`:
plumbing only, every git call hardened by `gitrun`, so no hook, filter, configuration or code
of the repository runs). Without it, `wheels` runs again without `--source` and the document is
compared but for what the source check wrote (`sourceless`): its source claims are then the
document's word, and the bundle says so."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from k3diff.errors import SourceError

if TYPE_CHECKING:
    from k3diff.wheels.compare import WheelOptions
    from k3diff.wheels.rerunoptions import RecordedSource

SOURCE_CODES = frozenset(
    {"W401", "W402", "W403", "W405", "W406", "W407", "W408", "W409", "W410", "W411", "W412", "W413"}
)
"""Findings only a source check writes (`wheel.codes`: W4xx)."""
AS_GIVEN = ("repo", "rev", "range", "head_commit")
"""Provenance fields that say how the repository and revision were named, not what they hold:
the repository's path as given, `HEAD` or a tag (a name that moves; the commit id is checked),
and the commit the clone's HEAD named then (setupstop76: it moves too)."""
REVISION_AS_GIVEN = ("given", "ref", "ref_target", "ref_target_type")
"""The same for each resolved revision: its name and the ref it named then."""


def holds(repo: Path, source: RecordedSource) -> bool:
    """True when `repo` is a git repository in which the recorded commit(s) resolve, as
    `wheels --source` would resolve them (a full id names its commit)."""
    from k3diff.provenance.git import open_repo
    from k3diff.provenance.revisions import resolve_revision

    try:
        git = open_repo(repo)
        for commit in (source.commit, source.old_commit):
            if commit is not None and resolve_revision(git, commit).commit != commit:
                return False
    except SourceError:
        return False
    return True


_STATED_AS = re.compile(
    r"(?P<head>the (?:patch|base) wheel states commit .*?), which is (?P<id>[0-9a-f]{40}(?:[0-9a-f]{24})?)[;:]"
)
"""A W408/W409 detail naming the full id a stated commit resolved to (`statedcheck`)."""


def stated_not_held(
    name: str, body: dict[str, Any], again: dict[str, Any] | str, repo: Path | None
) -> str | None:
    """Why a document whose stated commit (W408/W409) the repository given lacks cannot be
    checked again there, or None: where the document found it (`…, which is <id>; …`) and run
    again it is `not a commit in the repository`, the wheels do not differ from the document,
    the clone does (prov69: it was said as a difference of the wheels)."""
    if repo is None:
        return None
    said = _notes(body)
    now = {message for code, message in _notes(again) if code in ("W408", "W409")}
    for code, message in said:
        found = _STATED_AS.match(message) if code in ("W408", "W409") else None
        if found and any(
            m.startswith(f"{found['head']}: not a commit in the repository") for m in now
        ):
            return (
                f"{name}: {found['head']}, which the document found as {found['id']} in the "
                f"repository it was made in; the repository given ({repo}) does not hold that "
                f"commit, so the {code} it records cannot be checked again there: fetch it "
                f"into that clone (git fetch REMOTE {found['id']}), or give report the "
                "repository the document was made in"
            )
    return None


def _notes(document: dict[str, Any] | str) -> list[tuple[str, str]]:
    provenance = document.get("provenance") if isinstance(document, dict) else None
    notes = provenance.get("notes") if isinstance(provenance, dict) else None
    return [
        (str(n.get("code")), str(n.get("message")))
        for n in (notes if isinstance(notes, list) else [])
        if isinstance(n, dict)
    ]


NameCheck = tuple[str, "str | None", str, "str | None"]
"""One revision name a document records, checked in the repository given (rerun63): the name
as given to `wheels`, the ref it named then, the commit it was recorded to name, and the commit
it names in the repository now (None: none)."""


def names_checked(repo: Path, provenance: object) -> tuple[NameCheck, ...]:
    """Each revision name `provenance.revisions` records (not a full id: that names itself),
    resolved in `repo` exactly as `wheels --source` resolves it (`resolve_revision`: `git
    rev-parse --verify` under the hardened environment; nothing of the repository runs)."""
    from k3diff.provenance.git import open_repo
    from k3diff.provenance.revisions import resolve_revision

    revisions = provenance.get("revisions") if isinstance(provenance, dict) else None
    named = [
        r
        for r in (revisions if isinstance(revisions, list) else [])
        if isinstance(r, dict)
        and isinstance(r.get("given"), str)
        and isinstance(r.get("commit"), str)
        and r["given"] != r["commit"]
    ]
    if not named:
        return ()
    try:
        git = open_repo(repo)
    except SourceError:
        return ()
    checks: list[NameCheck] = []
    for revision in named:
        try:
            now: str | None = resolve_revision(git, revision["given"]).commit
        except SourceError:
            now = None
        ref = revision.get("ref")
        checks.append(
            (revision["given"], ref if isinstance(ref, str) else None, revision["commit"], now)
        )
    return tuple(checks)


def names_qualifications(name: str, repository: str, checks: Sequence[NameCheck]) -> list[str]:
    """A qualification for each revision name that does not name the commit recorded for it in
    the repository given (the source was checked at the recorded commit, by full id)."""
    said = []
    for given, ref, recorded, now in checks:
        if now == recorded:
            continue
        how = given if ref is None or ref == given else f"{given} ({ref})"
        names = "no commit" if now is None else f"commit {now}"
        said.append(
            f"{name}: the revision {how}, recorded as naming commit {recorded}, names {names} in "
            f"the repository given ({repository}): its source was checked again at the recorded "
            "commit; the name is the document's word (the repository has moved on since, or "
            "the name was edited)"
        )
    return said


STORAGE_CODES = frozenset({"W406", "W407"})
"""Notes on how the directory read stores its history (W406: replace refs or grafts, ignored;
W407: objects borrowed through alternates, and from which store): facts of that directory, not
of the commit, whose id hashes its content wherever it is stored and whose objects k3diff hashes
again. `report` may be given another directory holding the recorded commit (a plain clone of a
`--shared` one, a clone without the replace refs, which `git clone` does not copy, a copy moved
elsewhere), so they are compared apart from the rest of the document and said where they differ
(w408c: each of those made `report` refuse the document `wheels` had just written, exit 2)."""
_STORAGE_SAID = 3
"""Notes of each side a storage qualification lists (the rest counted)."""


Compared = tuple[dict[str, Any], "dict[str, Any] | str", tuple[str, ...], tuple[str, ...]]
"""A document and the one `wheels` wrote again (or why none), as compared, and the storage
notes each holds (`STORAGE_CODES`), the document's first."""


def compared(
    body: dict[str, Any], again: dict[str, Any] | str, alone: bool, read: bool
) -> Compared:
    """`body` and `again` as `report` compares them: but for what the source check wrote where
    it ran again without the repository (`alone`: `sourceless`), and but for the storage notes
    where it ran in a directory given (`read`), those notes returned apart."""
    if isinstance(again, str) or not (alone or read):
        return body, again, (), ()
    if alone:
        return sourceless(body), sourceless(again), (), ()
    unlike = _storage_unlike_notes(body)
    if unlike is not None:  # taken apart, they would be its word: they must be its notes
        return body, unlike, (), ()
    return _storageless(body), _storageless(again), _storage(body), _storage(again)


def storage_said(
    name: str, repository: str | None, recorded: Sequence[str], now: Sequence[str]
) -> tuple[str, ...]:
    """Where the directory given stores the recorded commit's history otherwise than the one
    the document was made in (its storage notes, `compared`), a qualification: the source was
    checked again all the same; the notes are the document's word."""
    if repository is None or tuple(recorded) == tuple(now):
        return ()
    return (
        f"{name}: the repository given ({repository}) notes otherwise how it stores the recorded "
        f"commit's history (the document: {_listed(recorded)}; the repository given: "
        f"{_listed(now)}): a clone of the same history may store it otherwise (git clone copies "
        "neither replace refs nor alternates), and its source was checked again at the "
        "recorded commit, whose id hashes its content wherever it is stored; the document's "
        "notes are its word",
    )


def _listed(messages: Sequence[str]) -> str:
    if not messages:
        return "no such note"
    said = [m if len(m) <= 200 else m[:199] + "…" for m in messages[:_STORAGE_SAID]]
    more = len(messages) - len(said)
    return "; ".join(said) + (f"; and {more:,} more" if more else "")


def _storage(body: dict[str, Any]) -> tuple[str, ...]:
    provenance = body.get("provenance")
    notes = provenance.get("notes") if isinstance(provenance, dict) else None
    return tuple(
        str(note.get("message"))
        for note in (notes if isinstance(notes, list) else [])
        if _stored(note)
    )


def _storage_unlike_notes(body: dict[str, Any]) -> str | None:
    """Why the document's storage findings are not the ones `wheels` writes from its storage
    notes (one each, in order, at info, unless the code is filtered out), or None."""
    from k3diff.wheel.codes import Code

    verdict = body.get("verdict")
    filtered = verdict.get("filtered") if isinstance(verdict, dict) else None
    out = (
        {f.get("code") for f in filtered if isinstance(f, dict)}
        if isinstance(filtered, list)
        else set()
    )
    provenance = body.get("provenance")
    notes = provenance.get("notes") if isinstance(provenance, dict) else None
    wanted = [
        {"code": n["code"], "message": Code[n["code"]].message, "path": "", "detail": n.get("message"),
         "severity": "info"}
        for n in (notes if isinstance(notes, list) else [])
        if _stored(n) and n["code"] not in out
    ]  # fmt: skip
    findings = body.get("findings")
    found = [
        {k: v for k, v in f.items() if k != "waiver"}  # a waiver of one is said, never applied
        for f in (findings if isinstance(findings, list) else [])
        if _stored(f)
    ]
    if found == wanted:
        return None
    return "findings: its W406/W407 findings are not the ones its provenance.notes write"


def _storageless(body: dict[str, Any]) -> dict[str, Any]:
    out = dict(body)
    for key, inner in (("provenance", "notes"), ("verdict", "filtered")):
        part = out.get(key)
        if isinstance(part, dict) and isinstance(part.get(inner), list):
            kept = [item for item in part[inner] if not _stored(item)]
            out[key] = (
                {**part, inner: kept} if kept or key == "provenance" else _without(part, inner)
            )
    if isinstance(out.get("findings"), list):
        out["findings"] = [f for f in out["findings"] if not _stored(f)]
        if isinstance(out.get("waivers"), dict):  # a waiver of W406/W407 matches in one only
            waivers = dict(out["waivers"])
            waivers["waived"] = sum(
                1 for f in out["findings"] if isinstance(f, dict) and "waiver" in f
            )
            for key in ("expired", "unused"):
                if isinstance(waivers.get(key), list):
                    waivers[key] = [w for w in waivers[key] if not _stored(w)]
            out["waivers"] = waivers
    return out


def _stored(item: object) -> bool:
    return isinstance(item, dict) and item.get("code") in STORAGE_CODES


def source_alone_qualification(name: str, commit: str) -> str:
    """The qualification of a `--source` document run again on its wheels but not its
    repository: which claims were re-derived and which are the document's word."""
    return (
        f"{name} source claims judged from the document alone: wheels run again on both wheels "
        f"without --source, as no directory given holds commit {commit} (give report the "
        "repository)"
    )


def with_source(options: WheelOptions, repo: Path, source: RecordedSource) -> WheelOptions:
    """`options` checking `repo` at the recorded commit (or range of full ids)."""
    from k3diff.wheels.sources import SourceSpec

    old = source.old_commit
    spec = SourceSpec(
        repo,
        commit=source.commit if old is None else None,
        commits=None if old is None else f"{old}..{source.commit}",
        prefix=source.prefix,
        check_all=source.source_all,
    )
    return replace(options, source=spec)


def repository_for(source: RecordedSource, repos: Sequence[Path]) -> Path | None:
    """The first directory given that holds the recorded commit(s)."""
    return next((repo for repo in repos if holds(repo, source)), None)


def recorded_repository(body: Any, name: str, repos: Sequence[Path]) -> Path | None:
    """The directory given that holds the commit(s) a wheels document's (or a release set
    pair's) `rerun.source` records; None where it records no source check or none holds them."""
    from k3diff.wheels.rerunoptions import rerun_options

    if not repos or not isinstance(body, dict) or "rerun" not in body:
        return None
    _, source = rerun_options(body["rerun"], name)
    return None if source is None else repository_for(source, repos)


def named_as_given(document: dict[str, Any], again: dict[str, Any]) -> dict[str, Any]:
    """`again` with the document's names for the repository and revisions (`AS_GIVEN`): the
    rerun named them by full id and by where report was given the repository."""
    stated, found = document.get("provenance"), again.get("provenance")
    if not isinstance(stated, dict) or not isinstance(found, dict):
        return again
    found = {**found, **{k: stated[k] for k in AS_GIVEN if k in stated}}
    said, done = stated.get("revisions"), found.get("revisions")
    if isinstance(said, list) and isinstance(done, list) and len(said) == len(done):
        found["revisions"] = [
            {**d, **{k: s[k] for k in REVISION_AS_GIVEN if k in s}}
            if isinstance(s, dict) and isinstance(d, dict) and s.get("commit") == d.get("commit")
            else d
            for s, d in zip(said, done, strict=True)
        ]
    return {**again, "provenance": found}


def sourceless(body: dict[str, Any]) -> dict[str, Any]:
    """The document but for what its source check wrote: `provenance`, each entry's `source`,
    the W4xx findings (and their waivers, filtered counts and the verdict they decide, which
    the self-check judged from the findings), and `rerun.source`."""
    out = {k: v for k, v in body.items() if k != "provenance"}
    if isinstance(out.get("entries"), list):
        out["entries"] = [_without(e, "source") for e in out["entries"]]
    findings = [f for f in out.get("findings", []) if not _sourced(f)]
    out["findings"] = findings
    if isinstance(out.get("verdict"), dict):
        verdict = _without(_without(out["verdict"], "ok"), "exit_code")
        if isinstance(verdict.get("filtered"), list):
            kept = [f for f in verdict["filtered"] if not _sourced(f)]
            verdict = _without(verdict, "filtered") if not kept else {**verdict, "filtered": kept}
        out["verdict"] = verdict
    if isinstance(out.get("waivers"), dict):
        waivers = dict(out["waivers"])
        waivers["waived"] = sum(1 for f in findings if isinstance(f, dict) and "waiver" in f)
        for key in ("expired", "unused"):
            if isinstance(waivers.get(key), list):
                waivers[key] = [w for w in waivers[key] if not _sourced(w)]
        out["waivers"] = waivers
    if isinstance(out.get("rerun"), dict):
        out["rerun"] = _without(out["rerun"], "source")
    return out


def _sourced(item: object) -> bool:
    return isinstance(item, dict) and item.get("code") in SOURCE_CODES


def _without(item: object, key: str) -> Any:
    return {k: v for k, v in item.items() if k != key} if isinstance(item, dict) else item
