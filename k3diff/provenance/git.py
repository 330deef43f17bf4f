"""Read-only git plumbing for source provenance.

Every call runs ``git -C REPO ...`` with an argument list (never a shell), reads the object
database only (no checkout, no index, no working tree) and turns failures into `SourceError`
lines that name the repository and the revision. A handful of processes serve a whole wheel:
one ``rev-parse`` per revision, one ``ls-tree``, one ``cat-file --batch`` for the blobs diffs
need, and for ranges one ``rev-list`` plus one ``diff-tree --stdin``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from k3diff.errors import NestedRepositoryError, SourceError

# Variables that would point git at another repository, index or object store than REPO
# (the list `git rev-parse --local-env-vars` prints); a caller running k3diff from a git hook
# has some of them set.
_REPO_LOCATING_ENV = (
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_CONFIG",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_DIR",
    "GIT_GRAFT_FILE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_NAMESPACE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_OBJECT_DIRECTORY",
    "GIT_PREFIX",
    "GIT_REPLACE_REF_BASE",
    "GIT_SHALLOW_FILE",
    "GIT_WORK_TREE",
)

NULL_OIDS = frozenset({"0" * 40, "0" * 64})
"""The all-zero ids diff-tree prints for the side where a path does not exist."""

SHORT_ID_LENGTH = 12
"""Hex digits shown for a commit in labels and tables (fixed, so output is reproducible)."""


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


def _environment(path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _REPO_LOCATING_ENV}
    env.update(
        GIT_TERMINAL_PROMPT="0",  # never ask for credentials on the user's terminal
        GIT_OPTIONAL_LOCKS="0",  # reading must not refresh or lock the index
        GIT_LITERAL_PATHSPECS="1",  # a prefix such as 'src/' is a path, never a glob
        GIT_NO_LAZY_FETCH="1",  # a partial clone must not go to the network
        GIT_PAGER="cat",
        LC_ALL="C",  # git's messages are parsed for the first line only, keep them stable
        # Stop discovery at REPO itself: a plain directory inside some other checkout is an
        # error, not a silent switch to the enclosing repository.
        GIT_CEILING_DIRECTORIES=str(path.parent),
    )
    return env


def run_git(
    repo_path: Path, args: Sequence[str], *, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run one git command in `repo_path` and return what it did, whatever its exit status."""
    command = ["git", "-C", str(repo_path), "-c", "core.quotePath=false", *args]
    try:
        return subprocess.run(
            command,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            env=_environment(repo_path),
            check=False,
        )
    except FileNotFoundError as exc:
        raise SourceError("git is not installed or not on PATH") from exc
    except OSError as exc:
        raise SourceError(f"{repo_path}: cannot run git: {exc.strerror or exc}") from exc


def _first_line(stderr: bytes) -> str:
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.strip():
            return line.strip().removeprefix("fatal: ").removeprefix("error: ")
    return "no message"


def _git_output(repo: GitRepo, args: Sequence[str], *, stdin: bytes | None = None) -> bytes:
    result = run_git(repo.path, args, stdin=stdin)
    if result.returncode != 0:
        raise SourceError(f"{repo.label}: git {args[0]} failed: {_first_line(result.stderr)}")
    return result.stdout


def _enclosing_work_tree(path: Path) -> Path | None:
    """The nearest directory above `path` holding `.git` (a directory or a worktree's file)."""
    for parent in path.parents:
        if (parent / ".git").exists():
            return parent
    return None


def open_repo(repo: Path) -> GitRepo:
    """Check that `repo` is the top of a git repository and learn its object format."""
    if not repo.exists():
        raise SourceError(f"{repo}: no such directory (expected a git repository)")
    if not repo.is_dir():
        raise SourceError(f"{repo}: not a directory (expected a git repository)")
    path = repo.resolve()
    result = run_git(path, ["rev-parse", "--show-object-format", "--is-shallow-repository"])
    lines = result.stdout.decode("ascii", "replace").split()
    if result.returncode != 0 or len(lines) != 2:
        top = _enclosing_work_tree(path)
        if top is not None:
            # Discovery stops at REPO on purpose (see _environment): a directory inside some
            # checkout may be an unrelated tree, so name the top level instead of switching.
            raise NestedRepositoryError(
                f"{repo}: not the top level of a git repository; it is inside {top}", str(top)
            )
        raise SourceError(f"{repo}: not a git repository ({_first_line(result.stderr)})")
    object_format, shallow = lines
    if object_format not in ("sha1", "sha256"):
        raise SourceError(f"{repo}: unsupported git object format {object_format!r}")
    return GitRepo(str(repo), path, object_format, shallow == "true")


