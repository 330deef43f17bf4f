"""`wheels --source`: a wheel path far deeper than any mapped directory or symbolic link.

Each directory of a wheel path was looked up whole, in the configuration's mapping and among
the commit's links (even where there was none): a patch wheel adding 20 Python files at 60 KB
paths (30,000 directories each) held a run 44.6 s with a hatchling mapping, 11.8 s without
(review70a; 2.6 s now, the rest the archive checks). Only the directories as long as the
longest mapped directory or link are looked up now; the place each path is compared at, and
what W410 says of a link above it, are the same.
"""

from __future__ import annotations

import os
from pathlib import Path

import wheelkit
from cli_support import run_json
from provenance.repokit import git, make_repo

from .test_provenance_backends import CONFIGURED, _sources

DEEP = "a/" * 40 + "deep/mod.py"


def test_deep_paths_are_placed_by_the_mapping_and_links_above_them_are_said(
    tmp_path: Path,
) -> None:
    pyproject, where, _ = CONFIGURED["hatchling packages and a renaming source"]
    repo = tmp_path / "repo"
    tree = {
        "pyproject.toml": pyproject,
        f"{where}__init__.py": b"",
        f"{where}util.py": b"X = 1\n",
        f"{where}{DEEP}": b"X = 1\n",
    }
    make_repo(repo, [tree])
    os.symlink("../../nowhere", repo / where / "lnk")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "lnk is a link", tick=1)
    shipped = {"pkg/__init__.py": b"", "pkg/util.py": b"X = 1\n", f"pkg/{DEEP}": b"X = 1\n"}
    guard = "pkg/lnk/" + "b/" * 40 + "guard.py"
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", {**shipped, guard: b"ON = 1\n"})
    patch = wheelkit.make_wheel(
        tmp_path / "p", "pkg", "1.0", {**shipped, f"pkg/{DEEP}": b"X = 2\n"}
    )

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {f"pkg/{DEEP}": ("mismatch", f"{where}{DEEP}")}
    (finding,) = [f for f in report["findings"] if f["code"] == "W410"]
    held = where + guard.removeprefix("pkg/")
    assert finding["detail"].startswith(
        f"{held} is under the symbolic link {where}lnk at the source commit"
    )
