"""`wheels --source`: a hostile pyproject.toml costs a bounded parse (review70a).

A dotted key of n parts costs `tomllib` n²/2 references, held until the next table header: a
32 KiB line `x.x.x…y = 1` took 1 GB and 3 s, a 256 KiB one (within the 256 KiB cap on a
configuration file) would take some 64 GB. A key lies on one line, so a pyproject.toml with a
line of over 128 dots is not read: the run stops, as for any pyproject.toml not read (cmake77).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_json, run_k3diff
from provenance.repokit import make_repo

from .test_provenance_backends import FILES, HATCHLING, _placed, _sources, _wheels


def test_a_pyproject_with_a_key_of_too_many_parts_is_not_parsed(tmp_path: Path) -> None:
    """It is not parsed, and, not read, it no longer leaves detection to decide (cmake77): it
    may name a backend running CMake over the package, so the run stops, exit 2 (before, the
    Prefix line said it was not read and the check went on)."""
    key = ".".join(["x"] * 130) + " = 1\n"
    pyproject = HATCHLING + b'[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n'
    repo = tmp_path / "repo"
    make_repo(repo, [{**_placed(FILES, "src/pkg/"), "pyproject.toml": pyproject + key.encode()}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert (result.exit_code, result.stdout) == (2, "")
    assert len(result.stderr.splitlines()) == 1
    assert "pyproject.toml has a line of over 128 dots, not read: how the project builds is " in (
        result.stderr
    )


def test_a_pyproject_whose_lines_hold_few_dots_each_is_read(tmp_path: Path) -> None:
    """The cap is per line: as many dots spread over lines (a long dependency list) is read."""
    deps = "".join(f'  "dep{i}>=1.2.3",\n' for i in range(100))
    pyproject = (
        HATCHLING
        + f"[project]\nname = 'pkg'\ndependencies = [\n{deps}]\n".encode()
        + b'[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n'
    )
    repo = tmp_path / "repo"
    make_repo(repo, [{**_placed(FILES, "src/pkg/"), "pyproject.toml": pyproject}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert report["provenance"]["package_dir"] == {"pkg/": "src/pkg/"}


@pytest.mark.parametrize("backend", ['["setuptools.build_meta"]', "{ a = 1 }"])
def test_a_build_backend_that_is_not_a_string_is_no_backend(tmp_path: Path, backend: str) -> None:
    """`build-backend = [...]`, which no frontend builds with, was looked up among setuptools'
    backends (a list is unhashable): an internal error (fuzz70). setuptools' statement beside it
    is not read, and said; the file the patch changed is still checked, and fails."""
    pyproject = f"[build-system]\nbuild-backend = {backend}\n\n".encode() + (
        b'[tool.setuptools.package-dir]\npkg = "src/pkg"\n'
    )
    repo = tmp_path / "repo"
    make_repo(repo, [{**_placed(FILES, "src/pkg/"), "pyproject.toml": pyproject}])
    base, patch = _wheels(tmp_path, {**FILES, "pkg/util.py": b"X = 2\n"})

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 1
    assert _sources(report) == {"pkg/util.py": ("mismatch", "src/pkg/util.py")}
    assert report["provenance"]["package_dir_unread"] == (
        "pyproject.toml [tool.setuptools.package-dir] is setuptools', but pyproject.toml builds "
        "with a build-backend that is not a string: not read"
    )
