"""Blob reads are bounded: a file over the text-diff cap is compared by blob id only.

Sizes come from object headers (``cat-file --batch-check``) before anything is read; a file over
the cap on either side is reported "too large to diff" and never held whole, in the repository
or in the wheel. (`scripts/bench_provenance_big_blob.py` measures the 1 GiB case.)
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import wheelkit
from cli_support import run_k3diff

from k3diff.provenance.blobs import StreamedFile
from k3diff.provenance.check import SourceStatus, check_source
from provenance.repokit import git, make_repo

BIG = 40 << 20
"""Over the 32 MiB default cap."""


def _commit_with_blob(repo: Path, path: str, data: bytes) -> str:
    """A commit on top of HEAD whose `path` holds `data`, written without a working tree."""
    oid = git(repo, "hash-object", "-w", "--stdin", stdin=data)
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{oid},{path}")
    tree = git(repo, "write-tree")
    return git(repo, "commit-tree", tree, "-p", "HEAD", "-m", "big")


def test_a_huge_file_at_the_commit_is_compared_by_id_and_never_read(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 1\n"}])
    big = _commit_with_blob(repo, "pkg/__init__.py", b"X = 1\n" * (BIG // 6))
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", {"pkg/__init__.py": b""})
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", "1.0", {"pkg/__init__.py": b"X = 2\n"})

    tracemalloc.start()
    try:
        result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", big,
                            "--format", "json")  # fmt: skip
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert (result.exit_code, result.stderr) == (1, "")
    (entry,) = [e for e in json.loads(result.stdout)["entries"] if "source" in e]
    assert entry["source"]["status"] == "mismatch"
    assert entry["source"]["diff"] is None
    assert entry["source"]["diff_skipped"].startswith(
        f"too large to diff ({BIG // 6 * 6:,} bytes at the commit, 6 in the wheel"
    )
    (finding,) = [f for f in json.loads(result.stdout)["findings"] if f["code"] == "W401"]
    assert "too large to diff" in finding["detail"]
    assert peak < 20 << 20  # the 40 MiB blob never entered this process


def test_the_cap_applies_to_either_side_and_the_text_report_says_so(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/a.py": b"A = 1\n" * 50, "pkg/b.py": b"B = 1\n"}])
    wheel = {"pkg/a.py": b"A = 2\n", "pkg/b.py": b"B = 2\n" * 50}

    report = check_source(repo, "HEAD", wheel, diff_cap=100)

    assert [(f.status, f.diff) for f in report.files] == [(SourceStatus.MISMATCH, None)] * 2
    assert report.files[0].diff_skipped == (
        "too large to diff (300 bytes at the commit, 6 in the wheel; the cap is 100)"
    )
    assert report.files[1].diff_skipped == (
        "too large to diff (6 bytes at the commit, 300 in the wheel; the cap is 100)"
    )


def test_a_huge_wheel_file_is_streamed_for_its_blob_id(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    content = b"Y = 1\n" * 1000
    make_repo(repo, [{"pkg/y.py": content}])
    chunks = [content[i : i + 600] for i in range(0, len(content), 600)]

    same = check_source(repo, "HEAD", {"pkg/y.py": StreamedFile(len(content), lambda: chunks)})
    other = check_source(
        repo, "HEAD", {"pkg/y.py": StreamedFile(len(content), lambda: [b"Z" * len(content)])}
    )

    assert same.ok
    assert other.files[0].status is SourceStatus.MISMATCH
    assert other.files[0].diff_skipped is not None and other.files[0].diff is None


def test_a_wheel_entry_over_the_cap_matches_by_id_without_being_held(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    content = b"Z = 0\n" * (BIG // 6)
    make_repo(repo, [{"pkg/__init__.py": b"", "pkg/table.py": content}])
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", {"pkg/__init__.py": b""})
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", "1.0",
                                {"pkg/__init__.py": b"", "pkg/table.py": content})  # fmt: skip
    del content

    tracemalloc.start()
    try:
        result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD",
                            "--format", "json")  # fmt: skip
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert (result.exit_code, result.stderr) == (0, "")
    (entry,) = [e for e in json.loads(result.stdout)["entries"] if "source" in e]
    assert entry["source"]["status"] == "match"
    assert peak < 20 << 20  # nor the 40 MiB wheel file
