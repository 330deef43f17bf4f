"""Each commit a wheel states it was built from, held against the source check's commit
(`--commit`: W408 where it is another) or range (`--commits OLD..NEW`: W408 where the patch's is
not in it, a note without a code where it is; W409 where the base's is not OLD). See
docs/wheels.md, "The commit a wheel states".

The stated id is the wheel's text, so an attacker's: only hex of an id's length is looked up,
and only through ``git rev-parse --disambiguate=HEX``, which lists objects by id prefix and
reads no ref, option or revision expression; only a full id it resolved to is given to git
again (``rev-list``).

Every message names commits by full id alone and the repository as "the repository"
(`provenance.repo` names it): `report` runs the check again at the recorded full ids, on the
repository as given to it, and compares each detail (w408b: a detail holding ``main = <id>``,
or the path given to `wheels`, made it refuse the document `wheels` had written).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

from k3diff.provenance.git import GitRepo, object_types
from k3diff.provenance.revisions import RepoNote, Revision

_STATED = re.compile(r"[0-9a-f]{4,40}|[0-9a-f]{64}")


def stated_notes(
    repo: GitRepo, revision: Revision, stated: Sequence[tuple[str, str, str]]
) -> tuple[RepoNote, ...]:
    """A W408 note for each commit the patch wheel states (``(commit, path, description)``)
    that is not `revision`'s commit in `repo`: another commit, no commit there, or several."""

    def against(found: str, head: str, path: str) -> RepoNote | None:
        if found == revision.commit:
            return None
        return RepoNote("W408", f"{head}; compared against {revision.commit}", path)

    named = _commits_named(repo, [commit for commit, _, _ in stated])
    return _judged(named, stated, "patch", "W408", against)


def range_stated_notes(
    repo: GitRepo,
    ends: tuple[Revision, Revision],
    in_range: Collection[str],
    stated: Sequence[tuple[str, str, str]],
    base_stated: Sequence[tuple[str, str, str]] = (),
) -> tuple[RepoNote, ...]:
    """For ``OLD..NEW`` (`ends`; `in_range`: the commits of ``git rev-list NEW ^OLD``), a W408
    note for each commit the patch wheel states that is not in the range: git's ``OLD..NEW``,
    reachable from NEW and not from OLD (so OLD itself, an ancestor of it, a commit of another
    branch or one newer than NEW is outside), names no commit or several. A stated commit in
    the range is said in a note without a code (no finding). A commit the base wheel states
    other than OLD's is a W409 note: the base is the reference, so it is said, never failed."""
    old, new = ends
    span = f"OLD..NEW = {old.commit}..{new.commit}"

    def placed(found: str, head: str, path: str) -> RepoNote:
        return _placed(repo, found, ends, in_range, head, path, span)

    def from_old(found: str, head: str, path: str) -> RepoNote | None:
        if found == old.commit:
            return None
        return RepoNote("W409", f"{head}; OLD is {old.commit}", path)

    named = _commits_named(repo, [commit for commit, _, _ in (*stated, *base_stated)])
    return _judged(named, stated, "patch", "W408", placed) + _judged(
        named, base_stated, "base", "W409", from_old, f"; OLD is {old.commit}"
    )


Judge = Callable[[str, str, str], "RepoNote | None"]
"""What to say of a statement naming one commit: (its full id, ``the patch wheel states commit
…``, the entry it was read from) -> a note, or None for nothing."""


def _judged(
    named: Mapping[str, list[str]],
    stated: Sequence[tuple[str, str, str]],
    whose: str,
    code: str,
    judge: Judge,
    tail: str = "",
) -> tuple[RepoNote, ...]:
    """For each statement of `whose` wheel, in order: a `code` note (ending in `tail`) where it
    names no commit in the repository or several, else what `judge` says of the one commit."""
    notes: list[RepoNote] = []
    for commit, path, said in stated:
        head = f"the {whose} wheel states commit {said}"
        found = _one_commit(named, commit, head, path, code)
        if isinstance(found, RepoNote):
            notes.append(replace(found, message=found.message + tail))
        elif found is not None:
            # The commit in full, unless the statement already gives it so (newuser70: a
            # versioneer full-revisionid was said twice, `… which is` the same 40 digits).
            head += "" if found == commit else f", which is {found}"
            if (note := judge(found, head, path)) is not None:
                notes.append(note)
    return tuple(notes)


def _placed(
    repo: GitRepo,
    commit: str,
    ends: tuple[Revision, Revision],
    in_range: Collection[str],
    head: str,
    path: str,
    span: str,
) -> RepoNote:
    """Where `commit` stands to ``OLD..NEW``: said when in it, else W408 saying why not."""
    old, new = ends
    if commit in in_range and (commit == new.commit or not repo.shallow):
        where = "NEW itself" if commit == new.commit else "between OLD and NEW"
        return RepoNote("", f"{head}: in {span} ({where})", path)
    if commit in in_range:  # a shallow clone hides OLD's history: an ancestor would look inside
        why = (
            "cannot be placed in the range: the clone is shallow; fetch more history "
            "(git fetch --unshallow)"
        )
    elif commit == old.commit:
        why = "it is OLD itself, which OLD..NEW excludes"
    elif not repo.output(["rev-list", "--max-count=1", commit, f"^{old.commit}", "--"]).strip():
        why = "an ancestor of OLD"
    else:
        why = "not reachable from NEW"
    return RepoNote("W408", f"{head}: not in {span} ({why})", path)


def _commits_named(repo: GitRepo, stated: Sequence[str]) -> dict[str, list[str]]:
    """For each stated hex (hex of an id's length only: anything else is no statement), the
    commits whose full id starts with it: one ``rev-parse --disambiguate`` for them all, and
    one object-type lookup (two git runs in all, not two per statement)."""
    wanted = [value for value in dict.fromkeys(stated) if _STATED.fullmatch(value)]
    if not wanted:
        return {}
    status, out, _err = repo.run(["rev-parse", *(f"--disambiguate={h}" for h in wanted)])
    listed = list(dict.fromkeys(out.decode("ascii", "replace").split())) if status == 0 else []
    kinds = object_types(repo, listed) if listed else {}
    commits = [oid for oid in listed if kinds.get(oid, ("",))[0] == "commit"]
    return {h: [oid for oid in commits if oid.startswith(h)] for h in wanted}


def _one_commit(
    named: Mapping[str, list[str]], commit: str, head: str, path: str, code: str
) -> str | RepoNote | None:
    """The one commit the stated hex `commit` names (`named`: `_commits_named`); a `code` note
    when it names none or several; None when it is no statement at all."""
    if commit not in named:
        return None
    commits = named[commit]
    if not commits:
        return RepoNote(code, f"{head}: not a commit in the repository", path)
    if len(commits) > 1:
        return RepoNote(code, f"{head}: names {len(commits)} commits in the repository", path)
    return commits[0]
