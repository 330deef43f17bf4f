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

from collections.abc import Iterator
from typing import IO

from k3diff.errors import SourceError
from k3diff.provenance.git import GitRepo, read_object
from k3diff.provenance.gitrun import popen_git

_TREE, _GITLINK, _TYPE_BITS = 0o040000, 0o160000, 0o170000


def list_tree(repo: GitRepo, commit: str) -> dict[str, str]:
    """Map every file path in `commit` (from the repository root) to its blob id, reading only
    objects that hash to their ids; SourceError naming one that does not."""
    process = popen_git(repo.path, ["cat-file", "--batch"], overrides=repo.overrides)
    assert process.stdin is not None and process.stdout is not None
    try:
        ask = _Asker(repo, process.stdin, process.stdout)
        first = ask(commit, "commit").split(b"\n", 1)[0]
        if not first.startswith(b"tree "):
            raise SourceError(f"{repo.label}: commit {commit} names no tree")
        tree: dict[str, str] = {}
        stack = [_entries(repo, ask(first[5:].decode("ascii"), "tree"), "")]
        while stack:
            entry = next(stack[-1], None)
            if entry is None:
                stack.pop()
                continue
            mode, path, oid = entry
            if mode & _TYPE_BITS == _TREE:
                stack.append(_entries(repo, ask(oid, "tree"), path + "/"))
            elif mode & _TYPE_BITS != _GITLINK:  # a submodule holds no file content
                tree[path] = oid
        return tree
    except (BrokenPipeError, OSError) as exc:
        raise SourceError(f"{repo.label}: git cat-file stopped ({exc})") from None
    finally:
        process.kill()
        process.wait()


class _Asker:
    """One object at a time from a running `git cat-file --batch` (it flushes each answer)."""

    def __init__(self, repo: GitRepo, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self.repo, self.stdin, self.stdout = repo, stdin, stdout

    def __call__(self, oid: str, kind: str) -> bytes:
        self.stdin.write(f"{oid}\n".encode("ascii"))
        self.stdin.flush()
        _, found, data = read_object(self.repo, self.stdout)
        if found != kind:
            raise SourceError(f"{self.repo.label}: object {oid} is a {found}, not a {kind}")
        return data


def _entries(repo: GitRepo, data: bytes, prefix: str) -> Iterator[tuple[int, str, str]]:
    """(mode, path, id) of each entry of a tree object's bytes, in their order."""
    width = 32 if repo.object_format == "sha256" else 20
    at = 0
    while at < len(data):
        space, nul = data.find(b" ", at), data.find(b"\0", at)
        if space < 0 or nul < space or nul + 1 + width > len(data):
            raise SourceError(f"{repo.label}: a tree object cannot be read")
        try:
            mode = int(data[at:space], 8)
        except ValueError:
            raise SourceError(f"{repo.label}: a tree object cannot be read") from None
        name = data[space + 1 : nul].decode("utf-8", "surrogateescape")
        yield mode, prefix + name, data[nul + 1 : nul + 1 + width].hex()
        at = nul + 1 + width
