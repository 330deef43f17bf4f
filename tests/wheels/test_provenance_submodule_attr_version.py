"""`wheels --source --commit`: an ``attr:`` version whose module is in a git submodule.

``[tool.setuptools.dynamic] version = {attr = "pkg.vendored.VERSION"}`` (setup.cfg's
``[metadata] version = attr: …``) with ``pkg/vendored`` a submodule: setuptools reads
``pkg/vendored/__init__.py`` from the submodule's checkout, another repository's file k3diff
does not read. source78 said a version file there not proven (W413), but the ``attr:`` reader
looked only at the commit's own blobs and said "not checked: the commit holds no module",
exit 0, whatever METADATA said (review78f). Now W413, exit 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff
from provenance.repokit import commit_gitlink, make_repo

from .test_provenance_submodule_version import FILES, SCM

PLAIN = SCM.replace(b', "setuptools-scm"', b"") + b'[tool.setuptools]\npackages = ["pkg"]\n'
SHAPES = {
    "pyproject.toml attr": {
        "pyproject.toml": PLAIN
        + b'[tool.setuptools.dynamic]\nversion = {attr = "pkg.vendored.VERSION"}\n'
    },
    "setup.cfg attr:": {
        "pyproject.toml": PLAIN,
        "setup.cfg": b"[metadata]\nname = pkg\nversion = attr: pkg.vendored.VERSION\n",
    },
}


@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_an_attr_version_in_a_submodule_is_not_proven(tmp_path: Path, shape: str) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{**SHAPES[shape], **FILES}])
    commit_gitlink(repo, "pkg/vendored")
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "9.9", FILES)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    said = result.stdout + result.stderr
    assert result.exit_code == 1, said
    assert "W413" in said
    assert "builds the version pkg/vendored/__init__.py states, which is in the submodule" in said
