"""`wheels --source`: the wheel's content never chooses where in the repository its package is.

The prefix used to be detected over the checked (changed or added) files alone, ties broken on
"most files match": a patch that changed one file to the bytes of an old copy kept elsewhere in
the repository had that copy taken as the package, `match`, exit 0 (review67). Detection now
counts the base wheel's Python files, then the patch's, and stops (exit 2) when places that hold
as many of them disagree on a checked file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_json, run_k3diff
from provenance.repokit import make_repo

SAFE = b"import hmac\n\ndef check(token, secret):\n    return hmac.compare_digest(token, secret)\n"
OLD = b"def check(token, secret):\n    return True  # 0.9, before the fix\n"
FILES = {"pkg/__init__.py": b"", "pkg/auth.py": SAFE, "pkg/util.py": b"X = 1\n"}


def _under(prefix: str, files: dict[str, bytes]) -> dict[str, bytes | None]:
    return {prefix + path: data for path, data in files.items()}


def _wheels(tmp_path: Path, patch_files: dict[str, bytes]) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", patch_files)
    return base, patch


def _sources(report: dict[str, Any]) -> dict[str, str]:
    return {e["path"]: e["source"]["status"] for e in report["entries"] if "source" in e}


def test_a_one_file_patch_cannot_make_an_old_copy_of_that_file_the_package(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{**_under("src/", FILES), "tests/fixtures/v0_9/pkg/auth.py": OLD}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/auth.py": OLD})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert report["provenance"]["prefix"] == "src/"
    assert _sources(report) == {"pkg/auth.py": "mismatch"}
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["W401"]


def test_a_full_old_copy_of_the_package_stops_detection_instead_of_choosing(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    old_copy = {**FILES, "pkg/auth.py": OLD}
    make_repo(repo, [{**_under("src/", FILES), **_under("legacy/", old_copy)}])
    base, patch = _wheels(tmp_path, old_copy)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "'legacy/' and 'src/'" in result.stderr
    assert "different versions of pkg/auth.py" in result.stderr
    assert "--source-prefix" in result.stderr
    code, report = run_json(
        "wheels", base, patch, "--source", repo, "--commit", "HEAD", "--source-prefix", "src"
    )  # fmt: skip
    assert (code, _sources(report)) == (1, {"pkg/auth.py": "mismatch"})


def test_modules_the_patch_adds_cannot_outnumber_the_package(tmp_path: Path) -> None:
    """The old copy also has a module the package dropped; the patch adds it back, so the old
    copy holds more of the patch's files than `src/` does (the base wheel's files: as many)."""
    repo = tmp_path / "repo"
    old_copy = {**FILES, "pkg/auth.py": OLD, "pkg/compat.py": b"LEGACY = True\n"}
    make_repo(repo, [{**_under("src/", FILES), **_under("legacy/", old_copy)}])
    base, patch = _wheels(tmp_path, old_copy)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commits", "HEAD..HEAD")

    assert result.exit_code == 2
    assert "'legacy/' and 'src/'" in result.stderr


def test_identical_copies_of_the_package_still_need_no_prefix(tmp_path: Path) -> None:
    """Places that hold the same version of every checked file change no verdict: the
    shallowest is taken, as before."""
    repo = tmp_path / "repo"
    changed = {**FILES, "pkg/auth.py": OLD}
    make_repo(repo, [{**_under("src/", changed), **_under("", changed)}])
    base, patch = _wheels(tmp_path, changed)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 0
    assert report["provenance"]["prefix"] == ""
    assert _sources(report) == {"pkg/auth.py": "match"}


def test_a_copy_of_one_file_is_not_the_package_when_the_package_is_shipped_renamed(
    tmp_path: Path,
) -> None:
    """setuptools' `package_dir` ships `src/pkg_impl/` as `pkg/`: no directory holds the
    package under its wheel paths, and an old copy of one file was the only candidate, taken as
    the package, and matched (prov68). A place holding fewer than most of the wheel's Python
    files is not the package: exit 2, naming --source-prefix."""
    repo = tmp_path / "repo"
    renamed = {"src/pkg_impl/" + path.removeprefix("pkg/"): data for path, data in FILES.items()}
    make_repo(repo, [{**renamed, "tests/fixtures/pkg/auth.py": OLD}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/auth.py": OLD})

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "no directory holds most of the wheel's Python files" in result.stderr
    assert "(at most 1 of 3, under 'tests/fixtures/')" in result.stderr
    assert "--source-prefix" in result.stderr


def test_a_package_missing_a_generated_module_is_still_found(tmp_path: Path) -> None:
    """Most, not all: a module the build writes (setuptools-scm's `_version.py`) is in no
    commit, and the directory holding the rest is still the package."""
    repo = tmp_path / "repo"
    make_repo(repo, [_under("src/", FILES)])
    generated = {**FILES, "pkg/_version.py": b"version = '1.0'\n"}
    base, patch = _wheels(tmp_path, {**generated, "pkg/util.py": b"X = 2\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert report["provenance"]["prefix"] == "src/"
    assert _sources(report) == {"pkg/_version.py": "absent", "pkg/util.py": "mismatch"}
