"""A wheels document whose patch states a commit (W408) that the reviewer's clone lacks: `report`
cannot check that W408 again there, and says so (prov69). It said the document "does not follow
from the wheels given with it", naming the W408 detail as the field that differs, as if the
wheels had changed: the clone had not fetched the commit, nothing else differed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff
from provenance.repokit import commit, git, make_repo

V1 = {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 1\n"}
V2 = {"pkg/engine.py": b"STEP = 2\n"}


@pytest.fixture
def made(tmp_path: Path) -> tuple[list[str], str, str]:
    """origin: main (V1, then V2) and branch side (a doc), the patch stating side's commit;
    `w.json` written by `wheels --source origin --commit main` (W408)."""
    origin = tmp_path / "origin"
    make_repo(origin, [V1, V2])
    git(origin, "checkout", "-q", "-b", "side")
    side = commit(origin, {"doc.txt": b"d\n"}, "side only")
    git(origin, "checkout", "-q", "main")
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", {**V1, "pkg/engine.py": b"S=0\n"})
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", f"1.0+g{side[:9]}", {**V1, **V2})
    wheels = [str(base), str(patch)]
    result = run_k3diff(
        "wheels", *wheels, "--source", origin, "--commit", "main", "--format", "json",
        "-o", tmp_path / "w.json",
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    document = json.loads((tmp_path / "w.json").read_text())
    assert [f["code"] for f in document["findings"] if f["severity"] == "error"] == ["W408"]
    return wheels, side, str(origin)


def test_a_clone_lacking_the_stated_commit_is_said_to_lack_it(
    tmp_path: Path, made: tuple[list[str], str, str]
) -> None:
    wheels, side, origin = made
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-local", "--single-branch", "-b", "main", origin, "clone")

    result = run_k3diff("report", tmp_path / "w.json", *wheels, clone, "--out", tmp_path / "out")

    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "does not follow" not in result.stderr
    assert f"which the document found as {side} in the repository it was made in" in result.stderr
    assert f"the repository given ({clone}) does not hold that commit" in result.stderr
    assert f"git fetch REMOTE {side}" in result.stderr


def test_once_fetched_the_document_follows(
    tmp_path: Path, made: tuple[list[str], str, str]
) -> None:
    wheels, _side, origin = made
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-local", "--single-branch", "-b", "main", origin, "clone")
    git(clone, "fetch", "-q", "origin", "side")

    result = run_k3diff("report", tmp_path / "w.json", *wheels, clone, "--out", tmp_path / "out")

    assert result.exit_code == 1, result.stderr  # the W408 stands, checked again
    assert "W408" in (tmp_path / "out" / "REPORT.md").read_text()
