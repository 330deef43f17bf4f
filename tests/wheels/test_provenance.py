"""Source provenance: is each Python file of a wheel the file git holds at a commit or range?

Every test builds a real repository in tmp_path with fixed author and committer dates, so commit
ids are the same on every run, then checks `files` dicts (wheel path -> bytes) against it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from k3diff.documents.provenance import provenance_json
from k3diff.errors import NestedRepositoryError, SourceError
from k3diff.provenance.check import (
    SourceStatus,
    check_source,
    check_source_range,
    detect_prefix,
    normalize_prefix,
)
from k3diff.provenance.git import blob_id
from k3diff.report.provenance import (
    PROVENANCE_HEADER,
    provenance_rows,
    render_provenance_markdown,
    render_provenance_text,
)

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


def test_prefix_ties_break_on_matches_then_depth_then_name() -> None:
    wheel = {"pkg/a.py": "b1"}
    assert detect_prefix({"x/pkg/a.py": "other", "y/pkg/a.py": "b1"}, wheel) == "y/"
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


# --- ranges --------------------------------------------------------------------------------


@pytest.fixture
def linear(tmp_path: Path) -> tuple[Path, list[str]]:
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
    with pytest.raises(SourceError, match=f"^{re.escape(str(plain))}: not a git repository"):
        check_source(plain, "HEAD", PKG_V1)
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


# --- rendering -----------------------------------------------------------------------------


def test_json_shape(linear: tuple[Path, list[str]]) -> None:
    repo, (c0, _c1, c2, _c3, c4) = linear
    report = check_source_range(repo, f"{c0}..HEAD", {"pkg/engine.py": b"ENGINE = 1\n"})

    data = json.loads(json.dumps(provenance_json(report)))

    assert data == {
        "repo": str(repo),
        "rev": None,
        "range": f"{c0}..HEAD",
        "commit": c4,
        "old_commit": c0,
        "object_format": "sha1",
        "prefix": "src/",
        "prefix_detected": True,
        "commits_examined": 5,
        "revisions": [
            {"given": c0, "commit": c0, "ref": None, "ref_target": None, "ref_target_type": None},
            {
                "given": "HEAD",
                "commit": c4,
                "ref": "refs/heads/main",
                "ref_target": None,
                "ref_target_type": None,
            },
        ],
        "notes": [],
        "summary": {"match": 0, "mismatch": 0, "absent": 0, "stale": 1},
        "files": [
            {
                "path": "pkg/engine.py",
                "repo_path": "src/pkg/engine.py",
                "status": "stale",
                "wheel_blob": blob_id(b"ENGINE = 1\n", "sha1"),
                "repo_blob": blob_id(b"ENGINE = 2\n", "sha1"),
                "matched_commit": c2,
                "diff": (
                    f"--- a/src/pkg/engine.py@{c4[:12]}\n+++ b/pkg/engine.py\n"
                    "@@ -1 +1 @@\n-ENGINE = 2\n+ENGINE = 1\n"
                ),
                "added": 1,
                "removed": 1,
                "diff_skipped": None,
            }
        ],
    }


def test_rows_and_text_report_cap_long_diffs(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (head,) = make_repo(repo, [under("python/", PKG_V1)])
    long_file = b"".join(b"line %d\n" % n for n in range(100))
    wheel = {**PKG_V1, "pkg/engine.py": long_file, "pkg/extra.py": b""}
    report = check_source(repo, "HEAD", wheel)

    assert PROVENANCE_HEADER == ("path", "status", "commit", "+/-")
    assert provenance_rows(report) == [
        ["pkg/__init__.py", "match", head[:12], ""],
        ["pkg/engine.py", "mismatch", "-", "+100/-2"],
        ["pkg/extra.py", "absent", "-", ""],
        ["pkg/utils.py", "match", head[:12], ""],
    ]
    text = render_provenance_text(report, diff_cap_lines=10)
    assert f"Source: {repo}, sha1 object ids\nCommit: {head} (HEAD: refs/heads/main)\n" in text
    assert "Prefix: python/ (detected)" in text
    assert "Files: 2 match, 1 mismatch, 1 absent, 0 stale" in text
    assert "pkg/engine.py: mismatch, +100/-2" in text
    assert "… 95 more lines, see --format json" in text
    assert "+line 4\n… 95 more lines" in text and "line 5" not in text


def test_markdown_report(linear: tuple[Path, list[str]]) -> None:
    repo, (c0, _c1, c2, *_rest) = linear
    wheel = {"pkg/engine.py": b"ENGINE = 1\n", "pkg/__init__.py": b""}
    report = check_source_range(repo, f"{c0}..HEAD", wheel)

    markdown = render_provenance_markdown(report)

    assert "| path" in markdown and "| `pkg/__init__.py` | match" in markdown
    assert f"| `pkg/engine.py`   | stale    | {c2[:12]} | +1/-1 |" in markdown
    assert f"#### `pkg/engine.py`: stale, +1/-1; the wheel matches {c2[:12]}" in markdown
    assert "```diff\n--- a/src/pkg/engine.py@" in markdown
    assert "more lines" not in markdown


def test_unusual_file_names_survive_ls_tree_and_diff_tree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    name = "pkg/naïve module\twith tab.py"
    c0, c1, _c2 = make_repo(repo, [PKG_V1, {name: b"A = 1\n"}, {name: b"A = 2\n"}])

    report = check_source_range(repo, f"{c0}..HEAD", {name: b"A = 1\n"})

    (entry,) = report.files
    assert (entry.repo_path, entry.status, entry.matched_commit) == (name, SourceStatus.STALE, c1)


def test_bare_repository(linear: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo, (*_rest, c4) = linear
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))

    report = check_source(bare, "main", {"pkg/new.py": b"NEW = 1\n"})

    assert (report.ok, report.commit, report.prefix) == (True, c4, "src/")


def test_no_files_is_an_empty_report(linear: tuple[Path, list[str]]) -> None:
    repo, _ids = linear

    report = check_source(repo, "HEAD", {})

    assert (report.files, report.ok, report.prefix) == ((), True, "")
    assert "No files checked." in render_provenance_text(report)
    assert "No files checked." in render_provenance_markdown(report)


def test_markdown_fence_outlasts_backticks_in_the_diff(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/doc.py": b'"""Example:\n\n```\nx\n```\n"""\n'}])
    wheel = {"pkg/doc.py": b'"""Example:\n\n```\ny\n```\n"""\n'}

    markdown = render_provenance_markdown(check_source(repo, "HEAD", wheel))

    assert "````diff\n--- a/pkg/doc.py@" in markdown
    assert markdown.rstrip().endswith("````")


def test_a_version_seen_twice_names_its_newest_commit(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    v1, v2, v3 = b"V = 1\n", b"V = 2\n", b"V = 3\n"
    c0, _c1, _c2, c3, _c4 = make_repo(
        repo,
        [
            {"pkg/v.py": v1},
            {"pkg/v.py": v2},
            {"pkg/v.py": v1},
            {"README": b"x\n"},
            {"pkg/v.py": v3},
        ],
    )

    report = check_source_range(repo, f"{c0}..HEAD", {"pkg/v.py": v1})

    assert (report.files[0].status, report.files[0].matched_commit) == (SourceStatus.STALE, c3)