def check_revision_syntax(repo_label: str, rev: str) -> None:
    """Refuse revisions git could read as an option, or that cannot name one commit."""
    if not rev:
        raise SourceError(f"{repo_label}: empty revision")
    if rev.startswith("-"):
        raise SourceError(f"{repo_label}: revision {rev!r} starts with '-' (refused)")
    if any(ch in rev for ch in "\0\n\r"):
        raise SourceError(f"{repo_label}: revision {rev!r} contains a control character")


def resolve_commit(repo: GitRepo, rev: str) -> str:
    """The full commit id `rev` names in `repo`, or a SourceError that says why not."""
    check_revision_syntax(repo.label, rev)
    result = run_git(
        repo.path, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"]
    )
    commit = result.stdout.decode("ascii", "replace").strip()
    if result.returncode == 0 and commit:
        return commit
    hint = (
        "; the clone is shallow, fetch more history (git fetch --unshallow)" if repo.shallow else ""
    )
    raise SourceError(f"{repo.label}: revision {rev!r} is not a commit in this repository{hint}")


def blob_id(data: bytes, object_format: str) -> str:
    """The id git gives a blob holding exactly `data` (``git hash-object``, computed here)."""
    digest = hashlib.sha256() if object_format == "sha256" else hashlib.sha1()
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def list_tree(repo: GitRepo, commit: str) -> dict[str, str]:
    """Map every file path in `commit` (from the repository root) to its blob id."""
    out = _git_output(repo, ["ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit])
    tree: dict[str, str] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        _mode, kind, oid = meta.split(b" ")
        if kind == b"blob":  # submodules appear as commits and hold no file content
            tree[raw_path.decode("utf-8", "surrogateescape")] = oid.decode("ascii")
    return tree


def read_blobs(repo: GitRepo, oids: Iterable[str]) -> dict[str, bytes]:
    """The contents of `oids`, read through a single ``git cat-file --batch`` process."""
    wanted = sorted(set(oids))
    if not wanted:
        return {}
    out = _git_output(
        repo, ["cat-file", "--batch"], stdin="".join(f"{o}\n" for o in wanted).encode()
    )
    blobs: dict[str, bytes] = {}
    pos = 0
    while pos < len(out):
        end = out.index(b"\n", pos)
        header = out[pos:end].decode("ascii", "replace").split(" ")
        pos = end + 1
        if len(header) != 3:  # "<oid> missing": the object store lacks it
            raise SourceError(f"{repo.label}: object {header[0]} is missing from the repository")
        size = int(header[2])
        blobs[header[0]] = out[pos : pos + size]
        pos += size + 1
    return blobs


def range_commits(repo: GitRepo, old: str, new: str) -> list[tuple[str, tuple[str, ...]]]:
    """The commits in ``OLD..NEW`` with their parents, children before parents (topo order)."""
    out = _git_output(repo, ["rev-list", "--topo-order", "--parents", new, f"^{old}", "--"])
    commits: list[tuple[str, tuple[str, ...]]] = []
    for line in out.decode("ascii").splitlines():
        commit, *parents = line.split()
        commits.append((commit, tuple(parents)))
    return commits


Change = tuple[str | None, str | None]
"""A path's blob id on the parent side and on the child side of an edge (None: no file)."""


def edge_changes(
    repo: GitRepo, edges: Sequence[tuple[str, str]], under: str
) -> list[dict[str, Change]]:
    """For each (child, parent) edge, the files that differ between the two, under `under`.

    One ``git diff-tree --stdin`` serves every edge; ``--always`` makes it print a header even
    for an empty diff, so the blocks of its output line up with the edges fed in.
    """
    if not edges:
        return []
    args = ["diff-tree", "--stdin", "--always", "-r", "-z", "--no-renames", "--"]
    if under:
        args.append(under)
    out = _git_output(repo, args, stdin="".join(f"{c} {p}\n" for c, p in edges).encode())
    blocks: list[dict[str, Change]] = []
    fields = out.split(b"\0")
    i = 0
    while i < len(fields) and fields[i]:
        if not fields[i].startswith(b":"):  # a header: the child commit id of the next edge
            blocks.append({})
            i += 1
            continue
        _old_mode, _new_mode, old_oid, new_oid, _status = fields[i][1:].decode("ascii").split(" ")
        path = fields[i + 1].decode("utf-8", "surrogateescape")
        blocks[-1][path] = (_oid_or_none(old_oid), _oid_or_none(new_oid))
        i += 2
    if len(blocks) != len(edges):
        raise SourceError(
            f"{repo.label}: git diff-tree answered {len(blocks)} of {len(edges)} edges"
        )
    return blocks


def _oid_or_none(oid: str) -> str | None:
    return None if oid in NULL_OIDS else oid
