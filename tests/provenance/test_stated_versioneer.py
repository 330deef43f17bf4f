"""versioneer's `_version.py` states the commit and the work tree's state (prov70).

versioneer's build replaces the package's `_version.py` with a short form holding one JSON
object, `version_json`: `full-revisionid` (the full commit id) and `dirty` (the work tree had
uncommitted changes). Only its default styles put `.dirty` in the version: `pep440-pre`
(`1.0.post0.dev4`) and `pep440-old` (`1.0.post4.dev0`) drop the hash, `pep440-post`
(`1.0.post4.dev0+g1a2b3c4`) says dirty with a `.dev0` that `pep440-post-branch` uses for "not
on master". A dirty build of the commit compared passed, exit 0, and a `full-revisionid` naming
another commit was no W408: the JSON was not read. It is read as text (`ast`, then `json`), never
imported; `"dirty": true` is W411 as `.dirty` is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff

from provenance.repokit import make_repo

A_FILES = {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 1\n"}


def versioneer_module(version: str, revision: str | None, dirty: bool | None) -> bytes:
    """`_version.py` as versioneer's build writes it: the JSON dumped with sorted keys and an
    indent of 1, in a triple-quoted string ending in its `# END VERSION_JSON` marker."""
    blob = json.dumps(
        {
            "date": "2026-12-01T10:00:00+0000",
            "dirty": dirty,
            "error": None,
            "full-revisionid": revision,
            "version": version,
        },
        sort_keys=True,
        indent=1,
        separators=(",", ": "),
    )
    return (
        f"\nimport json\n\nversion_json = '''\n{blob}\n'''  # END VERSION_JSON\n\n\n"
        "def get_versions():\n    return json.loads(version_json)\n"
    ).encode()


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    """Commit A (STEP = 1), then B (STEP = 2)."""
    path = tmp_path / "repo"
    a, b = make_repo(path, [A_FILES, {"pkg/engine.py": b"STEP = 2\n"}])
    return path, a, b


def _pair(tmp_path: Path, version: str, module: bytes) -> tuple[Path, Path]:
    """Two builds of one version holding the same `_version.py` (so it is not among the
    changed files checked): the base with STEP = 0, the patch with commit A's files."""
    files = {"pkg/_version.py": module}
    base_files = {**files, "pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 0\n"}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", version, base_files)
    return base, wheelkit.make_wheel(tmp_path / "patch", "engine", version, {**A_FILES, **files})


def _failing(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["path"]) for f in report["findings"] if f["severity"] == "error"]


@pytest.mark.parametrize(
    "version",
    [
        "1.0.post0.dev4",  # pep440-pre: no hash, no dirty flag
        "1.0.post4.dev0",  # pep440-old: .dev0 for dirty, no hash
        "1.0.post4.dev0+g{short}",  # pep440-post: .dev0 for dirty (or not master: -branch)
        "1.0",  # a Version patched by hand
    ],
)
def test_a_dirty_versioneer_build_of_the_commit_compared_does_not_pass(
    repo: tuple[Path, str, str], tmp_path: Path, version: str
) -> None:
    path, a, _b = repo
    version = version.format(short=a[:7])
    wheels = _pair(tmp_path, version, versioneer_module(version, a, dirty=True))

    code, report = run_json("wheels", *wheels, "--source", path, "--commit", a)

    assert code == 1, report["findings"]
    assert _failing(report) == [("W411", "pkg/_version.py")]
    (finding,) = [f for f in report["findings"] if f["code"] == "W411"]
    assert finding["detail"].startswith(
        f"the patch wheel states commit {a} (read from pkg/_version.py version_json "
        "full-revisionid; a dirty build: the work tree had uncommitted changes): its files "
        "need not be that commit's"
    )  # newuser70: the dirty build was said twice
    stated = report["patch"]["stated_commits"]
    module = {"commit": a, "path": "pkg/_version.py", "field": "version_json full-revisionid"}
    assert {**module, "dirty": True} in stated
    # pep440-post's .dev0 is not read as dirty: versioneer's pep440-post-branch uses it for "not
    # on master", and any tool for a genuine dev release.
    assert not any(s["dirty"] for s in stated if s["path"] != "pkg/_version.py")
    waived = run_k3diff("wheels", *wheels, "--source", path, "--commit", a, "--ignore", "W411")
    assert waived.exit_code == 0, waived.stdout


def test_a_dirty_versioneer_build_stating_no_commit_does_not_pass(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    """`"dirty": true` with no `full-revisionid` (null) is a dirty build stating no commit."""
    path, a, _b = repo
    wheels = _pair(tmp_path, "1.0.post0.dev4", versioneer_module("1.0.post0.dev4", None, True))

    code, report = run_json("wheels", *wheels, "--source", path, "--commit", a)

    assert code == 1
    assert report["patch"]["stated_commits"] == []
    assert _failing(report) == [("W411", "pkg/_version.py")]
    (finding,) = [f for f in report["findings"] if f["code"] == "W411"]
    assert finding["detail"].startswith(
        'the patch wheel\'s "dirty": true (read from pkg/_version.py version_json) marks a '
        "dirty build and states no commit: built from a work tree with uncommitted changes"
    )


def test_a_clean_versioneer_build_is_held_to_its_full_revisionid(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    """A clean build stating commit B, compared with A (whose files it holds), is W408; the
    same build compared with its own commit's files passes."""
    path, a, b = repo
    wheels = _pair(tmp_path, "1.0.post1.dev0", versioneer_module("1.0.post1.dev0", b, False))

    code, report = run_json("wheels", *wheels, "--source", path, "--commit", a)

    assert code == 1
    assert _failing(report) == [("W408", "pkg/_version.py")]
    (finding,) = [f for f in report["findings"] if f["code"] == "W408"]
    assert finding["detail"] == (
        f"the patch wheel states commit {b} (read from pkg/_version.py version_json "
        f"full-revisionid); compared against {a}"
    )  # newuser70: a full id stated was said twice, `which is` the same
    clean = _pair(tmp_path / "a", "1.0", versioneer_module("1.0", a, False))
    assert run_json("wheels", *clean, "--source", path, "--commit", a)[0] == 0


def test_two_statements_that_disagree_are_each_held_to_the_commit(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    """The version says A (`+g<A>`), `_version.py` says B: each distinct commit stated is
    held to the commit compared, so the one that is not A is W408 (the rule for every place a
    wheel states its commit), whichever of the two is compared."""
    path, a, b = repo
    version = f"1.0.post1+g{a[:7]}"
    wheels = _pair(tmp_path, version, versioneer_module(version, b, False))

    code, report = run_json("wheels", *wheels, "--source", path, "--commit", a)

    assert code == 1
    assert _failing(report) == [("W408", "pkg/_version.py")]
    code, report = run_json("wheels", *wheels, "--source", path, "--commit", b)
    assert {path for code, path in _failing(report) if code == "W408"} == {
        f"engine-{version}.dist-info/METADATA"
    }
