"""Read-only git plumbing for source provenance.

Every call goes through `k3diff.provenance.gitrun` (configuration that could run a program is
overridden, data memory capped; see there), uses an argument list (the one shell, whose fixed
`ulimit` line sets the cap, reads none of it as syntax), reads the object database only
(no checkout, no index, no working tree) and turns failures into `SourceError` lines that name
the repository and the revision. A handful of processes serve a whole wheel: a few
``rev-parse`` per revision, one ``ls-tree``, one ``cat-file --batch-check`` for the sizes of the
blobs diffs need and one ``cat-file --batch`` streaming those under the diff cap, and for ranges
one ``rev-list`` plus one ``diff-tree --stdin``.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from k3diff.errors import NestedRepositoryError, SourceError
from k3diff.provenance.gitfiles import check_git_files
from k3diff.provenance.gitpipe import GitPipe, popen_git
from k3diff.provenance.gitrun import (
    check_git_version,
    driver_overrides,
    failure_message,
    first_line,
    run_git,
)
from k3diff.provenance.objectstore import ObjectStores

NULL_OIDS = frozenset({"0" * 40, "0" * 64})
"""The all-zero ids diff-tree prints for the side where a path does not exist."""

SHORT_ID_LENGTH = 12
"""Hex digits shown for a commit in tables (fixed, so output is reproducible)."""


@dataclass(frozen=True)
class GitRepo:
    """A repository that git has agreed to read."""

    label: str
    """The repository as the user gave it, for messages and reports."""
    path: Path
    """The absolute directory git runs in."""
    object_format: str
    """``sha1`` or ``sha256``: the hash behind blob and commit ids."""
    shallow: bool
    """True for a shallow clone, whose history stops before the root."""
    common_dir: Path
    """The repository's common git directory (``.git``, or the main one for a worktree)."""
    stores: ObjectStores
    """Its object directory and those it borrows from through ``objects/info/alternates``."""
    overrides: tuple[tuple[str, str], ...] = ()
    """Overrides for the driver-style keys its configuration names (see `gitrun`)."""
    memo: dict[str, object] = field(default_factory=dict, compare=False, hash=False, repr=False)
    """What readers derive from its blobs during this run, kept for the run's next reader
    (`setuppyreadings`: each module a build imports read once, under one budget)."""

    def run(self, args: Sequence[str], *, stdin: bytes | None = None) -> tuple[int, bytes, bytes]:
        """Run one hardened git command here: (exit status, stdout, stderr)."""
        done = run_git(self.path, args, stdin=stdin, overrides=self.overrides)
        return done.returncode, done.stdout, done.stderr

    def output(self, args: Sequence[str], *, stdin: bytes | None = None) -> bytes:
        """The stdout of one git command, or a SourceError naming the repository."""
        code, out, err = self.run(args, stdin=stdin)
        if code != 0:
            raise SourceError(f"{self.label}: git {args[0]} failed: {failure_message(code, err)}")
        return out


def _enclosing_work_tree(path: Path) -> Path | None:
    """The nearest directory above `path` holding `.git` (a directory or a worktree's file)."""
    for parent in path.parents:
        if (parent / ".git").exists():
            return parent
    return None


def open_repo(repo: Path) -> GitRepo:
    """Check that `repo` is the top of a git repository; learn its format and object stores."""
    if not repo.exists():
        raise SourceError(f"{repo}: no such directory (expected a git repository)")
    if not repo.is_dir():
        raise SourceError(f"{repo}: not a directory (expected a git repository)")
    check_git_version()
    path = repo.resolve()
    check_git_files(str(repo), path)
    done = run_git(
        path, ["rev-parse", "--show-object-format", "--is-shallow-repository", "--git-common-dir"]
    )
    lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    if done.returncode != 0 or len(lines) != 3:
        _refuse(repo, path, done.stderr)
    object_format, shallow, common = lines
    if object_format not in ("sha1", "sha256"):
        raise SourceError(f"{repo}: unsupported git object format {object_format!r}")
    common_dir = (path / common).resolve()
    names = run_git(path, ["config", "-z", "--list", "--name-only"])
    if names.returncode != 0:
        raise SourceError(f"{repo}: git cannot read its configuration: {first_line(names.stderr)}")
    overrides = driver_overrides(
        n.decode("utf-8", "surrogateescape") for n in names.stdout.split(b"\0") if n
    )
    stores = ObjectStores.of(common_dir / "objects")
    return GitRepo(str(repo), path, object_format, shallow == "true", common_dir, stores, overrides)


