"""Only the configuration of the build that made the wheel names the module it writes (review70c).

prov70c read, for each file, the configuration nearest it, and every hatch-vcs `hooks.vcs` table
as written: a vendored project's own `pyproject.toml` or `setup.cfg` inside the package made a
module the patch added there `generated`; a hook disabled by `enable-by-default = false`, or the
build's `hooks.vcs` where the wheel target's replaces it, named a file the build never wrote.
Each passed, exit 0; each is now compared with the commit, W402.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_json

from provenance.hatchvcs import HATCH_VCS_PYPROJECT, hatch_vcs_check
from provenance.repokit import make_repo
from provenance.versiontemplates import SCM_6, scm_module, versioneer_module

ROOT_PYPROJECT = b"""\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "engine"
version = "1.1"
"""
VENDORED_SCM = b"""\
[build-system]
requires = ["setuptools>=64", "setuptools-scm>=8"]

[tool.setuptools_scm]
version_file = "_version.py"
"""
VENDORED_VERSIONEER = (
    b"[versioneer]\nVCS = git\nversionfile_build = engine/_vendor/tomlish/_version.py\n"
)


@pytest.mark.parametrize(
    ("name", "config", "module"),
    [
        ("pyproject.toml", VENDORED_SCM, scm_module("1.1", SCM_6)),
        ("setup.cfg", VENDORED_VERSIONEER, versioneer_module("1.1", None)),
    ],
)
def test_only_the_configuration_that_builds_the_wheel_names_a_written_file(
    tmp_path: Path, name: str, config: bytes, module: bytes
) -> None:
    """The root's pyproject.toml builds the wheel (setuptools, no version tool); a vendored
    project inside the package holds a configuration of its own that names a version module.
    That build never ran: a module the patch adds there is compared with the commit, W402
    (it was `generated`, exit 0, read from the configuration nearest the file)."""
    vendored = "src/engine/_vendor/tomlish/"
    sources = {
        "pyproject.toml": ROOT_PYPROJECT,
        "src/engine/__init__.py": b"",
        "src/engine/core.py": b"STEP = 1\n",
        f"{vendored}__init__.py": b"",
        f"{vendored}{name}": config,
        f"{vendored}versioneer.py": b"# versioneer 0.29\n",
    }
    _a, b = make_repo(tmp_path / "repo", [sources, {"src/engine/core.py": b"STEP = 2\n"}])
    files = {"engine/__init__.py": b"", "engine/_vendor/tomlish/__init__.py": b""}
    base = wheelkit.make_wheel(
        tmp_path / "base", "engine", "1.0", files | {"engine/core.py": b"STEP = 1\n"}
    )
    patch_files = files | {
        "engine/core.py": b"STEP = 2\n",
        "engine/_vendor/tomlish/_version.py": module,
    }
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.1", patch_files)

    code, report = run_json("wheels", base, patch, "--source", tmp_path / "repo", "--commit", b)

    assert code == 1
    (entry,) = [e for e in report["entries"] if e["path"] == "engine/_vendor/tomlish/_version.py"]
    assert entry["source"]["status"] == "absent"
    assert entry["source"]["generated_by"] is None
    failing = [(f["code"], f["path"]) for f in report["findings"] if f["severity"] == "error"]
    assert failing == [("W402", "engine/_vendor/tomlish/_version.py")]


HATCH_HEAD = HATCH_VCS_PYPROJECT + (
    b'\n[tool.hatch.version]\nsource = "vcs"\n\n'
    b'[tool.hatch.build.targets.wheel]\npackages = ["src/engine"]\n'
)


@pytest.mark.parametrize(
    "hooks",
    [
        b'[tool.hatch.build.hooks.vcs]\nversion-file = "src/engine/_version.py"\n'
        b"enable-by-default = false\n",
        b'[tool.hatch.build.hooks.vcs]\nversion-file = "src/engine/_version.py"\n'
        b'[tool.hatch.build.targets.wheel.hooks.vcs]\nversion-file = "src/engine/_wheel.py"\n',
    ],
    ids=["disabled", "replaced-by-the-wheel-target"],
)
def test_a_hatch_vcs_hook_the_wheel_build_does_not_run_names_no_file(
    tmp_path: Path, hooks: bytes
) -> None:
    code, report = hatch_vcs_check(tmp_path, {"pyproject.toml": HATCH_HEAD + hooks})

    assert code == 1
    (entry,) = [e for e in report["entries"] if e["path"] == "engine/_version.py"]
    assert (entry["source"]["status"], entry["source"]["generated_by"]) == ("absent", None)
    failing = [(f["code"], f["path"]) for f in report["findings"] if f["severity"] == "error"]
    assert failing == [("W402", "engine/_version.py")]


def test_the_wheel_target_s_hatch_vcs_version_file_is_generated(tmp_path: Path) -> None:
    """The wheel target's own `hooks.vcs` is the one the wheel build runs."""
    hooks = b'[tool.hatch.build.targets.wheel.hooks.vcs]\nversion-file = "src/engine/_version.py"\n'
    code, report = hatch_vcs_check(tmp_path, {"pyproject.toml": HATCH_HEAD + hooks})

    assert code == 0
    (entry,) = [e for e in report["entries"] if e["path"] == "engine/_version.py"]
    assert entry["source"]["generated_by"] == (
        "hatch-vcs (pyproject.toml [tool.hatch.build.targets.wheel.hooks.vcs] version-file)"
    )
