"""Real git repositories for the source-provenance tests (tests/wheels/test_provenance*.py and
the bytecode tests), built with tests/provenance/repokit.py: fixed identity and dates, so commit
ids are the same on every run."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from provenance.repokit import Tree, commit, git, make_repo

__all__ = ["PKG_V1", "Tree", "commit", "git", "linear_repo", "make_repo", "under"]

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