def _refuse(repo: Path, path: Path, stderr: bytes) -> None:
    message = first_line(stderr)
    if "dubious ownership" in message:
        raise SourceError(
            f"{repo}: owned by another user, and git refuses it (safe.directory); k3diff reads "
            "no global or system git configuration, so run it as the repository's owner"
        )
    top = _enclosing_work_tree(path)
    if top is not None:
        # Discovery stops at REPO on purpose (see gitrun.environment): a directory inside some
        # checkout may be an unrelated tree, so name the top level instead of switching.
        raise NestedRepositoryError(
            f"{repo}: not the top level of a git repository; it is inside {top}", str(top)
        )
    if message.startswith("not a git repository"):  # git's own words: say them once
        raise SourceError(f"{repo}: not a git repository")
    raise SourceError(f"{repo}: not a git repository ({message})")


def check_revision_syntax(repo_label: str, rev: str) -> None:
    """Refuse revisions git could read as an option, that cannot name one commit, that read
    the clone's reflog or upstream configuration (``@{…}``, prov69: ``main@{0}`` resolved
    through the branch's reflog, silently, where a tag ``main`` made ``main`` refused), or that
    choose a commit by its message (``:/text``, ``main^{/text}``: the youngest commit whose
    message matches, text the repository's authors write, naming another commit whenever a
    newer one matches; prov70). Every other peel (``^{}``, ``^{commit}``, ``^{tag}``,
    ``^{object}``) reads the object graph alone and names what the name does (``^{tree}`` and
    ``^{blob}`` name no commit, and are refused as such)."""
    if not rev:
        raise SourceError(f"{repo_label}: empty revision")
    if rev.startswith("-"):
        raise SourceError(f"{repo_label}: revision {rev!r} starts with '-' (refused)")
    if any(ch in rev for ch in "\0\n\r"):
        raise SourceError(f"{repo_label}: revision {rev!r} contains a control character")
    if "@{" in rev:  # main@{0}, HEAD@{1}, @{-1}, main@{upstream}: the clone's own records
        raise SourceError(
            f"{repo_label}: revision {rev!r} reads this clone's reflog or upstream (@{{…}}), "
            "which records what the clone did, not what the repository holds (refused): give "
            "a branch, a tag or a commit id"
        )
    if rev.startswith(":/") or "^{/" in rev:
        raise SourceError(
            f"{repo_label}: revision {rev!r} chooses the youngest commit whose message matches "
            "(:/… or ^{/…}): a message is text the repository's authors write, and the commit "
            "it names changes whenever a newer one matches (refused): give a branch, a tag or "
            "a commit id"
        )


def blob_id(data: bytes, object_format: str) -> str:
    """The id git gives a blob holding exactly `data` (``git hash-object``, computed here)."""
    return blob_id_of_chunks((data,), len(data), object_format)


def blob_id_of_chunks(chunks: Iterable[bytes], size: int, object_format: str) -> str:
    """The blob id of `size` bytes streamed as `chunks` (never held whole); a stream of another
    length is refused, since its id would be wrong."""
    digest = hashlib.sha256() if object_format == "sha256" else hashlib.sha1()
    digest.update(b"blob %d\0" % size)
    seen = 0
    for chunk in chunks:
        seen += len(chunk)
        digest.update(chunk)
    if seen != size:
        raise SourceError(f"stream of {seen:,} bytes where {size:,} were declared")
    return digest.hexdigest()


