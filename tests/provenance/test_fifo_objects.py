"""A repository whose object store holds a FIFO ends the run in one line, never a hang.

`git cat-file --batch` (the trees and the blobs k3diff reads itself) had no deadline: a loose
tree object that is a FIFO held git, and k3diff, forever (now each answer has 600 s); and a FIFO named like a pack index
held k3diff's own lookup of the store a commit comes from (review67). The run is a subprocess
with a deadline of its own, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import wheelkit

from k3diff.provenance import gitrun
from k3diff.provenance.git import blob_id, iter_blobs, open_repo
from provenance.repokit import git, make_repo

_RUN = (
    "import sys, k3diff.provenance.gitrun as g; g.GIT_TIMEOUT_S = 2.0; "
    "from k3diff.cli import main; sys.exit(main(sys.argv[1:]))"
)


def _k3diff(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """k3diff with git's deadline at 2 s, itself stopped after 60 s."""
    command = [sys.executable, "-c", _RUN, *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def _release(fifo: Path) -> None:
    """Let a git left waiting on `fifo` (the run was killed, not git) read its end and exit."""
    with contextlib.suppress(OSError):  # nobody waits on it
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def _wheels(tmp_path: Path) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", {"pkg/a.py": b"A = 0\n"})
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", {"pkg/a.py": b"A = 1\n"})
    return base, patch


def test_a_loose_tree_that_is_a_fifo_stops_at_the_deadline(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/a.py": b"A = 1\n"}])
    tree = git(repo, "rev-parse", "HEAD^{tree}")
    loose = repo / ".git" / "objects" / tree[:2] / tree[2:]
    loose.unlink()
    os.mkfifo(loose)

    try:
        done = _k3diff("wheels", *_wheels(tmp_path), "--source", repo, "--commit", "HEAD")
    finally:
        _release(loose)

    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.endswith(": git cat-file took longer than 2 s to answer (stopped)\n")
    assert len(done.stderr.splitlines()) == 1


def test_a_fifo_named_like_a_pack_index_is_not_opened(tmp_path: Path) -> None:
    """With an alternates file, k3diff looks the compared commit up in each store's pack
    indexes itself; git skips an index without its pack, and so must that lookup."""
    repo, other = tmp_path / "repo", tmp_path / "other"
    make_repo(repo, [{"pkg/a.py": b"A = 1\n"}])
    make_repo(other, [{"x": b"x\n"}])
    git(repo, "gc", "--quiet")
    (repo / ".git" / "objects" / "info" / "alternates").write_text(f"{other}/.git/objects\n")
    os.mkfifo(repo / ".git" / "objects" / "pack" / "aa.idx")  # sorts before the real index

    done = _k3diff("wheels", *_wheels(tmp_path), "--source", repo, "--commit", "HEAD")

    assert done.returncode == 0, done.stderr
    assert "W407" in done.stdout  # the borrowing is still named


def test_the_deadline_is_on_gits_answers_not_on_the_time_between_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A line diff of a large file may take minutes between two answers of `cat-file`: that is
    k3diff's time, and the deadline (here 0.5 s) does not count it."""
    repo = tmp_path / "repo"
    make_repo(repo, [{"a.py": b"A = 1\n", "b.py": b"B = 1\n"}])
    monkeypatch.setattr(gitrun, "GIT_TIMEOUT_S", 0.5)
    blobs = [blob_id(b"A = 1\n", "sha1"), blob_id(b"B = 1\n", "sha1")]

    read = []
    for oid, data in iter_blobs(open_repo(repo), blobs):
        time.sleep(1.0)
        read.append((oid, data))

    assert read == [(blobs[0], b"A = 1\n"), (blobs[1], b"B = 1\n")]
