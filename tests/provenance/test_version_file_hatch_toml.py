"""hatch-vcs' version file named in `hatch.toml` is read as hatchling reads it (src72).

hatchling reads `hatch.toml` beside `pyproject.toml`, each of its tables in place of
`[tool.hatch]`'s of the same name, and the layout reader did so (review71d), but the version
module reader read `pyproject.toml` alone: a real build (hatchling 1.33, hatch-vcs 0.5) of a
project whose `hatch.toml` holds `[build.hooks.vcs] version-file = "src/pkg/_version.py"` wrote
that module, and `--source` failed it W402 (absent), exit 1; and where `hatch.toml`'s `[build]`
replaced a `pyproject.toml` hook, a module the build does not write passed `generated`.
"""

from __future__ import annotations

from pathlib import Path

import wheelkit
from cli_support import run_json

from provenance.repokit import make_repo
from provenance.versiontemplates import SCM_10, scm_module

PYPROJECT = b"""\
[build-system]
requires = ["hatchling", "hatch-vcs"]
build-backend = "hatchling.build"

[project]
name = "engine"
dynamic = ["version"]
"""
HOOK = b'[version]\nsource = "vcs"\n\n[build.hooks.vcs]\nversion-file = "src/engine/_version.py"\n'
PACKAGES = b'\n[build.targets.wheel]\npackages = ["src/engine"]\n'
SOURCES = {
    ".gitignore": b"src/engine/_version.py\n",
    "src/engine/__init__.py": b"from engine._version import __version__\n",
    "src/engine/core.py": b"STEP = 1\n",
}


def _check(tmp_path: Path, files: dict[str, bytes]) -> tuple[int, dict[str, object]]:
    """Commits A and B (B changes `core.py`); the patch wheel built from B, checked against B."""
    _a, b = make_repo(tmp_path / "repo", [{**SOURCES, **files}, {"src/engine/core.py": b"S=2\n"}])
    version = f"1.1.dev1+g{b[:9]}"
    init = SOURCES["src/engine/__init__.py"]
    base_files = {"engine/__init__.py": init, "engine/core.py": b"STEP = 1\n"}
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", base_files)
    patch_files = {
        "engine/__init__.py": init,
        "engine/core.py": b"S=2\n",
        "engine/_version.py": scm_module(version, SCM_10, None),
    }
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", version, patch_files)
    return run_json("wheels", base, patch, "--source", tmp_path / "repo", "--commit", b)


def _version_source(report: dict[str, object]) -> dict[str, object]:
    entries = report["entries"]
    assert isinstance(entries, list)
    (entry,) = [e for e in entries if e["path"] == "engine/_version.py"]
    source: dict[str, object] = entry["source"]
    return source


def test_a_version_file_hatch_toml_names_is_generated(tmp_path: Path) -> None:
    code, report = _check(tmp_path, {"pyproject.toml": PYPROJECT, "hatch.toml": HOOK + PACKAGES})

    assert code == 0, report["findings"]
    source = _version_source(report)
    assert source["status"] == "generated"
    assert source["generated_by"] == (
        "hatch-vcs (pyproject.toml and hatch.toml [tool.hatch.build.hooks.vcs] version-file)"
    )


def test_hatch_tomls_build_table_replaces_pyprojects_hook(tmp_path: Path) -> None:
    """hatchling takes `hatch.toml`'s `[build]` whole: the `pyproject.toml` hook does not run."""
    pyproject = (
        PYPROJECT + b'\n[tool.hatch.build.hooks.vcs]\nversion-file = "src/engine/_version.py"\n'
    )
    hatch = b'[version]\nsource = "vcs"\n' + PACKAGES

    code, report = _check(tmp_path, {"pyproject.toml": pyproject, "hatch.toml": hatch})

    assert code == 1
    assert _version_source(report)["status"] == "absent"


def test_a_hatch_toml_that_is_not_toml_names_no_version_file(tmp_path: Path) -> None:
    code, report = _check(
        tmp_path, {"pyproject.toml": PYPROJECT, "hatch.toml": HOOK + PACKAGES + b"[[[\n"}
    )

    assert code == 1
    assert _version_source(report)["status"] == "absent"


def test_a_pyproject_with_a_key_of_too_many_parts_names_no_version_file(tmp_path: Path) -> None:
    """The version module reader parsed `pyproject.toml` without the layout reader's cap on
    dots a line holds: a 16,000-part key took 1.5 GB and 5 s (src72)."""
    key = ".".join(["x"] * 130) + " = 1\n"
    pyproject = PYPROJECT + b"\n[tool.hatch.build.hooks.vcs]\n"
    pyproject += b'version-file = "src/engine/_version.py"\n\n[tool.hatch.build.targets.wheel]\n'
    pyproject += b'packages = ["src/engine"]\n\n[tool.more]\n' + key.encode()

    code, report = _check(tmp_path, {"pyproject.toml": pyproject})

    assert code == 1
    assert _version_source(report)["status"] == "absent"
