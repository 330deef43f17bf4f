"""A commit's files, read from its own objects, each checked to hash to its id (review62c).

git reads an object by the name it is stored under and does not hash it again (only
`git fsck` does): a loose object is a zlib stream in a file named by its id, so a repository
can hold, under a commit's real tree id, a tree listing other files, and `git ls-tree` then
reports them as that commit's. Given to `wheels --source`, or beside a document to `report`, such
a repository made a commit id vouch for files it never held. Here the commit and every tree
below it are read through one `git cat-file --batch` (plumbing that runs nothing of the
repository's), each object's bytes hashed with its type and size and compared with the id it was
asked for (`git.read_object`, which also checks every blob read for a diff), and the listing is
parsed from those bytes, in the order `ls-tree -r` gives it."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass

from k3diff.errors import SourceError
from k3diff.provenance.git import GitRepo, read_object
from k3diff.provenance.gitpipe import GitPipe, popen_git

_FILE, _TREE, _LINK, _GITLINK, _TYPE_BITS = 0o100000, 0o040000, 0o120000, 0o160000, 0o170000
_ASKED_AT_ONCE = 1000
"""Ids written to `cat-file --batch` before its answers are read: their lines fit in a pipe's
buffer, so the write never waits on git, which may be waiting on its own full output pipe."""

MAX_TREE_BYTES = 16 << 20
"""The largest commit or tree object read (a tree of 16 MiB lists about 300,000 entries in one
directory): a hostile repository's object can inflate to any size, and is refused unread."""

MAX_LISTED_ENTRIES = 1_000_000
"""Most tree entries listed for one commit, a subtree counted each time it is named (the
largest real checkouts hold about 500,000 files and directories). Each costs about 400 bytes
here, and a tree naming one subtree a hundred times, level after level, names 10^10 files from
a repository of 60 KB (review67: 100^3 of them from 52 KB took 168 MB)."""

MAX_PATH_BYTES = 4096
"""Longest path listed: Linux's PATH_MAX, so no checkout (and no installed wheel) holds a
longer one. It also bounds the walk's depth (review67: a tree nested 100,000 deep took 11 GB
and 80 s, every level's path kept whole)."""

Entry = tuple[int, str, str]
"""A tree entry: its mode, its name and the id of the object it names."""


@dataclass(frozen=True)
class CommitTree:
    """What a commit holds, each path from the repository root."""

    files: dict[str, str]
    """Every regular file's path -> its blob id."""
    links: frozenset[str]
    """Every symbolic link's path: no file whose bytes can be checked, but a checkout (and a
    build, which follows it) holds a file there (newuser68: a patch dropping a module the
    commit keeps as a link passed)."""
    submodules: frozenset[str] = frozenset()
    """Every submodule's path: its files are another repository's, which k3diff does not read,
    but a recursive checkout (and a build from it) holds them there (review69: a patch dropping
    a module the commit keeps in a submodule passed)."""

    @property
    def unfollowed(self) -> frozenset[str]:
        """Every link's and submodule's path: what the build reads there k3diff does not, so
        the readers of what a build runs (`cmakeruns`, `configstops`, `setuppylocal`) stop on
        a module at or under one (submod77: ``tools`` a submodule holding ``cm.py``, which
        ``setup.py`` imports, passed, exit 0, where a link there stopped)."""
        return self.links | self.submodules


def link_over(links: frozenset[str], path: str) -> str | None:
    """The symbolic link (of `links`, `CommitTree.links`) at `path` or at a directory above it
    (`src/pkg/sub` for `src/pkg/sub/guard.py`), None where none is: a checkout holds a file
    there where the link leads, which k3diff does not follow (review69: a module the commit
    holds under a linked directory, which the patch dropped, passed). Only the directories as
    long as the longest link at most are looked up (review70a: each of the 30,000 of a 60 KB
    wheel path was hashed whole, 0.2 s a lookup, with no link at all)."""
    longest = _longest(links)
    if len(path) <= longest and path in links:
        return path
    at = path.rfind("/", 0, longest + 1)
    while at > 0:
        if (head := path[:at]) in links:
            return head
        at = path.rfind("/", 0, at)
    return None


@functools.lru_cache(maxsize=8)
def _longest(paths: frozenset[str]) -> int:
    """The length of the longest of `paths` (a commit's links, read once per commit)."""
    return max(map(len, paths), default=0)


def list_tree(repo: GitRepo, commit: str) -> CommitTree:
    """Every regular file's path in `commit` (from the repository root) with its blob id, and
    every symbolic link's path, reading only objects that hash to their ids; SourceError naming
    one that does not. A symbolic link is no file here (prov68: its blob is the target's name,
    and a wheel holding that text matched)."""
    with popen_git(repo.path, ["cat-file", "--batch"], overrides=repo.overrides) as pipe:
        try:
            ask = _Asker(repo, pipe)
            (first,) = [data.split(b"\n", 1)[0] for data in ask([commit], "commit")]
            if not first.startswith(b"tree "):
                raise SourceError(f"{repo.label}: commit {commit} names no tree")
            root = first[5:].decode("ascii")
            trees: dict[str, list[Entry]] = {}
            level, listed = [root], 0
            while level:  # a level of the tree at a time: one write of its ids, then the answers
                for oid, data in zip(level, ask(level, "tree"), strict=True):
                    trees[oid] = list(_entries(repo, oid, data))
                    listed += len(trees[oid])
                    if listed > MAX_LISTED_ENTRIES:  # the walk would list at least as many
                        raise SourceError(_too_many(repo, commit))
                below = (o for entries in map(trees.__getitem__, level) for o in _subtrees(entries))
                level = [oid for oid in dict.fromkeys(below) if oid not in trees]
        except OSError as exc:
            raise SourceError(f"{repo.label}: git cat-file stopped ({exc})") from None
    return _files(repo, commit, trees, root)


