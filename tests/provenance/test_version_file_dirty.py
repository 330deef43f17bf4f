"""A generated versioneer module deeper than a top-level package's says a dirty build.

versioneer's `version_json` says `"dirty": true` where the work tree had uncommitted changes,
which its `pep440-pre` and `pep440-old` styles leave out of the version. The stated-commit
reader, whose `"dirty": true` is W411, reads a top-level package's module only, so a module the
configuration places deeper (`engine/sub/_version.py`) saying so passed `generated`, exit 0
(prov71b). The template check now holds it to `"dirty": false`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json

from provenance.repokit import make_repo
from provenance.versiontemplates import versioneer_module

SETUP_CFG = b"""\
[metadata]
name = engine

[versioneer]
VCS = git
style = pep440-pre
versionfile_source = src/engine/sub/_version.py
versionfile_build = engine/sub/_version.py
"""
FILES = {"engine/__init__.py": b"", "engine/sub/__init__.py": b"", "engine/core.py": b"STEP = 2\n"}


def _run(tmp_path: Path, dirty: bool) -> tuple[int, dict[str, Any]]:
    sources = {
        "setup.cfg": SETUP_CFG,
        "setup.py": b"import versioneer\n",
        "versioneer.py": b"# versioneer 0.29\n",
        "src/engine/__init__.py": b"",
        "src/engine/sub/__init__.py": b"",
        "src/engine/sub/_version.py": b"def get_versions():\n    return {}\n",
        "src/engine/core.py": b"STEP = 2\n",
    }
    (commit,) = make_repo(tmp_path / "repo", [sources])
    module = versioneer_module("1.0", commit, dirty=dirty)
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", {**FILES, "engine/core.py": b""})
    patch = wheelkit.make_wheel(
        tmp_path / "p", "engine", "1.0", {**FILES, "engine/sub/_version.py": module}
    )
    return run_json("wheels", base, patch, "--source", tmp_path / "repo", "--commit", commit)


def _source(report: dict[str, Any]) -> dict[str, Any]:
    (entry,) = [e for e in report["entries"] if e["path"] == "engine/sub/_version.py"]
    source: dict[str, Any] = entry["source"]
    return source


@pytest.mark.parametrize("dirty", [True, False], ids=["dirty", "clean"])
def test_a_nested_versioneer_module_of_a_dirty_build_does_not_pass(
    tmp_path: Path, dirty: bool
) -> None:
    code, report = _run(tmp_path, dirty)

    errors = {f["code"]: f["detail"] for f in report["findings"] if f["severity"] == "error"}
    if not dirty:
        assert (code, errors, _source(report)["status"]) == (0, {}, "generated")
        return
    assert code == 1
    assert _source(report)["status"] == "mismatch"
    assert errors["W401"].endswith('version_json "dirty" is true, not false: a dirty build')
