"""Source provenance as the reviewer reads it: the JSON shape, the text and Markdown renderings
(capped diffs, fences that outlast the diff's backticks), unusual file names, bare repositories."""

from __future__ import annotations

import json
from pathlib import Path

import wheelkit
from cli_support import run_json

from k3diff.documents.provenance import provenance_json
from k3diff.provenance.check import (
    SourceStatus,
    check_source,
    check_source_range,
)
from k3diff.provenance.git import blob_id
from k3diff.report.provenance import (
    PROVENANCE_HEADER,
    provenance_rows,
    render_provenance_markdown,
    render_provenance_text,
)

from .provenance_support import PKG_V1, git, make_repo, under

# --- rendering -----------------------------------------------------------------------------


def test_json_shape(linear: tuple[Path, list[str]]) -> None:
    repo, (c0, _c1, c2, _c3, c4) = linear
    report = check_source_range(repo, f"{c0}..HEAD", {"pkg/engine.py": b"ENGINE = 1\n"})

    data = json.loads(json.dumps(provenance_json(report)))

    assert (
        data
        == {
            "repo": str(repo),
            "rev": None,
            "range": f"{c0}..HEAD",
            "commit": c4,
            "old_commit": c0,
            "head_commit": None,  # a range's: the W401 step needs HEAD only for one commit
            "object_format": "sha1",
            "prefix": "src/",
            "prefix_detected": True,
            "prefix_from": None,
            "package_dir": {},
            "package_dir_unread": None,
            "commits_examined": 5,
            "revisions": [
                {
                    "given": c0,
                    "commit": c0,
                    "ref": None,
                    "ref_target": None,
                    "ref_target_type": None,
                },
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
                    "generated_by": None,
                }
            ],
        }
    )


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


def test_a_file_differing_from_the_commit_only_in_line_endings_says_so(tmp_path: Path) -> None:
    """A Windows checkout's build: its diff against the commit removed and added every line
    again, identical on screen, under `(+2 -2 lines)` (review67). It is still W401 (its bytes
    differ), said as line endings only, not diffed."""
    files = {"pkg/__init__.py": b"", "pkg/a.py": b"A = 1\nB = 2\n"}
    repo = tmp_path / "repo"
    make_repo(repo, [files])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", {**files, "pkg/a.py": b"A = 0\n"})
    crlf = {**files, "pkg/a.py": b"A = 1\r\nB = 2\r\n"}
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", crlf)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    (w401,) = [f for f in report["findings"] if f["code"] == "W401"]
    assert w401["detail"] == (
        "differs from pkg/a.py at the source commit; line endings only (CRLF against LF): not "
        "diffed line by line"
    )
    (entry,) = [e for e in report["entries"] if e["path"] == "pkg/a.py"]
    assert (entry["source"]["status"], entry["source"]["diff"]) == ("mismatch", None)