def _subtrees(entries: list[Entry]) -> Iterator[str]:
    return (oid for mode, _, oid in entries if mode & _TYPE_BITS == _TREE)


def _files(repo: GitRepo, commit: str, trees: dict[str, list[Entry]], root: str) -> CommitTree:
    """Path -> blob id of every file below `root`, and every link's and submodule's path, in the
    order `ls-tree -r` lists them (depth first, each tree in its own order), without recursion,
    holding each directory's name once (not its whole path), within `MAX_LISTED_ENTRIES` and
    `MAX_PATH_BYTES`."""
    files: dict[str, str] = {}
    links: set[str] = set()
    submodules: set[str] = set()
    stack = [iter(trees[root])]
    names: list[str] = []  # the directories the walk is in, outermost first
    depth_bytes = [0]  # bytes of each level's path prefix ("a/b/": 4)
    visited = 0
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            depth_bytes.pop()
            if names:
                names.pop()
            continue
        visited += 1
        if visited > MAX_LISTED_ENTRIES:
            raise SourceError(_too_many(repo, commit))
        mode, name, oid = entry
        size = depth_bytes[-1] + len(name.encode("utf-8", "surrogateescape"))
        if size > MAX_PATH_BYTES:
            path = "/".join([*names, name])
            raise SourceError(
                f"{repo.label}: commit {commit} holds a path longer than {MAX_PATH_BYTES:,} "
                f"bytes ({path[:60]}…), which no checkout can hold: its files are not listed"
            )
        if mode & _TYPE_BITS == _TREE:
            stack.append(iter(trees[oid]))
            names.append(name)
            depth_bytes.append(size + 1)
        elif mode & _TYPE_BITS == _FILE:
            files["/".join([*names, name])] = oid
        elif mode & _TYPE_BITS == _LINK:  # its blob is the target's name, not a file's content
            links.add("/".join([*names, name]))
        elif mode & _TYPE_BITS == _GITLINK:  # another repository's commit
            submodules.add("/".join([*names, name]))
        # Anything else holds no file a checkout writes there: a type git knows not, which it
        # checks out as a submodule (an empty directory).
    return CommitTree(files, frozenset(links), frozenset(submodules))


def _too_many(repo: GitRepo, commit: str) -> str:
    return (
        f"{repo.label}: commit {commit} lists more than {MAX_LISTED_ENTRIES:,} files and "
        "directories (a subtree counted each time it is named), past what k3diff lists of one "
        "commit"
    )


class _Asker:
    """Objects by id from a running `git cat-file --batch`, each checked (`read_object`)."""

    def __init__(self, repo: GitRepo, pipe: GitPipe) -> None:
        self.repo, self.pipe = repo, pipe

    def __call__(self, oids: list[str], kind: str) -> Iterator[bytes]:
        for at in range(0, len(oids), _ASKED_AT_ONCE):
            chunk = oids[at : at + _ASKED_AT_ONCE]
            self.pipe.stdin.write("".join(f"{oid}\n" for oid in chunk).encode("ascii"))
            self.pipe.stdin.flush()
            for oid in chunk:
                with self.pipe.waiting():
                    found, was, data = read_object(self.repo, self.pipe, MAX_TREE_BYTES)
                if found != oid or was != kind:
                    raise SourceError(f"{self.repo.label}: object {oid} is not a {kind}")
                yield data


def _entries(repo: GitRepo, oid: str, data: bytes) -> Iterator[Entry]:
    """(mode, name, id) of each entry of tree `oid`'s bytes, in their order; SourceError for a
    name no checkout can hold, which `git fsck` rejects: empty, ``.``, ``..``, holding a ``/``,
    or given twice (review67: a root entry named ``pkg/a.py`` beside the real ``pkg/`` tree
    replaced that file in the listing, and a wheel holding its bytes matched)."""
    width = 32 if repo.object_format == "sha256" else 20
    at = 0
    seen: set[bytes] = set()
    while at < len(data):
        space, nul = data.find(b" ", at), data.find(b"\0", at)
        if space < 0 or nul < space or nul + 1 + width > len(data):
            raise SourceError(f"{repo.label}: a tree object cannot be read")
        try:
            mode = int(data[at:space], 8)
        except ValueError:
            raise SourceError(f"{repo.label}: a tree object cannot be read") from None
        raw = data[space + 1 : nul]
        if raw in (b"", b".", b"..") or b"/" in raw or raw in seen:
            why = "given twice" if raw in seen else "not a file name"
            raise SourceError(
                f"{repo.label}: tree {oid} lists {raw.decode('utf-8', 'replace')!r}, {why} (git "
                "fsck rejects the tree): its files are not read"
            )
        seen.add(raw)
        yield mode, raw.decode("utf-8", "surrogateescape"), data[nul + 1 : nul + 1 + width].hex()
        at = nul + 1 + width
