"""Real git repositories for the source-provenance tests (tests/wheels/test_provenance*.py and
the bytecode tests): fixed identity and dates, so commit ids are the same on every run."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

Tree = Mapping[str, bytes | None]
"""One commit's edits: path -> new content, or None to delete the file."""


def git(repo: Path, *args: str, tick: int = 0) -> str:
    """Run git in `repo` with a fixed identity and date, ignoring the user's own config."""
    date = f"2024-01-01T00:{tick // 60:02d}:{tick % 60:02d}+00:00"
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Author",
        "GIT_AUTHOR_EMAIL": "author@example.com",
        "GIT_COMMITTER_NAME": "Author",
        "GIT_COMMITTER_EMAIL": "author@example.com",
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
    }
    done = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, capture_output=True, check=True, text=True
    )
    return done.stdout.strip()


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
    tick = int(git(repo, "rev-list", "--all", "--count"))
    git(repo, "commit", "-q", "--allow-empty", "-m", message, tick=tick)
    return git(repo, "rev-parse", "HEAD")


def make_repo(path: Path, history: list[Tree], object_format: str = "sha1") -> list[str]:
    """A repository whose commits apply `history` in order on branch main; their ids."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main", f"--object-format={object_format}")
    return [commit(path, edits, f"commit {n}") for n, edits in enumerate(history)]


PKG_V1 = {
    "pkg/__init__.py": b"",
    "pkg/engine.py": b"def step():\n    return 1\n",
    "pkg/utils.py": b"X = 1\n",
}


def under(prefix: str, files: Mapping[str, bytes | None]) -> dict[str, bytes | None]:
    return {prefix + path: data for path, data in files.items()}


def linear_repo(tmp_path: Path) -> tuple[Path, list[str]]:
    """c0 base; c1 sets engine v1; c2 touches utils; c3 sets engine v2; c4 adds new.py."""
    repo = tmp_path / "repo"
    ids = make_repo(
        repo,
        [
            under("src/", PKG_V1),
            {"src/pkg/engine.py": b"ENGINE = 1\n"},
            {"src/pkg/utils.py": b"X = 2\n"},
            {"src/pkg/engine.py": b"ENGINE = 2\n"},
            {"src/pkg/new.py": b"NEW = 1\n", "README": b"r\n"},
        ],
    )
    return repo, ids
