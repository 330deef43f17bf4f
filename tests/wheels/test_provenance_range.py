"""Source provenance against a commit range (`--source-range OLD..NEW`: the newest commit in the
range whose file matches), and the errors a revision, range or repository can give."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from k3diff.errors import NestedRepositoryError, SourceError
from k3diff.provenance.check import (
    SourceStatus,
    check_source,
    check_source_range,
)

from .provenance_support import PKG_V1, commit, git, make_repo

# --- ranges --------------------------------------------------------------------------------


def test_range_names_the_newest_matching_commit_for_a_stale_file(
    linear: tuple[Path, list[str]],
) -> None:
    repo, (c0, _c1, c2, _c3, c4) = linear
    wheel = {"pkg/engine.py": b"ENGINE = 1\n", "pkg/utils.py": b"X = 2\n"}

    report = check_source_range(repo, f"{c0}..main", wheel)

    assert (report.range, report.commit, report.old_commit) == (f"{c0}..main", c4, c0)
    assert report.commits_examined == 5
    engine, utils = report.files
    assert (engine.status, engine.matched_commit) == (SourceStatus.STALE, c2)
    assert (utils.status, utils.matched_commit) == (SourceStatus.MATCH, c4)
    assert engine.diff is not None
    assert engine.diff.startswith(f"--- a/src/pkg/engine.py@{c4[:12]}\n+++ b/pkg/engine.py\n")
    assert report.counts() == {"match": 1, "mismatch": 0, "absent": 0, "stale": 1}


def test_range_includes_old_itself_as_the_oldest_candidate(
    linear: tuple[Path, list[str]],
) -> None:
    repo, (_c0, c1, *_rest) = linear  # utils.py is X = 1 up to c1, X = 2 from c2 on

    report = check_source_range(repo, f"{c1}..HEAD", {"pkg/utils.py": PKG_V1["pkg/utils.py"]})

    (utils,) = report.files
    assert (utils.status, utils.matched_commit) == (SourceStatus.STALE, c1)
    assert report.commits_examined == 4


def test_range_mismatch_and_absent(linear: tuple[Path, list[str]]) -> None:
    repo, (_c0, c1, *_rest) = linear
    wheel = {"pkg/engine.py": b"ENGINE = 99\n", "pkg/ghost.py": b"", "pkg/new.py": b"NEW = 1\n"}

    report = check_source_range(repo, f"{c1}..HEAD", wheel)

    statuses = {f.path: (f.status, f.matched_commit) for f in report.files}
    assert statuses["pkg/engine.py"] == (SourceStatus.MISMATCH, None)
    assert statuses["pkg/ghost.py"] == (SourceStatus.ABSENT, None)
    assert statuses["pkg/new.py"][0] is SourceStatus.MATCH
    assert report.commits_examined == 4


def test_range_file_deleted_before_new_is_stale_not_absent(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    c0, c1, _c2 = make_repo(repo, [PKG_V1, {"pkg/old.py": b"OLD = 1\n"}, {"pkg/old.py": None}])

    report = check_source_range(repo, f"{c0}..HEAD", {"pkg/old.py": b"OLD = 1\n"})

    (old,) = report.files
    assert (old.status, old.matched_commit, old.repo_blob) == (SourceStatus.STALE, c1, None)


def test_range_follows_a_merged_side_branch(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (c0,) = make_repo(repo, [PKG_V1])
    git(repo, "switch", "-q", "-c", "side")
    side1 = commit(repo, {"pkg/engine.py": b"SIDE = 1\n"}, "side 1")
    commit(repo, {"pkg/engine.py": b"SIDE = 2\n"}, "side 2")
    git(repo, "switch", "-q", "main")
    commit(repo, {"pkg/utils.py": b"X = 3\n"}, "main work")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side", tick=9)

    report = check_source_range(repo, f"{c0}..main", {"pkg/engine.py": b"SIDE = 1\n"})

    (engine,) = report.files
    assert (engine.status, engine.matched_commit) == (SourceStatus.STALE, side1)
    assert report.commits_examined == 5


def test_range_with_old_equal_to_new(linear: tuple[Path, list[str]]) -> None:
    repo, ids = linear

    report = check_source_range(repo, "HEAD..HEAD", {"pkg/new.py": b"NEW = 1\n"})

    assert (report.ok, report.commits_examined, report.old_commit) == (True, 1, ids[-1])


def test_range_with_old_off_the_history_of_new(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (c0,) = make_repo(repo, [PKG_V1])
    git(repo, "switch", "-q", "-c", "other")
    other = commit(repo, {"pkg/utils.py": b"OTHER = 1\n"}, "other")
    git(repo, "switch", "-q", "main")
    commit(repo, {"pkg/utils.py": b"X = 5\n"}, "main")

    report = check_source_range(repo, "other..main", {"pkg/utils.py": b"OTHER = 1\n"})

    assert (report.files[0].status, report.files[0].matched_commit) == (SourceStatus.STALE, other)
    assert c0 != other


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("rev", ["--output=/tmp/x", "-h"])
def test_revision_starting_with_dash_is_refused(tmp_path: Path, rev: str) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [PKG_V1])

    with pytest.raises(SourceError, match=r"starts with '-' \(refused\)") as err:
        check_source(repo, rev, PKG_V1)
    assert str(repo) in str(err.value)
    with pytest.raises(SourceError, match="starts with '-'"):
        check_source_range(repo, f"HEAD..{rev}", PKG_V1)
    with pytest.raises(SourceError, match="starts with '-'"):
        check_source_range(repo, f"{rev}..HEAD", PKG_V1)


@pytest.mark.parametrize("spec", ["HEAD", "a...b", "..HEAD", "HEAD..", "a..b..c"])
def test_malformed_range_is_refused(tmp_path: Path, spec: str) -> None:
    with pytest.raises(SourceError, match=r"OLD\.\.NEW"):
        check_source_range(tmp_path, spec, PKG_V1)


def test_reversed_range_is_refused(linear: tuple[Path, list[str]]) -> None:
    repo, (c0, *_rest) = linear
    with pytest.raises(SourceError, match="holds no commits"):
        check_source_range(repo, f"HEAD..{c0}", PKG_V1)


def test_unknown_revision_names_repo_and_revision(linear: tuple[Path, list[str]]) -> None:
    repo, _ids = linear
    with pytest.raises(SourceError) as err:
        check_source(repo, "v9.9.9", PKG_V1)
    assert str(err.value) == f"{repo}: revision 'v9.9.9' is not a commit in this repository"
    with pytest.raises(SourceError, match="'nope'"):
        check_source_range(repo, "nope..HEAD", PKG_V1)
    with pytest.raises(SourceError, match="'HEAD:src'"):  # a tree, not a commit
        check_source(repo, "HEAD:src", PKG_V1)


def test_not_a_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(SourceError, match=f"^{re.escape(str(plain))}: not a git repository") as e:
        check_source(plain, "HEAD", PKG_V1)
    # Found by the new-user trial: git's own line was quoted whole, so the message read
    # "not a git repository (not a git repository (or any of the parent directories): .git)".
    assert str(e.value).count("not a git repository") == 1, str(e.value)
    with pytest.raises(SourceError, match="no such directory"):
        check_source(tmp_path / "missing", "HEAD", PKG_V1)
    (tmp_path / "file").write_text("x")
    with pytest.raises(SourceError, match="not a directory"):
        check_source(tmp_path / "file", "HEAD", PKG_V1)


def test_directory_inside_a_repository_is_not_taken_for_it(
    linear: tuple[Path, list[str]],
) -> None:
    repo, _ids = linear
    # Refused (a directory inside a checkout may be an unrelated tree), naming the top level.
    with pytest.raises(
        NestedRepositoryError, match="not the top level of a git repository"
    ) as raised:
        check_source(repo / "src", "HEAD", PKG_V1)
    assert raised.value.top_level == str(repo.resolve())
    assert "--source" not in str(raised.value)  # the library names no flag; the CLI adds it


def test_shallow_clone_missing_the_commit(linear: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo, (c0, *_rest, c4) = linear
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))

    assert check_source(clone, c4, {"pkg/new.py": b"NEW = 1\n"}).ok
    with pytest.raises(SourceError, match="shallow") as err:
        check_source(clone, c0, PKG_V1)
    assert str(clone) in str(err.value) and c0 in str(err.value)
    with pytest.raises(SourceError, match="shallow"):
        check_source_range(clone, f"{c0}..HEAD", PKG_V1)


def test_shallow_clone_with_history_cut_between_old_and_new(
    linear: tuple[Path, list[str]], tmp_path: Path
) -> None:
    repo, (c0, *_rest) = linear
    git(repo, "tag", "base", c0)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    git(clone, "fetch", "-q", "--depth", "1", "origin", "tag", "base")

    with pytest.raises(SourceError, match="cut off in this shallow clone"):
        check_source_range(clone, "base..HEAD", {"pkg/engine.py": b"ENGINE = 1\n"})
