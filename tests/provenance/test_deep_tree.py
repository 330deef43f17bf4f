"""A tree nested 100,000 deep makes `git ls-tree` overflow its stack and die without a word. The
source check walks a commit's trees itself since review62c (`provenance.trees`, to hash each
one), one level at a time without recursion, so the deep file is found; a git that dies still
ends in one line saying how (`failure_message`)."""

from __future__ import annotations

import hashlib
import zlib
from pathlib import Path

import wheelkit
from cli_support import run_k3diff

from k3diff.provenance.gitrun import failure_message
from provenance.repokit import git, make_repo

DEPTH = 100_000


def _write_object(repo: Path, kind: str, body: bytes) -> str:
    """A loose object written directly (100,000 `git mktree` runs would take minutes)."""
    data = f"{kind} {len(body)}\0".encode() + body
    oid = hashlib.sha1(data).hexdigest()
    path = repo / ".git" / "objects" / oid[:2] / oid[2:]
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_bytes(zlib.compress(data, 1))
    return oid


def _deep_commit(repo: Path) -> str:
    blob = _write_object(repo, "blob", b"X = 2\n")
    tree = _write_object(repo, "tree", b"100644 __init__.py\0" + bytes.fromhex(blob))
    tree = _write_object(repo, "tree", b"40000 pkg\0" + bytes.fromhex(tree))
    for _ in range(DEPTH):
        tree = _write_object(repo, "tree", b"40000 d\0" + bytes.fromhex(tree))
    head = git(repo, "rev-parse", "HEAD")
    return git(repo, "commit-tree", tree, "-p", head, "-m", "deep")


def test_git_dying_on_a_deep_tree_is_one_line_saying_how(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/__init__.py": b""}])
    deep = _deep_commit(repo)
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", {"pkg/__init__.py": b""})
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", "1.0", {"pkg/__init__.py": b"X = 2\n"})
    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", deep)
    assert "Traceback" not in result.stderr and "no message" not in result.stderr
    assert result.exit_code == 0, result.stderr  # the patch's file, 100,001 directories down
    assert "Files: 1 match, 0 mismatch" in result.stdout


def test_the_failure_message_names_the_signal_or_the_status() -> None:
    assert failure_message(-11, b"").startswith("git was killed by SIGSEGV without a message")
    assert failure_message(128, b"") == "git exited with status 128 without a message"
    assert failure_message(128, b"fatal: bad object\n") == "bad object"
