"""A revision names exactly one commit, and the report says which and how.

git resolves a name that is both a ref and a short object id to the ref, and a full-length hex
name to the object, and says so only in a warning. k3diff turns that warning into an error: a
tag named like the short id of another commit must not quietly change what is compared. A full
id is always taken as the commit it names (git's rule), so "give the full id" always works.

What the repository says about its own history is named too: replace refs and grafts (both
ignored: every git call runs with ``--no-replace-objects``), and objects borrowed through
``objects/info/alternates``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from k3diff.errors import SourceError
from k3diff.provenance.git import GitRepo, check_revision_syntax, object_types
from k3diff.provenance.gitrun import first_line

_AMBIGUOUS = re.compile(r"^warning: refname '(?P<name>.*)' is ambiguous\.$", re.M)
_HEX = re.compile(r"[0-9a-f]+")
_STATED = re.compile(r"[0-9a-f]{4,40}|[0-9a-f]{64}")

_REF_KINDS = (("refs/tags/", "tag"), ("refs/heads/", "branch"), ("refs/remotes/", "remote branch"))


@dataclass(frozen=True)
class Revision:
    """One revision as given, and the single commit it resolved to."""

    given: str
    """The revision as the user typed it (``HEAD``, ``v1.2``, a short or full id …)."""
    commit: str
    """The full id of the commit compared."""
    ref: str | None
    """The full ref name `given` named (``refs/tags/v1.2``; ``HEAD`` gives its branch), if any."""
    ref_target: str | None
    """What that ref points at when it is not the commit itself (an annotated tag's id)."""
    ref_target_type: str | None
    """The type of `ref_target` (``tag``), when there is one."""

    def describe(self) -> str:
        """``<full id> (v1.2: refs/tags/v1.2 -> tag <id>)``, or the id alone when given so."""
        if self.given == self.commit:
            return self.commit
        how = self.given
        if self.ref is not None and self.ref != self.given:
            how += f": {self.ref}"
        if self.ref_target is not None:
            how += f" -> {self.ref_target_type} {self.ref_target}"
        return f"{self.commit} ({how})"


def resolve_revision(repo: GitRepo, rev: str) -> Revision:
    """The one commit `rev` names in `repo`, or a SourceError saying why there is not one."""
    check_revision_syntax(repo.label, rev)
    code, out, err = repo.run(["rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}"])
    commit = out.decode("ascii", "replace").strip()
    if code != 0 or not commit:
        said = first_line(err)
        if said.startswith("Out of memory"):
            raise SourceError(f"{repo.label}: revision {rev!r} cannot be read: {said}")
        hint = f" ({said})" if said not in ("Needed a single revision", "no message") else ""
        if repo.shallow:
            hint += "; the clone is shallow, fetch more history (git fetch --unshallow)"
        raise SourceError(
            f"{repo.label}: revision {rev!r} is not a commit in this repository{hint}"
        )
    ambiguous = _AMBIGUOUS.search(err.decode("utf-8", "replace"))
    if ambiguous and not _is_full_id(repo, rev):
        raise SourceError(_ambiguity(repo, rev, ambiguous["name"]))
    ref = None if _is_full_id(repo, rev) else _ref_name(repo, rev)
    target = target_type = None
    if ref is not None:
        pointed = repo.output(["rev-parse", "--verify", "--end-of-options", ref]).decode().strip()
        if pointed != commit:
            target, target_type = pointed, object_types(repo, [pointed])[pointed][0]
    return Revision(rev, commit, ref, target, target_type)


def _is_full_id(repo: GitRepo, rev: str) -> bool:
    return len(rev) == (64 if repo.object_format == "sha256" else 40) and bool(_HEX.fullmatch(rev))


def _ref_name(repo: GitRepo, rev: str) -> str | None:
    """The full ref `rev` names (a plain ref name only: ``main~2`` names no ref)."""
    code, out, _err = repo.run(["rev-parse", "--symbolic-full-name", rev])
    names = out.decode("utf-8", "surrogateescape").split("\n")
    refs = [n for n in names if n.startswith("refs/") or n == "HEAD"]
    return refs[0] if code == 0 and len(refs) == 1 else None


def _ambiguity(repo: GitRepo, rev: str, name: str) -> str:
    """'REV names both tag X and commit Y; give the full id', from what the name matches."""
    patterns = [f"refs/{name}", *(f"{prefix}{name}" for prefix, _ in _REF_KINDS)]
    out = repo.output(["for-each-ref", "--format=%(refname)", "--", *patterns])
    found = set(out.decode("utf-8", "surrogateescape").splitlines())
    refs = [ref for ref in patterns if ref in found]  # in git's order of preference
    meanings = [_ref_kind(ref, name) for ref in refs]
    if _HEX.fullmatch(name) and len(name) >= 4:
        code, ids, _err = repo.run(["rev-parse", f"--disambiguate={name}"])
        listed = ids.decode("ascii", "replace").split() if code == 0 else []
        kinds = object_types(repo, listed) if listed else {}
        meanings += [f"{kinds[oid][0]} {oid}" for oid in listed]
    if len(meanings) < 2:
        meanings.append("another object")
    both = ", ".join(meanings[:-1]) + f" and {meanings[-1]}"
    return f"{repo.label}: {rev} names both {both}; give the full id"


def _ref_kind(ref: str, name: str) -> str:
    for prefix, kind in _REF_KINDS:
        if ref == prefix + name:
            return f"{kind} {name}"
    return f"ref {ref}"


@dataclass(frozen=True)
class RepoNote:
    """Something about the repository's history that the verdict is to be read with."""

    code: str
    """The finding code it is reported under (W406: history rewriting ignored, W407: objects
    borrowed from another repository, W408/W409: a stated commit), or '' for a note that is
    said only, never a finding (a stated commit inside ``OLD..NEW``)."""
    message: str
    """One line, e.g. ``refs/replace present: ignored (2 refs)``."""
    path: str = ""
    """The wheel entry the note is about (W408: where the stated commit was read), else ''."""


def history_notes(repo: GitRepo, revisions: tuple[Revision, ...]) -> tuple[RepoNote, ...]:
    """Replace refs and grafts (ignored), alternates, and compared commits held elsewhere."""
    notes: list[RepoNote] = []
    out = repo.output(["for-each-ref", "--format=%(refname)", "--", "refs/replace/"])
    replaced = len(out.splitlines())
    if replaced:
        plural = "ref" if replaced == 1 else "refs"
        notes.append(RepoNote("W406", f"refs/replace present: ignored ({replaced} {plural})"))
    if (repo.common_dir / "info" / "grafts").exists():
        notes.append(RepoNote("W406", "info/grafts present: ignored"))
    for store in repo.stores.borrowed:
        notes.append(RepoNote("W407", f"objects may come from the object store of {store}"))
    if repo.stores.borrowed:
        for commit in dict.fromkeys(r.commit for r in revisions):
            holder = repo.stores.store_of(commit)
            if holder is not None and holder != repo.stores.own:
                notes.append(
                    RepoNote("W407", f"commit {commit} comes from the object store of {holder}")
                )
    return tuple(notes)


def stated_notes(
    repo: GitRepo, revision: Revision, stated: Sequence[tuple[str, str, str]]
) -> tuple[RepoNote, ...]:
    """A W408 note for each commit the patch wheel states (``(commit, path, description)``)
    that is not `revision`'s commit in `repo`: another commit, no commit there, or several.

    The stated id is the wheel's text: only hex of an id's length is looked up, and only through
    ``--disambiguate=HEX``, which lists objects by id prefix and reads no ref, option or
    revision expression. Every message names commits by full id alone and the repository as
    "the repository" (`provenance.repo` names it): `report` runs the check again at the
    recorded full ids, on the repository as given to it, and compares each detail (w408b: a
    detail holding ``main = <id>`` made it refuse the document `wheels` had written)."""
    notes: list[RepoNote] = []
    for commit, path, said in stated:
        head = f"the patch wheel states commit {said}"
        found = _one_commit(repo, commit, head, path, "W408")
        if isinstance(found, RepoNote):
            notes.append(found)
        elif found is not None and found != revision.commit:
            notes.append(
                RepoNote(
                    "W408", f"{head}, which is {found}; compared against {revision.commit}", path
                )
            )
    return tuple(notes)


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
    other than OLD's is a W409 note: the base is the reference, so it is said, never failed.

    The stated hex is looked up as `stated_notes` does; only the full id it resolved to is then
    given to ``rev-list``, never the wheel's text."""
    old, new = ends
    span = f"OLD..NEW = {old.commit}..{new.commit}"
    notes: list[RepoNote] = []
    for commit, path, said in stated:
        head = f"the patch wheel states commit {said}"
        found = _one_commit(repo, commit, head, path, "W408")
        if isinstance(found, RepoNote):
            notes.append(found)
        elif found is not None:
            notes.append(
                _placed(repo, found, ends, in_range, f"{head}, which is {found}", path, span)
            )
    for commit, path, said in base_stated:
        head = f"the base wheel states commit {said}"
        found = _one_commit(repo, commit, head, path, "W409")
        if isinstance(found, RepoNote):
            notes.append(replace(found, message=f"{found.message}; OLD is {old.commit}"))
        elif found is not None and found != old.commit:
            notes.append(RepoNote("W409", f"{head}, which is {found}; OLD is {old.commit}", path))
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


def _one_commit(
    repo: GitRepo, commit: str, head: str, path: str, code: str
) -> str | RepoNote | None:
    """The one commit the stated hex `commit` names in `repo`; a `code` note when it names none
    or several; None when it is no statement at all (never hex: `wheels.statedcommit` keeps
    hex only)."""
    if not _STATED.fullmatch(commit):
        return None
    status, out, _err = repo.run(["rev-parse", f"--disambiguate={commit}"])
    listed = out.decode("ascii", "replace").split() if status == 0 else []
    kinds = object_types(repo, listed) if listed else {}
    commits = [oid for oid in listed if kinds.get(oid, ("",))[0] == "commit"]
    if not commits:
        return RepoNote(code, f"{head}: not a commit in the repository", path)
    if len(commits) > 1:
        return RepoNote(code, f"{head}: names {len(commits)} commits in the repository", path)
    return commits[0]