def object_types(repo: GitRepo, oids: Iterable[str]) -> dict[str, tuple[str, int]]:
    """(type, size) of each of `oids`, from object headers only (``cat-file --batch-check``:
    nothing is inflated past its header, however large)."""
    wanted = sorted(set(oids))
    if not wanted:
        return {}
    args = ["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"]
    code, out, err = repo.run(args, stdin="".join(f"{o}\n" for o in wanted).encode())
    if code != 0:
        raise SourceError(f"{repo.label}: git cat-file failed: {failure_message(code, err)}")
    found: dict[str, tuple[str, int]] = {}
    for line in out.decode("ascii", "replace").splitlines():
        fields = line.split(" ")
        if len(fields) != 3:  # "<oid> missing": the object store lacks it, or cannot read it
            said = first_line(err)
            raise unreadable(repo, fields[0], None if said == "no message" else said)
        found[fields[0]] = (fields[1], int(fields[2]))
    return found


def unreadable(repo: GitRepo, oid: str, said: str | None) -> SourceError:
    """The error for an object git answered "missing" for, or stopped inside: missing when git
    said nothing, else corrupt in git's own words (a damaged pack is "missing" to ``cat-file``,
    left67b)."""
    if said is None:
        store = repo.stores.store_of(oid) if _is_id(oid) else None
        if store is None:
            return SourceError(f"{repo.label}: object {oid} is missing from the repository")
        said = f"it answers 'missing' for an object {store} holds"
    return SourceError(
        f"{repo.label}: object {oid} is corrupt (git: {said}); `git fsck` names every damaged "
        "object"
    )


def _is_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def blob_sizes(repo: GitRepo, oids: Iterable[str]) -> dict[str, int]:
    """The size in bytes of each blob of `oids`, read from object headers only."""
    return {oid: size for oid, (_kind, size) in object_types(repo, oids).items()}


def iter_blobs(repo: GitRepo, oids: Sequence[str]) -> Iterator[tuple[str, bytes]]:
    """(oid, content) for each of `oids`, streamed from one ``git cat-file --batch``: one blob
    is in memory at a time, so callers choose which to read (`blob_sizes` first)."""
    if not oids:
        return
    with popen_git(repo.path, ["cat-file", "--batch"], overrides=repo.overrides) as pipe:
        feed = "".join(f"{o}\n" for o in oids).encode()
        # Fed from a thread: git answers while it reads, and a full pipe would stall both sides.
        writer = threading.Thread(target=_feed, args=(pipe.stdin, feed), daemon=True)
        writer.start()
        try:
            for _ in oids:
                with pipe.waiting():  # git's time only: the caller's diff between is its own
                    found = _read_one(repo, pipe)
                yield found
        finally:
            pipe.close()  # the writer may be blocked on a pipe git no longer reads
            writer.join()


