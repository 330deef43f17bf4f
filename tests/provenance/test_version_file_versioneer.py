"""versioneer's build replaces the committed `_version.py` (prov70c).

The commit holds versioneer's long form (it computes the version at import); the build writes
the short form, `version_json` and `get_versions()`, into the wheel at `versionfile_build`. So
every versioneer wheel failed the source check, W401, exit 1. Where setup.cfg's `[versioneer]`
(or pyproject.toml's `[tool.versioneer]`) names that file, the wheel's is held to the short form
stating the wheel's version instead.
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

[options]
package_dir =
    = src
packages = find:

[options.packages.find]
where = src

[versioneer]
VCS = git
style = pep440
versionfile_source = src/engine/_version.py
versionfile_build = engine/_version.py
tag_prefix = v
"""
LONG_FORM = b'"""Git implementation of _version.py."""\n\ndef get_versions():\n    return {}\n'
SOURCES = {
    "setup.cfg": SETUP_CFG,
    "setup.py": b"import versioneer\n",
    "versioneer.py": b"# versioneer 0.29\n",
    "src/engine/__init__.py": b"",
    "src/engine/_version.py": LONG_FORM,
    "src/engine/core.py": b"STEP = 1\n",
}


def _run(tmp_path: Path, sources: dict[str, bytes], module: bytes | None = None) -> Any:
    """Commits A and B (STEP = 2); the base built from A at 1.0, the patch from B at
    1.0+1.g<B>, shipping `module` (versioneer's short form for B by default)."""
    repo = tmp_path / "repo"
    _a, b = make_repo(repo, [sources, {"src/engine/core.py": b"STEP = 2\n"}])
    version = f"1.0+1.g{b[:7]}"
    base_files = {
        "engine/__init__.py": b"",
        "engine/core.py": b"STEP = 1\n",
        "engine/_version.py": versioneer_module("1.0", _a),
    }
    patch_files = {
        "engine/__init__.py": b"",
        "engine/core.py": b"STEP = 2\n",
        "engine/_version.py": module or versioneer_module(version, b),
    }
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", base_files)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", version, patch_files)
    return run_json("wheels", base, patch, "--source", repo, "--commit", b), b, version


def _version_entry(report: dict[str, Any]) -> dict[str, Any]:
    (entry,) = [e for e in report["entries"] if e["path"] == "engine/_version.py"]
    source: dict[str, Any] = entry["source"]
    return source


def _failing(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["path"]) for f in report["findings"] if f["severity"] == "error"]


def test_versioneer_short_form_is_generated_not_a_mismatch(tmp_path: Path) -> None:
    (code, report), _b, _version = _run(tmp_path, SOURCES)

    assert code == 0, _failing(report)
    source = _version_entry(report)
    assert source["status"] == "generated"
    assert source["generated_by"] == "versioneer (setup.cfg [versioneer] versionfile_build)"
    assert (source["diff"], source["repo_path"]) == (None, "src/engine/_version.py")


def test_versioneer_in_pyproject_is_read_first(tmp_path: Path) -> None:
    pyproject = (
        b'[tool.versioneer]\nVCS = "git"\nstyle = "pep440"\n'
        b'versionfile_source = "src/engine/_version.py"\n'
        b'versionfile_build = "engine/_version.py"\n'
    )
    cfg = SETUP_CFG.replace(b"versionfile_build = engine/_version.py", b"versionfile_build =")
    sources = {**SOURCES, "pyproject.toml": pyproject, "setup.cfg": cfg}

    (code, report), _b, _version = _run(tmp_path, sources)

    assert code == 0, _failing(report)
    assert _version_entry(report)["generated_by"] == (
        "versioneer (pyproject.toml [tool.versioneer] versionfile_build)"
    )


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (
            "def get_versions():\n    import os\n    return json.loads(version_json)\n",
            "a function other than versioneer's get_versions (get_versions)",
        ),
        ("import os\n", "an import"),
        ("get_versions = lambda: None\n", "an assignment to get_versions"),
    ],
)
def test_versioneer_module_with_more_than_the_short_form_fails(
    tmp_path: Path, body: str, said: str
) -> None:
    """The statements are read before the version: what is not the short form is said."""
    module = versioneer_module("1.0", None) + body.encode()

    (code, report), _b, _version = _run(tmp_path, SOURCES, module)

    assert code == 1
    assert _failing(report) == [("W401", "engine/_version.py")]
    (finding,) = [f for f in report["findings"] if f["code"] == "W401"]
    assert (
        "; versioneer writes it (setup.cfg [versioneer] versionfile_build), but this "
        in (finding["detail"])
    )
    assert finding["detail"].endswith(said)


def test_versioneer_module_of_another_version_fails(tmp_path: Path) -> None:
    (code, report), _b, version = _run(tmp_path, SOURCES, versioneer_module("0.9", None))

    assert code == 1
    assert _failing(report) == [("W401", "engine/_version.py")]
    (finding,) = [f for f in report["findings"] if f["code"] == "W401"]
    assert finding["detail"].endswith(
        f"version_json \"version\" is '0.9', not the wheel's METADATA Version {version}"
    )


def test_versioneer_not_in_the_build_reads_nothing(tmp_path: Path) -> None:
    """No versioneer.py in the project and none in [build-system] requires: the section is
    left over, not what builds."""
    sources = {k: v for k, v in SOURCES.items() if k != "versioneer.py"}

    (code, report), _b, _version = _run(tmp_path, sources)

    assert code == 1
    assert _failing(report) == [("W401", "engine/_version.py")]
    assert _version_entry(report)["generated_by"] is None
