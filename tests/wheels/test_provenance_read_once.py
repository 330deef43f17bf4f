"""`wheels --source`: the repository, the revisions, the commit's tree and the root's build
setup are read once per run (setupstop76).

holds75 reads them before the wheels are compared, to stop on a build setup k3diff cannot read;
a run that did not stop read them all again in the source check: the repository opened twice,
each revision resolved twice and every tree of the commit walked twice (a second ``cat-file``
walk of a 20,000-file tree)."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_k3diff
from provenance.repokit import make_repo

import k3diff.provenance.buildconfig as buildconfig
import k3diff.provenance.projectstops as projectstops
import k3diff.provenance.trees as trees

from .test_provenance_backend_places import FILES

SETUPTOOLS = b'[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
PACKAGE_DIR = SETUPTOOLS + b'\n[tool.setuptools.package-dir]\n"" = "src"\n'


@pytest.mark.parametrize(
    "revision", [("--commit", "HEAD"), ("--commits", "HEAD~1..HEAD")], ids=["commit", "range"]
)
def test_a_run_reads_the_repository_and_its_root_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, revision: tuple[str, str]
) -> None:
    """One ``rev-parse --show-object-format`` (the repository opened), one ``rev-parse
    --verify`` per revision, one walk of each commit's tree and one read of the root's
    configuration, and the run passes as before."""
    tree: dict[str, bytes | None] = {"src/" + path: data for path, data in FILES.items()}
    make_repo(tmp_path / "repo", [tree, tree | {"pyproject.toml": PACKAGE_DIR}])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", {**FILES, "pkg/util.py": b""})
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", FILES)
    commands: list[tuple[str, ...]] = []
    popen = subprocess.Popen

    def recorded(args: Any, *rest: Any, **options: Any) -> Any:
        commands.append(tuple(map(str, args)))
        return popen(args, *rest, **options)

    listed: list[str] = []
    files = trees._files

    def listing(repo: Any, commit: str, *rest: Any) -> Any:
        listed.append(commit)
        return files(repo, commit, *rest)

    roots: list[str] = []
    read = buildconfig.read_package_dirs

    def root_read(git: Any, tree: Any, links: Any = (), directory: str = "") -> Any:
        roots.append(directory)
        return read(git, tree, links, directory)

    monkeypatch.setattr(subprocess, "Popen", recorded)
    monkeypatch.setattr(trees, "_files", listing)
    for module in ("lookup", "setupstop"):
        monkeypatch.setattr(f"k3diff.provenance.{module}.read_package_dirs", root_read)

    result = run_k3diff("wheels", base, patch, "--source", tmp_path / "repo", *revision)

    assert result.exit_code == 0, result.stdout + result.stderr
    git = [c[c.index("-C") + 2 :] for c in commands if "--no-replace-objects" in c]
    opened = [command for command in git if "--show-object-format" in command]
    resolved = Counter(command[-1] for command in git if command[:2] == ("rev-parse", "--verify"))
    assert len(opened) == 1, opened
    assert resolved and max(resolved.values()) == 1, resolved
    assert listed and len(listed) == len(set(listed)), listed
    assert roots == [""]


def test_a_prefix_run_reads_the_builds_above_the_place_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``--source-prefix`` the build setups of the projects at and above the place were
    read before the wheels were compared (the stops) and again in the source check (the files
    CMake installs over the package): a few ``cat-file`` reads of each project's build files,
    twice. Once now, and the run passes as before."""
    tree: dict[str, bytes | None] = {"src/" + path: data for path, data in FILES.items()}
    make_repo(tmp_path / "repo", [tree | {"pyproject.toml": PACKAGE_DIR}])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", {**FILES, "pkg/util.py": b""})
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", FILES)
    projects: list[str] = []
    placed = projectstops.cmake_placed

    def counted(git: Any, tree: Any, links: Any, project: str) -> Any:
        projects.append(project)
        return placed(git, tree, links, project)

    for module in ("lookup", "setupstop"):
        monkeypatch.setattr(f"k3diff.provenance.{module}.cmake_placed", counted)
    given = ("--commit", "HEAD", "--source-prefix", "src/")

    result = run_k3diff("wheels", base, patch, "--source", tmp_path / "repo", *given)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert projects == [""]
