"""Real git repositories for the provenance tests, built with fixed identities and dates.

`git` runs the test's own git (never k3diff's hardened one) with the user's configuration
ignored, so commit ids are the same on every run. `Markers` makes one marker-writing program per
code-running key and says which of them ran.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

Tree = Mapping[str, bytes | None]
"""One commit's edits: path -> new content, or None to delete the file."""


def git_env(tick: int = 0) -> dict[str, str]:
    """The environment of the test's own git: no user configuration, a fixed identity."""
    date = f"2024-01-01T00:{tick // 60:02d}:{tick % 60:02d}+00:00"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Author",
        GIT_AUTHOR_EMAIL="author@example.com",
        GIT_COMMITTER_NAME="Author",
        GIT_COMMITTER_EMAIL="author@example.com",
        GIT_AUTHOR_DATE=date,
        GIT_COMMITTER_DATE=date,
    )
    return env


def git(
    repo: Path, *args: str, tick: int = 0, stdin: bytes | None = None, check: bool = True
) -> str:
    """Run the test's git in `repo`; its stdout, stripped."""
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        env=git_env(tick),
        input=stdin,
        capture_output=True,
        check=False,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr.decode()}")
    return done.stdout.decode().strip()


def commit(repo: Path, edits: Tree, message: str) -> str:
    """Apply `edits` to the working tree, commit them, and return the commit id."""
    for path, data in edits.items():
        target = repo / path
        if data is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    git(repo, "add", "-A")
    tick = int(git(repo, "rev-list", "--all", "--count") or 0)
    git(repo, "commit", "-q", "--allow-empty", "-m", message, tick=tick)
    return git(repo, "rev-parse", "HEAD")


def make_repo(path: Path, history: list[Tree], object_format: str = "sha1") -> list[str]:
    """A repository whose commits apply `history` in order on branch main; their ids."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main", f"--object-format={object_format}")
    return [commit(path, edits, f"commit {n}") for n, edits in enumerate(history)]


def commit_gitlink(repo: Path, path: str) -> str:
    """Commit a submodule (a gitlink, mode 160000) at `path` pinned to HEAD, with no
    ``.gitmodules`` and nothing checked out there; the commit id."""
    pinned = git(repo, "rev-parse", "HEAD")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{pinned},{path}")
    tick = int(git(repo, "rev-list", "--all", "--count"))
    git(repo, "commit", "-q", "-m", f"submodule {path}", tick=tick)
    return git(repo, "rev-parse", "HEAD")