def _feed(pipe: IO[bytes], data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except OSError:  # git exited early; the reader reports why
        pass


def _read_one(repo: GitRepo, pipe: GitPipe) -> tuple[str, bytes]:
    oid, _kind, data = read_object(repo, pipe)
    return oid, data


def read_object(repo: GitRepo, pipe: GitPipe, cap: int | None = None) -> tuple[str, str, bytes]:
    """(id, type, bytes) of the next object `git cat-file --batch` answers with; SourceError
    when it is missing or corrupt, larger than `cap` bytes (read only then), or its bytes do
    not hash to its id (git never hashes an object it reads again: a stored object can hold
    anything, review62c)."""
    out = pipe.stdout
    header = out.readline(256).decode("ascii", "replace").split()
    if len(header) != 3:  # "<oid> missing", or git stopped
        raise unreadable(repo, header[0] if header else "?", pipe.said())
    oid, kind, size = header[0], header[1], int(header[2])
    if cap is not None and size > cap:
        raise SourceError(
            f"{repo.label}: {kind} object {oid} is {size:,} bytes, past the {cap:,} k3diff "
            "reads of one: its files are not read"
        )
    data = out.read(size)
    if len(data) != size or out.read(1) != b"\n":
        said = pipe.said()
        if said is not None:
            raise unreadable(repo, oid, said)
        raise SourceError(f"{repo.label}: git cat-file stopped inside object {oid}")
    digest = hashlib.sha256() if repo.object_format == "sha256" else hashlib.sha1()
    digest.update(b"%s %d\0" % (kind.encode("ascii"), size))
    digest.update(data)
    if digest.hexdigest() != oid:
        raise SourceError(
            f"{repo.label}: object {oid} does not hash to its id (its stored bytes were "
            "altered or forged; git fsck names every such object): its files are not read"
        )
    return oid, kind, data


def range_commits(repo: GitRepo, old: str, new: str) -> list[tuple[str, tuple[str, ...]]]:
    """The commits in ``OLD..NEW`` with their parents, children before parents (topo order)."""
    out = repo.output(["rev-list", "--topo-order", "--parents", new, f"^{old}", "--"])
    commits: list[tuple[str, tuple[str, ...]]] = []
    for line in out.decode("ascii").splitlines():
        commit, *parents = line.split()
        commits.append((commit, tuple(parents)))
    return commits


Change = tuple[str | None, str | None]
"""A path's blob id on the parent side and on the child side of an edge (None: no file)."""


def edge_changes(
    repo: GitRepo, edges: Sequence[tuple[str, str]], under: str, wanted: Collection[str]
) -> list[dict[str, Change]]:
    """For each (child, parent) edge, the files of `wanted` that differ between the two (git is
    asked for those under `under`).

    One ``git diff-tree --stdin`` serves every edge; ``--always`` makes it print a header even
    for an empty diff, so the blocks of its output line up with the edges fed in. Its output is
    read as it comes and only the wanted paths are kept: an edge that deletes a tree naming one
    subtree again and again lists millions of files (review67: a 264 KB repository, a million
    of them, 668 MB when the whole output was held).
    """
    if not edges:
        return []
    args = ["diff-tree", "--stdin", "--always", "-r", "-z", "--no-renames"]
    args += ["--no-ext-diff", "--no-textconv", "--"]
    if under:
        args.append(under)
    feed = "".join(f"{c} {p}\n" for c, p in edges).encode()
    blocks: list[dict[str, Change]] = []
    with popen_git(repo.path, args, overrides=repo.overrides) as pipe:
        writer = threading.Thread(target=_feed, args=(pipe.stdin, feed), daemon=True)
        writer.start()
        try:
            fields = _fields(pipe)
            for field in fields:
                if not field.startswith(b":"):  # a header: the child commit id of the next edge
                    blocks.append({})
                    continue
                _old_mode, _new_mode, old, new, _status = field[1:].decode("ascii").split(" ")
                path = next(fields, b"").decode("utf-8", "surrogateescape")
                if path in wanted and blocks:
                    blocks[-1][path] = (_oid_or_none(old), _oid_or_none(new))
            code = pipe.wait()
        finally:
            pipe.close()
            writer.join()
    if code != 0 or len(blocks) != len(edges):
        how = (
            f"exited with status {code}"
            if code
            else f"answered {len(blocks)} of {len(edges)} edges"
        )
        raise SourceError(f"{repo.label}: git diff-tree {how}")
    return blocks


_CHUNK = 1 << 20


def _fields(pipe: GitPipe) -> Iterator[bytes]:
    """The NUL-ended fields git writes with ``-z``, read a chunk at a time."""
    rest = b""
    while True:
        with pipe.waiting():
            chunk = pipe.stdout.read1(_CHUNK)
        if not chunk:
            break
        *done, rest = (rest + chunk).split(b"\0")
        yield from done
    if rest:
        yield rest


def _oid_or_none(oid: str) -> str | None:
    return None if oid in NULL_OIDS else oid
