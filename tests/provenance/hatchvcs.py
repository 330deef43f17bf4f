"""The `engine` project built by hatchling with hatch-vcs writing its version file, for the
version-file tests (stop 72's D4/D5: each test module built it alike)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_json

from provenance.repokit import make_repo
from provenance.versiontemplates import SCM_10, scm_module

HATCH_VCS_PYPROJECT = b"""\
[build-system]
requires = ["hatchling", "hatch-vcs"]
build-backend = "hatchling.build"

[project]
name = "engine"
dynamic = ["version"]
"""
"""pyproject.toml's head: the backend and a version hatch-vcs states; the tests add its
``[tool.hatch]`` tables (or a ``hatch.toml``)."""


def hatch_vcs_check(tmp_path: Path, files: dict[str, bytes]) -> tuple[int, dict[str, Any]]:
    """Commit A (`files` over the package's ``__init__.py`` and ``core.py``) and B (``core.py``
    changed); the 1.0 build of A and a build of B at the version hatch-vcs states for it,
    shipping the ``_version.py`` it writes, checked against B."""
    sources = {"src/engine/__init__.py": b"", "src/engine/core.py": b"STEP = 1\n", **files}
    _a, b = make_repo(tmp_path / "repo", [sources, {"src/engine/core.py": b"STEP = 2\n"}])
    version = f"1.1.dev1+g{b[:9]}"
    init = {"engine/__init__.py": b""}
    base = wheelkit.make_wheel(
        tmp_path / "base", "engine", "1.0", init | {"engine/core.py": b"STEP = 1\n"}
    )
    patch_files = init | {
        "engine/core.py": b"STEP = 2\n",
        "engine/_version.py": scm_module(version, SCM_10, f"g{b[:9]}"),
    }
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", version, patch_files)
    return run_json("wheels", base, patch, "--source", tmp_path / "repo", "--commit", b)
