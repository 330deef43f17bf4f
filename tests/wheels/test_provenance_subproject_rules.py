"""`wheels --source`: when a subproject's configuration may stand for the root's (review70a).

prov70b let a root configuration that maps the wheel's package, but does not hold its files,
give way to detection wherever detection's place had a project file of its own: a stray
`setup.py` beside a legacy copy (`legacy/pkg/`) made the copy the package, and a patch reverting
a file to it matched, exit 0 (base70 stopped the run). A subproject's mapping that names another
package left this package at the repository's root, where setuptools looks in the subproject's
directory: a stale copy at the root was compared, exit 0. And hatchling's absolute paths, which
hatchling reads relative to the project, were not read, so detection took the legacy copy.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_json, run_k3diff
from provenance.repokit import make_repo

from .test_provenance_backends import (
    CONFIGURED,
    FILES,
    HATCHLING,
    OLD,
    REVERTED,
    TARGET,
    _legacy,
    _placed,
    _sources,
    _wheels,
)

ROOTS = {
    "hatchling": CONFIGURED["hatchling packages and a renaming source"][::2],
    "setuptools package-dir": (
        b'[tool.setuptools.package-dir]\npkg = "src/realname"\n',
        "pyproject.toml [tool.setuptools.package-dir]",
    ),
    "setuptools where": (
        b'[tool.setuptools.packages.find]\nwhere = ["src"]\n',
        "pyproject.toml [tool.setuptools.packages.find] where",
    ),
}
STRAY = {
    "setup.py": b"from setuptools import setup\nsetup()\n",
    "pyproject.toml": b'[project]\nname = "pkg-legacy"\n',
    "setup.py mapping another package": (
        b'from setuptools import setup\nsetup(package_dir={"other": "other_src"})\n'
    ),
}


@pytest.mark.parametrize("stray", sorted(STRAY))
@pytest.mark.parametrize("root", sorted(ROOTS))
def test_a_project_file_beside_a_legacy_copy_does_not_stand_for_the_root(
    tmp_path: Path, root: str, stray: str
) -> None:
    """The root's configuration maps the package to a place without its files: a legacy copy
    with a project file of its own that maps no such package is not taken instead (it was,
    and the reverted file matched, exit 0); the run stops as it did before prov70b."""
    pyproject, origin = ROOTS[root]
    repo = tmp_path / "repo"
    name = "legacy/" + stray.partition(" ")[0]
    make_repo(repo, [{**_legacy(), name: STRAY[stray], "pyproject.toml": pyproject}])
    base, patch = _wheels(tmp_path, REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert f"{origin} places the package at src/" in result.stderr
    assert "detection by paths finds them under 'legacy/'" in result.stderr


def test_a_package_a_subproject_does_not_map_is_in_its_directory(tmp_path: Path) -> None:
    """`python/setup.py` maps another package: `pkg` is built from `python/pkg/`, as
    setuptools finds it, not from a stale `pkg/` at the repository's root (compared, the
    reverted file matched, exit 0)."""
    repo = tmp_path / "repo"
    setup = b'from setuptools import setup\nsetup(packages=["pkg"], package_dir={"other": "lib"})\n'
    stale = {"pkg/__init__.py": b"", "pkg/auth.py": OLD}
    make_repo(repo, [{**_placed(FILES, "python/pkg/"), **stale, "python/setup.py": setup}])
    base, patch = _wheels(tmp_path, REVERTED)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/auth.py": ("mismatch", "python/pkg/auth.py")}
    assert (report["provenance"]["prefix"], report["provenance"]["package_dir"]) == (
        "python/",
        {"other/": "python/lib/"},
    )


def test_hatchling_paths_written_absolute_are_read_as_hatchling_reads_them(
    tmp_path: Path,
) -> None:
    """hatchling strips the leading '/' of `packages`, `only-include` and `sources`
    (`/src/realname` is the project's `src/realname`): they were not read, detection took the
    legacy copy, and the reverted file matched, exit 0."""
    sources = f'{TARGET[:-1]}.sources]\n"/src/realname/" = "/pkg/"\n'
    pyproject = HATCHLING + f'{TARGET}\nonly-include = ["/src/realname"]\n\n{sources}'.encode()
    repo = tmp_path / "repo"
    make_repo(repo, [{**_placed(FILES, "src/realname/"), **_legacy(), "pyproject.toml": pyproject}])
    base, patch = _wheels(tmp_path, REVERTED)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/auth.py": ("mismatch", "src/realname/auth.py")}
    assert report["provenance"]["package_dir"] == {"pkg/": "src/realname/"}


SUBPROJECTS = {
    "setuptools package-dir": b'[tool.setuptools.package-dir]\npkg = "realname"\n',
    "hatchling sources": (
        HATCHLING
        + f'{TARGET}\npackages = ["realname"]\n\n{TARGET[:-1]}.sources]\n'.encode()
        + b'"realname" = "pkg"\n'
    ),
}


@pytest.mark.parametrize("subproject", sorted(SUBPROJECTS))
def test_a_legacy_copy_in_no_project_is_not_the_package_of_a_subprojects_build(
    tmp_path: Path, subproject: str
) -> None:
    """No configuration at the root; SGLang's `python/pyproject.toml` maps `pkg` to
    `python/realname/`, and a complete old copy `legacy/pkg/` lies in no project: detection
    took the copy for the package, and a patch reverting a file to it matched, exit 0
    (fuzz70). Nothing at the commit builds from there, so the run stops and asks where the
    package is; named, the user's word stands."""
    repo = tmp_path / "repo"
    make_repo(
        repo,
        [{**_placed(FILES, "python/realname/"), **_legacy(), "python/pyproject.toml":
          SUBPROJECTS[subproject]}],
    )  # fmt: skip
    base, patch = _wheels(tmp_path, REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "places the package at 'legacy/', which no configuration builds" in result.stderr
    assert "while 'python/pyproject.toml' is another project's" in result.stderr
    assert "name it with --source-prefix" in result.stderr
    given = ("--source-prefix", "legacy/")  # the user's word stands
    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD", *given)
    assert code == 0
    assert _sources(report) == {"pkg/auth.py": ("match", "legacy/pkg/auth.py")}
