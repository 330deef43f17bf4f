"""Source provenance: is each Python file of a wheel the file git holds at one commit?

Every test builds a real repository in tmp_path with fixed author and committer dates
(tests/wheels/provenance_support.py), so commit ids are the same on every run, then checks
`files` dicts (wheel path -> bytes) against it. Ranges and repository errors:
test_provenance_range.py; the JSON, text and Markdown renderings: test_provenance_report.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from k3diff.errors import SourceError
from k3diff.provenance.check import SourceStatus, check_source
from k3diff.provenance.git import blob_id
from k3diff.provenance.prefix import detect_prefix, normalize_prefix

from .provenance_support import PKG_V1, git, make_repo, under

# --- single commit -------------------------------------------------------------------------


def test_src_layout_matches_and_prefix_is_detected(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (head,) = make_repo(repo, [{**under("src/", PKG_V1), "README.md": b"hi\n"}])

    report = check_source(repo, "main", PKG_V1)

    assert report.prefix == "src/"
    assert report.prefix_detected
    assert report.commit == head
    assert report.object_format == "sha1"
    assert report.ok
    assert [(f.path, f.repo_path, f.status) for f in report.files] == [
        ("pkg/__init__.py", "src/pkg/__init__.py", SourceStatus.MATCH),
        ("pkg/engine.py", "src/pkg/engine.py", SourceStatus.MATCH),
        ("pkg/utils.py", "src/pkg/utils.py", SourceStatus.MATCH),
    ]
    assert all(f.matched_commit == head and f.diff is None for f in report.files)


def test_python_layout_mismatch_carries_a_labelled_diff(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (head,) = make_repo(repo, [under("python/", PKG_V1)])
    wheel = {**PKG_V1, "pkg/engine.py": b"def step():\n    return 2\n\n# patched\n"}

    report = check_source(repo, head[:10], wheel)

    engine = report.file("pkg/engine.py")
    assert engine is not None
    assert engine.status is SourceStatus.MISMATCH
    assert engine.repo_path == "python/pkg/engine.py"
    assert engine.matched_commit is None
    assert (engine.added, engine.removed) == (3, 1)
    assert engine.diff == (
        f"--- a/python/pkg/engine.py@{head[:12]}\n"
        "+++ b/pkg/engine.py\n"
        "@@ -1,2 +1,4 @@\n"
        " def step():\n"
        "-    return 1\n"
        "+    return 2\n"
        "+\n"
        "+# patched\n"
    )
    assert engine.wheel_blob == blob_id(wheel["pkg/engine.py"], "sha1")
    assert report.counts() == {"match": 2, "mismatch": 1, "absent": 0, "stale": 0}
    assert not report.ok


def test_blob_ids_are_the_ones_git_computes(tmp_path: Path) -> None:
    data = b"print('hello')\n\x00binary tail"
    (tmp_path / "f").write_bytes(data)
    for object_format in ("sha1", "sha256"):
        repo = tmp_path / object_format
        repo.mkdir()
        try:
            git(repo, "init", "-q", f"--object-format={object_format}")
        except subprocess.CalledProcessError:
            pytest.skip("this git cannot create SHA-256 repositories")
        assert blob_id(data, object_format) == git(repo, "hash-object", str(tmp_path / "f"))


def test_missing_final_newline_is_a_visible_change(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/a.py": b"x = 1\n"}])

    report = check_source(repo, "HEAD", {"pkg/a.py": b"x = 1"})

    (entry,) = report.files
    assert entry.status is SourceStatus.MISMATCH
    assert "\\ No newline at end of file" in (entry.diff or "")
    assert (entry.added, entry.removed) == (1, 1)


def test_file_added_after_the_commit_is_absent_there(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    parent, child = make_repo(repo, [PKG_V1, {"pkg/new.py": b"NEW = True\n"}])
    wheel = {**PKG_V1, "pkg/new.py": b"NEW = True\n"}

    at_parent = check_source(repo, parent, wheel)
    at_child = check_source(repo, child, wheel)

    new = at_parent.file("pkg/new.py")
    assert new is not None
    assert (new.status, new.repo_blob, new.diff, new.added) == (
        SourceStatus.ABSENT,
        None,
        None,
        None,
    )
    assert at_parent.counts()["match"] == 3
    assert at_child.ok


def test_working_tree_edits_are_ignored_and_left_alone(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [PKG_V1])
    patched = b"def step():\n    return 42\n"
    (repo / "pkg/engine.py").write_bytes(patched)
    status_before = git(repo, "status", "--porcelain")
    index_before = (repo / ".git/index").stat().st_mtime_ns

    report = check_source(repo, "HEAD", {"pkg/engine.py": patched})

    assert report.files[0].status is SourceStatus.MISMATCH
    assert (repo / ".git/index").stat().st_mtime_ns == index_before
    assert git(repo, "status", "--porcelain") == status_before == "M pkg/engine.py"


def test_environment_cannot_redirect_git_to_another_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, other = tmp_path / "repo", tmp_path / "other"
    make_repo(repo, [PKG_V1])
    make_repo(other, [{"pkg/engine.py": b"other\n"}])
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))

    assert check_source(repo, "HEAD", PKG_V1).ok


# --- prefix detection ----------------------------------------------------------------------


def test_prefix_goes_where_most_files_exist_not_to_a_stray_copy(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    stray = {"pkg/utils.py": PKG_V1["pkg/utils.py"]}  # one identical copy at the root
    make_repo(repo, [{**stray, **under("python/", PKG_V1)}])

    report = check_source(repo, "HEAD", PKG_V1)

    assert (report.prefix, report.ok) == ("python/", True)


def test_deeper_prefix_is_detected(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [under("projects/python/", PKG_V1)])

    assert check_source(repo, "HEAD", PKG_V1).prefix == "projects/python/"


def test_prefix_ties_break_on_depth_then_name_never_on_content() -> None:
    wheel = {"pkg/a.py": "b1"}
    with pytest.raises(SourceError, match="under 'x/' and 'y/', which hold different versions"):
        detect_prefix({"x/pkg/a.py": "other", "y/pkg/a.py": "b1"}, wheel)
    assert detect_prefix({"src/pkg/a.py": "b1", "pkg/a.py": "b1"}, wheel) == ""
    assert detect_prefix({"b/pkg/a.py": "b1", "a/pkg/a.py": "b1"}, wheel) == "a/"
    assert detect_prefix({"elsewhere.py": "b1"}, wheel) == ""


def test_given_prefix_overrides_detection(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{**under("python/", PKG_V1), **under("src/", PKG_V1)}])

    given = check_source(repo, "HEAD", PKG_V1, prefix="/src")
    wrong = check_source(repo, "HEAD", PKG_V1, prefix="docs")

    assert (given.prefix, given.prefix_detected, given.ok) == ("src/", False, True)
    assert wrong.prefix == "docs/"
    assert {f.status for f in wrong.files} == {SourceStatus.ABSENT}


@pytest.mark.parametrize(
    ("typed", "normal"),
    [("", ""), ("/", ""), ("src", "src/"), ("./python/", "python/"), ("a/b", "a/b/")],
)
def test_prefix_normalization(typed: str, normal: str) -> None:
    assert normalize_prefix(typed) == normal


# --- SHA-256 repositories ------------------------------------------------------------------


def test_sha256_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    try:
        (head,) = make_repo(repo, [under("src/", PKG_V1)], object_format="sha256")
    except subprocess.CalledProcessError:
        pytest.skip("this git cannot create SHA-256 repositories")
    wheel = {**PKG_V1, "pkg/utils.py": b"X = 2\n"}

    report = check_source(repo, "HEAD", wheel)

    assert (report.object_format, report.commit, len(head)) == ("sha256", head, 64)
    utils = report.file("pkg/utils.py")
    assert utils is not None and utils.status is SourceStatus.MISMATCH
    assert utils.wheel_blob == blob_id(b"X = 2\n", "sha256") and len(utils.wheel_blob) == 64
    assert report.counts()["match"] == 2
