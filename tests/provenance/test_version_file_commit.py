"""A generated version module's commit id is the commit the source check compares with.

prov71 held `__commit_id__` to git's node form, leaving its value to the stated-commit reader
(W408); that reader reads a top-level package's module only (`engine/_version.py`), so a module
the configuration places deeper (`engine/sub/_version.py`) stating another commit passed
`generated`, exit 0 (review71a). The template check now holds it to the commit compared with,
or, with `--commits OLD..NEW`, to one of the range's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json

from provenance.repokit import make_repo
from provenance.versiontemplates import scm_module, scm_pyproject

PYPROJECT = scm_pyproject("src/engine/sub/_version.py")
FILES = {"engine/__init__.py": b"", "engine/sub/__init__.py": b"", "engine/core.py": b"STEP = 2\n"}


def _run(tmp_path: Path, stated: str, *where: str) -> tuple[int, dict[str, Any], list[str]]:
    """Commits A, B and C (C changes only a README); the patch, built from B, with its
    `engine/sub/_version.py` stating the commit `stated` picks ('a', 'b' or 'c')."""
    sources = {
        "pyproject.toml": PYPROJECT,
        ".gitignore": b"src/engine/sub/_version.py\n",
        "src/engine/__init__.py": b"",
        "src/engine/sub/__init__.py": b"",
        "src/engine/core.py": b"STEP = 1\n",
    }
    commits = make_repo(
        tmp_path / "repo", [sources, {"src/engine/core.py": b"STEP = 2\n"}, {"README": b"x\n"}]
    )
    node = dict(zip("abc", commits, strict=True))[stated][:9]
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", {**FILES, "engine/core.py": b""})
    module = scm_module("1.0", node=f"g{node}")
    patch = wheelkit.make_wheel(
        tmp_path / "p", "engine", "1.0", {**FILES, "engine/sub/_version.py": module}
    )
    args = [a.format(*commits) for a in where]
    code, report = run_json("wheels", base, patch, "--source", tmp_path / "repo", *args)
    return code, report, commits


def _entry(report: dict[str, Any]) -> dict[str, Any]:
    (entry,) = [e for e in report["entries"] if e["path"] == "engine/sub/_version.py"]
    source: dict[str, Any] = entry["source"]
    return source


def _errors(report: dict[str, Any]) -> dict[str, str]:
    return {f["code"]: f["detail"] for f in report["findings"] if f["severity"] == "error"}


@pytest.mark.parametrize(
    ("where", "said"),
    [
        (("--commit", "{1}"), "not the source commit"),
        (("--commits", "{1}..{2}"), "not a commit of the range"),
    ],
)
def test_a_nested_module_stating_another_commit_is_not_what_the_build_wrote(
    tmp_path: Path, where: tuple[str, ...], said: str
) -> None:
    code, report, commits = _run(tmp_path, "a", *where)

    assert code == 1
    assert _entry(report)["status"] == "absent"
    ((finding, detail),) = _errors(report).items()
    assert finding == "W402"
    assert detail.endswith(f"__commit_id__ is 'g{commits[0][:9]}', {said}")


@pytest.mark.parametrize(
    ("stated", "where"),
    [
        ("b", ("--commit", "{1}")),
        ("b", ("--commits", "{0}..{2}")),
        ("c", ("--commits", "{0}..{2}")),
    ],
)
def test_a_nested_module_stating_the_commit_compared_with_passes(
    tmp_path: Path, stated: str, where: tuple[str, ...]
) -> None:
    code, report, _commits = _run(tmp_path, stated, *where)

    assert code == 0, _errors(report)
    assert _entry(report)["status"] == "generated"
