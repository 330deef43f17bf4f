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
from dataclasses import dataclass

from k3diff.errors import SourceError
from k3diff.provenance.git import GitRepo, check_revision_syntax, object_types
from k3diff.provenance.gitrun import first_line

_AMBIGUOUS = re.compile(r"^warning: refname '(?P<name>.*)' is ambiguous\.$", re.M)
_HEX = re.compile(r"[0-9a-f]+")

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
    # Before whether it names a commit: `main~2` read through tag main may name none where
    # branch main's would (newuser68: "not a commit", the ambiguity unsaid).
    ambiguous = _AMBIGUOUS.search(err.decode("utf-8", "replace"))
    if ambiguous and not _is_full_id(repo, rev):
        raise SourceError(_ambiguity(repo, rev, ambiguous["name"]))
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
    """'REV names both tag X and commit Y; give the full id' (`NAME (in NAME~2) names …` where
    the name is part of REV), from what the name matches."""
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
    named = rev if rev == name else f"{name} (in {rev})"
    return f"{repo.label}: {named} names both {both}; give the full id"


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
