"""`wheels --source`: a module the base wheel shipped, the commit still holds and the patch
lacks is W410 (failing, waivable).

The source check looked only at the patch's files: a patch that dropped `pkg/guard.py`, which
`pkg/__init__.py` imports only if present, matched the commit file for file and passed, even
with `--source-all`, while the commit it claims holds the guard (prov68). A module the commit
keeps as a symbolic link counts: a checkout holds it, and the build ships the file it names
(newuser68: dropping it passed, exit 0).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_json
from provenance.repokit import git, make_repo

INIT = b"try:\n    from pkg import guard\nexcept ImportError:\n    guard = None\n"
FILES = {
    "pkg/__init__.py": INIT,
    "pkg/guard.py": b"ON = True\n",
    "pkg/util.py": b"X = 1\n",
    "pkg/util.pyi": b"X: int\n",
}


UNDER_LINK = (
    "src/pkg/sub/guard.py is under the symbolic link src/pkg/sub at the source commit, which "
    "k3diff does not follow: a checkout holds the module there if the link leads to a "
    "directory holding it, and the patch wheel lacks it (the base wheel shipped it)"
)
"""W410 of a module dropped from under a linked directory: k3diff does not follow the link."""


def _failing(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["path"]) for f in report["findings"] if f["severity"] == "error"]


def _wheels(tmp_path: Path, dropped: tuple[str, ...]) -> tuple[Path, Path]:
    kept = {path: data for path, data in FILES.items() if path not in dropped}
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    return base, wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", kept)


def test_a_module_the_commit_holds_and_the_patch_drops_fails(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"src/" + path: data for path, data in FILES.items()}])
    base, patch = _wheels(tmp_path, ("pkg/guard.py", "pkg/util.pyi"))

    for extra in ((), ("--source-all",), ("--commits", "HEAD..HEAD")):
        rev = () if "--commits" in extra else ("--commit", "HEAD")
        code, report = run_json("wheels", base, patch, "--source", repo, *rev, *extra)

        assert code == 1, extra
        assert _failing(report) == [("W410", "pkg/guard.py")]  # a dropped stub runs nothing
        (finding,) = [f for f in report["findings"] if f["code"] == "W410"]
        assert "src/pkg/guard.py is at the source commit" in finding["detail"]


def test_a_module_the_commit_removed_too_is_no_finding(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    at_commit = {"src/" + path: data for path, data in FILES.items() if path != "pkg/guard.py"}
    make_repo(repo, [at_commit])
    base, patch = _wheels(tmp_path, ("pkg/guard.py",))

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 0
    assert [f["code"] for f in report["findings"] if f["code"].startswith("W4")] == []


def test_a_module_the_commit_keeps_as_a_symbolic_link_and_the_patch_drops_fails(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    at_commit = {"src/" + path: data for path, data in FILES.items() if path != "pkg/guard.py"}
    make_repo(repo, [{**at_commit, "src/pkg/guard_impl.py": FILES["pkg/guard.py"]}])
    os.symlink("guard_impl.py", repo / "src/pkg/guard.py")  # setuptools ships the target's bytes
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "guard.py is a link", tick=1)
    assert git(repo, "ls-tree", "HEAD", "src/pkg/guard.py").startswith("120000 blob ")
    base, patch = _wheels(tmp_path, ("pkg/guard.py",))

    for rev in (("--commit", "HEAD"), ("--commits", "HEAD~1..HEAD")):
        code, report = run_json("wheels", base, patch, "--source", repo, *rev)

        assert code == 1, rev
        assert _failing(report) == [("W410", "pkg/guard.py")]
        (finding,) = [f for f in report["findings"] if f["code"] == "W410"]
        assert finding["detail"] == (
            "src/pkg/guard.py is a symbolic link at the source commit, which k3diff does not "
            "follow: a checkout holds the module there if the link leads to a file, and the "
            "patch wheel lacks it (the base wheel shipped it)"
        )


def test_a_module_the_commit_holds_under_a_linked_directory_and_the_patch_drops_fails(
    tmp_path: Path,
) -> None:
    """`src/pkg/sub` is a symbolic link to `../../lib/sub`: a checkout holds
    `src/pkg/sub/guard.py`, the build ships it, and a patch dropping the whole subpackage
    passed, exit 0 (review69: only a link at the module's own path counted). A file the patch
    keeps there is compared with nothing (`--source-all` checks it), said as under the link."""
    repo = tmp_path / "repo"
    guarded = b"try:\n    from pkg.sub import guard\nexcept ImportError:\n    guard = None\n"
    at_commit = {
        "src/pkg/__init__.py": guarded,
        "src/pkg/util.py": FILES["pkg/util.py"],
        "lib/sub/__init__.py": b"",
        "lib/sub/guard.py": FILES["pkg/guard.py"],
    }
    make_repo(repo, [at_commit])
    os.symlink("../../lib/sub", repo / "src/pkg/sub")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "sub is a link", tick=1)
    shipped = {
        "pkg/__init__.py": guarded,
        "pkg/util.py": FILES["pkg/util.py"],
        "pkg/sub/__init__.py": b"",
        "pkg/sub/guard.py": FILES["pkg/guard.py"],
    }
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", shipped)
    for dropped, rev in (
        (("pkg/sub/__init__.py", "pkg/sub/guard.py"), ("--commit", "HEAD")),
        (("pkg/sub/__init__.py", "pkg/sub/guard.py"), ("--commits", "HEAD~1..HEAD")),
        (("pkg/sub/guard.py",), ("--commit", "HEAD")),
    ):
        kept = {path: data for path, data in shipped.items() if path not in dropped}
        patch = wheelkit.make_wheel(tmp_path / str(len(dropped)), "pkg", "1.0", kept)

        options = (*rev, "--source-prefix", "src", "--source-all")
        code, report = run_json("wheels", base, patch, "--source", repo, *options)

        assert code == 1, (dropped, rev)
        assert ("W410", "pkg/sub/guard.py") in _failing(report)
        details = {
            f["path"]: f["detail"] for f in report["findings"] if f["code"] in ("W410", "W402")
        }
        assert details["pkg/sub/guard.py"] == UNDER_LINK
        if len(dropped) == 1:
            assert details["pkg/sub/__init__.py"] == (
                "src/pkg/sub/__init__.py is under the link src/pkg/sub at the source commit: "
                "k3diff does not follow it, so the wheel's file was compared with nothing"
            )


def test_a_module_the_commit_holds_in_a_submodule_and_the_patch_drops_fails(
    tmp_path: Path,
) -> None:
    """`src/pkg/vendored` is a submodule: a recursive checkout holds its
    `src/pkg/vendored/guard.py`, the build ships it, and a patch dropping it passed, exit 0,
    even with `--source-all` (review69). k3diff reads no other repository: W410 says where,
    and W402 of a file the patch ships from it."""
    (pinned,) = make_repo(tmp_path / "vendored", [{"guard.py": FILES["pkg/guard.py"]}])
    repo = tmp_path / "repo"
    make_repo(repo, [{"src/pkg/__init__.py": INIT, "src/pkg/util.py": FILES["pkg/util.py"]}])
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{pinned},src/pkg/vendored")
    git(repo, "commit", "-q", "-m", "vendored is a submodule", tick=1)
    shipped = {
        "pkg/__init__.py": INIT,
        "pkg/util.py": FILES["pkg/util.py"],
        "pkg/vendored/guard.py": FILES["pkg/guard.py"],
    }
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", shipped)
    kept = {path: data for path, data in shipped.items() if path != "pkg/vendored/guard.py"}
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", kept)

    for extra in ((), ("--source-all",)):
        code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD", *extra)

        assert code == 1, extra
        assert _failing(report) == [("W410", "pkg/vendored/guard.py")]
        (finding,) = [f for f in report["findings"] if f["code"] == "W410"]
        assert finding["detail"] == (
            "src/pkg/vendored/guard.py is in the submodule src/pkg/vendored at the source "
            "commit, whose files k3diff does not read: a recursive checkout holds the module "
            "there if the submodule does, and the patch wheel lacks it (the base wheel shipped "
            "it)"
        )
    # A file the patch ships from it is compared with nothing, said so (was "does not exist").
    changed = wheelkit.make_wheel(
        tmp_path / "c", "pkg", "1.0", {**shipped, "pkg/vendored/guard.py": b"ON = False\n"}
    )
    code, report = run_json("wheels", base, changed, "--source", repo, "--commit", "HEAD")
    assert (code, _failing(report)) == (1, [("W402", "pkg/vendored/guard.py")])
    (absent,) = [f for f in report["findings"] if f["code"] == "W402"]
    assert absent["detail"] == (
        "src/pkg/vendored/guard.py is in the submodule src/pkg/vendored at the source commit: "
        "k3diff does not read another repository, so the wheel's file was compared with nothing"
    )


def test_a_module_dropped_from_under_a_dangling_link_is_not_said_to_be_at_the_commit(
    tmp_path: Path,
) -> None:
    """`src/pkg/sub` links to a directory the commit lacks: no checkout holds
    `src/pkg/sub/guard.py`, and W410 said it `is at the source commit (under the symbolic link
    src/pkg/sub)` (prov70). k3diff does not follow the link (the target may be one the build
    makes), so W410 stands, saying what it knows: a link, not followed, and what it would take
    for the module to be there."""
    repo = tmp_path / "repo"
    make_repo(repo, [{"src/pkg/__init__.py": INIT, "src/pkg/util.py": FILES["pkg/util.py"]}])
    os.symlink("../../nowhere/sub", repo / "src/pkg/sub")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "sub is a dangling link", tick=1)
    shipped = {"pkg/__init__.py": INIT, "pkg/util.py": FILES["pkg/util.py"]}
    base = wheelkit.make_wheel(
        tmp_path / "b", "pkg", "1.0", {**shipped, "pkg/sub/guard.py": FILES["pkg/guard.py"]}
    )
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", shipped)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _failing(report) == [("W410", "pkg/sub/guard.py")]
    (finding,) = [f for f in report["findings"] if f["code"] == "W410"]
    assert finding["detail"] == UNDER_LINK
