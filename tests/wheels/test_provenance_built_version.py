"""`wheels --source --commit`: the patch's METADATA Version against the version the commit builds.

A 2.4.0 wheel whose files all match a commit whose `pyproject.toml` says `version = "2.3.0"`
passed, exit 0 (stop 73): the commit does not build that wheel. Each configuration shape here
was built for real (pip wheel --no-deps --no-build-isolation of the commit, offline:
setuptools 84.2.1, setuptools-scm 10.3.4, hatchling 1.33.0, hatch-vcs 0.5.0, flit_core
4.2.0, pdm-backend 2.5.0, poetry-core 2.5.0, maturin 1.16.0, scikit-build-core 1.1.2) and
wrote the `BUILT` version into METADATA; a wheel of another version is W413 (failing), the
built one passes. A version the commit cannot state without running code or reading tag
history (setuptools-scm, hatch-vcs, a `setup.py` computing it) is said as not checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import wheelkit
from cli_support import run_json
from provenance.repokit import make_repo

from k3diff.documents.catalog import load_schema

SETUPTOOLS = b'[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
PACKAGES = b'[tool.setuptools]\npackages = ["engine"]\n'
INIT = b'"""Engine."""\n__version__ = "2.3.0"\n'
INIT_TUPLE = b'"""Engine."""\n__version__ = (2, 3)\n'

SHAPES: dict[str, tuple[dict[str, bytes], str]] = {
    "project version, setuptools": (
        {
            "pyproject.toml": SETUPTOOLS
            + b'[project]\nname = "engine"\nversion = "2.3.0"\n'
            + PACKAGES
        },
        "2.3.0",
    ),
    "project version, hatchling": (
        {
            "pyproject.toml": b'[build-system]\nrequires = ["hatchling"]\n'
            b'build-backend = "hatchling.build"\n[project]\nname = "engine"\nversion = "2.3"\n'
        },
        "2.3",
    ),
    "setuptools dynamic attr": (
        {
            "pyproject.toml": SETUPTOOLS + b'[project]\nname = "engine"\ndynamic = ["version"]\n'
            b'[tool.setuptools.dynamic]\nversion = {attr = "engine.__version__"}\n' + PACKAGES,
            "engine/__init__.py": INIT,
        },
        "2.3.0",
    ),
    "setuptools dynamic attr tuple": (
        {
            "pyproject.toml": SETUPTOOLS + b'[project]\nname = "engine"\ndynamic = ["version"]\n'
            b'[tool.setuptools.dynamic]\nversion = {attr = "engine.__version__"}\n' + PACKAGES,
            "engine/__init__.py": INIT_TUPLE,
        },
        "2.3",
    ),
    "setuptools dynamic file": (
        {
            "pyproject.toml": SETUPTOOLS + b'[project]\nname = "engine"\ndynamic = ["version"]\n'
            b'[tool.setuptools.dynamic]\nversion = {file = "VERSION"}\n' + PACKAGES,
            "VERSION": b"2.3.0\n",
        },
        "2.3.0",
    ),
    "setup.cfg attr": (
        {
            "pyproject.toml": SETUPTOOLS,
            "setup.cfg": b"[metadata]\nname = engine\nversion = attr: engine.__version__\n"
            b"[options]\npackages = engine\n",
            "engine/__init__.py": INIT,
        },
        "2.3.0",
    ),
    "setup.cfg version": (
        {
            "pyproject.toml": SETUPTOOLS,
            "setup.cfg": b"[metadata]\nname = engine\nversion = 2.3.0\n[options]\npackages = engine\n",
        },
        "2.3.0",
    ),
    "setup.py version": (
        {
            "setup.py": b'from setuptools import setup\nsetup(name="engine", version="2.3.0", packages=["engine"])\n'
        },
        "2.3.0",
    ),
    "hatch path": (
        {
            "pyproject.toml": b'[build-system]\nrequires = ["hatchling"]\n'
            b'build-backend = "hatchling.build"\n[project]\nname = "engine"\ndynamic = ["version"]\n'
            b'[tool.hatch.version]\npath = "engine/__init__.py"\n',
            "engine/__init__.py": INIT,
        },
        "2.3.0",
    ),
    "flit": (
        {
            "pyproject.toml": b'[build-system]\nrequires = ["flit_core"]\n'
            b'build-backend = "flit_core.buildapi"\n'
            b'[project]\nname = "engine"\ndynamic = ["version", "description"]\n',
            "engine/__init__.py": INIT,
        },
        "2.3.0",
    ),
    "pdm file": (
        {
            "pyproject.toml": b'[build-system]\nrequires = ["pdm-backend"]\n'
            b'build-backend = "pdm.backend"\n[project]\nname = "engine"\ndynamic = ["version"]\n'
            b'[tool.pdm.version]\nsource = "file"\npath = "engine/__init__.py"\n',
            "engine/__init__.py": INIT,
        },
        "2.3.0",
    ),
    "poetry": (
        {
            "pyproject.toml": b'[build-system]\nrequires = ["poetry-core"]\n'
            b'build-backend = "poetry.core.masonry.api"\n'
            b'[tool.poetry]\nname = "engine"\nversion = "2.3.0"\ndescription = ""\nauthors = []\n'
        },
        "2.3.0",
    ),
    "maturin Cargo.toml": (
        {
            "pyproject.toml": b'[build-system]\nrequires = ["maturin"]\nbuild-backend = "maturin"\n'
            b'[project]\nname = "engine"\ndynamic = ["version"]\n'
            b'[tool.maturin]\nbindings = "bin"\n',
            "Cargo.toml": b'[package]\nname = "engine"\nversion = "2.3.0-rc.1"\nedition = "2021"\n',
            "src/main.rs": b"fn main() {}\n",
        },
        "2.3.0rc1",
    ),
    "scikit-build-core regex": (
        {
            "pyproject.toml": b'[build-system]\nrequires = ["scikit-build-core"]\n'
            b'build-backend = "scikit_build_core.build"\n'
            b'[project]\nname = "engine"\ndynamic = ["version"]\n'
            b'[tool.scikit-build]\nwheel.packages = ["engine"]\n'
            b'[tool.scikit-build.metadata.version]\nprovider = "scikit_build_core.metadata.regex"\n'
            b'input = "engine/__init__.py"\n',
            "CMakeLists.txt": b"cmake_minimum_required(VERSION 3.15)\nproject(engine LANGUAGES NONE)\n",
            "engine/__init__.py": INIT,
        },
        "2.3.0",
    ),
}

UNCHECKED: dict[str, tuple[dict[str, bytes], str]] = {
    "setuptools-scm": (
        {
            "pyproject.toml": b'[build-system]\nrequires = ["setuptools", "setuptools-scm"]\n'
            b'build-backend = "setuptools.build_meta"\n'
            b'[project]\nname = "engine"\ndynamic = ["version"]\n[tool.setuptools_scm]\n' + PACKAGES
        },
        "setuptools-scm derives it from git tags",
    ),
    "hatch-vcs": (
        {
            "pyproject.toml": b'[build-system]\nrequires = ["hatchling", "hatch-vcs"]\n'
            b'build-backend = "hatchling.build"\n[project]\nname = "engine"\ndynamic = ["version"]\n'
            b'[tool.hatch.version]\nsource = "vcs"\n'
        },
        "hatch-vcs derives it from git tags",
    ),
    "setup.py computing it": (
        {
            "setup.py": b"from setuptools import setup\nimport time\n"
            b'setup(name="engine", version=f"2.3.{int(time.time())}", packages=["engine"])\n'
        },
        "setup() sets it by code",
    ),
    "attr of no literal": (
        {
            "pyproject.toml": SETUPTOOLS + b'[project]\nname = "engine"\ndynamic = ["version"]\n'
            b'[tool.setuptools.dynamic]\nversion = {attr = "engine.__version__"}\n' + PACKAGES,
            "engine/__init__.py": b'"""Engine."""\n__version__ = ".".join(["2", "3"])\n',
        },
        "which setuptools imports it for",
    ),
    "a pattern of the project's own": (
        {
            "pyproject.toml": b'[build-system]\nrequires = ["hatchling"]\n'
            b'build-backend = "hatchling.build"\n[project]\nname = "engine"\ndynamic = ["version"]\n'
            b'[tool.hatch.version]\npath = "engine/__init__.py"\npattern = "(a+)+$"\n'
        },
        "pattern is the project's own, not run",
    ),
    "a Cargo workspace version": (
        {
            "pyproject.toml": b'[build-system]\nrequires = ["maturin"]\nbuild-backend = "maturin"\n'
            b'[project]\nname = "engine"\ndynamic = ["version"]\n',
            "Cargo.toml": b'[package]\nname = "engine"\nversion.workspace = true\n',
        },
        "is the workspace's, which k3diff does not read",
    ),
    "a Cargo.toml of a line of dots": (
        {
            "pyproject.toml": b'[build-system]\nrequires = ["maturin"]\nbuild-backend = "maturin"\n'
            b'[project]\nname = "engine"\ndynamic = ["version"]\n',
            "Cargo.toml": b"x" + b".x" * 100_000 + b" = 1\n",
        },
        "Cargo.toml has a line of over 128 dots, not read",
    ),
    "flit's module in two places": (
        {
            "pyproject.toml": SHAPES["flit"][0]["pyproject.toml"],
            "src/engine/__init__.py": b'"""Engine."""\n__version__ = "2.4.0"\n',
        },
        "holds 2 places of the module engine",
    ),
    "no build configuration": ({}, "it holds no pyproject.toml, setup.py or setup.cfg at its root"),
}


def _wheels(tmp_path: Path, config: dict[str, bytes], version: str) -> tuple[Path, str, Path, Path]:
    """A repository of `config` and the engine package (commit B: STEP = 2), and a base and a
    patch wheel (at `version`) shipping B's files."""
    package = {"engine/__init__.py": INIT, "engine/core.py": b"STEP = 1\n", **config}
    package = {p: d for p, d in package.items() if p.startswith("engine/")}
    repo = tmp_path / "repo"
    _a, b = make_repo(repo, [{"engine/__init__.py": INIT, **config, "engine/core.py": b"STEP = 1\n"},
                              {"engine/core.py": b"STEP = 2\n"}])  # fmt: skip
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "2.2.0", package)
    patch_files = {**package, "engine/core.py": b"STEP = 2\n"}
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", version, patch_files)
    return repo, b, base, patch


def _run(tmp_path: Path, config: dict[str, bytes], version: str) -> tuple[int, dict[str, Any]]:
    repo, b, base, patch = _wheels(tmp_path, config, version)
    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", b)
    jsonschema.validate(report, load_schema("wheels"), cls=jsonschema.Draft202012Validator)
    return code, report


def _codes(report: dict[str, Any], severity: str = "error") -> list[str]:
    return [f["code"] for f in report["findings"] if f["severity"] == severity]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_wheel_of_another_version_than_the_commit_builds_fails(
    tmp_path: Path, shape: str
) -> None:
    config, _built = SHAPES[shape]
    code, report = _run(tmp_path, config, "2.4.0")
    assert code == 1
    assert _codes(report) == ["W413"]
    (finding,) = [f for f in report["findings"] if f["code"] == "W413"]
    assert "METADATA Version is 2.4.0" in finding["detail"]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_version_the_commit_builds_passes(tmp_path: Path, shape: str) -> None:
    config, built = SHAPES[shape]
    code, report = _run(tmp_path, config, built)
    assert (code, _codes(report)) == (0, [])
    notes = report["provenance"]["notes"]
    assert not [n for n in notes if "METADATA Version" in n["message"]]


def test_versions_compare_by_pep_440_not_text(tmp_path: Path) -> None:
    """``[project] version = "2.3"`` builds METADATA ``2.3``; a wheel saying ``2.3.0`` is that
    version (PEP 440), not another."""
    config, _built = SHAPES["project version, hatchling"]
    code, report = _run(tmp_path, config, "2.3.0")
    assert (code, _codes(report)) == (0, [])


@pytest.mark.parametrize("shape", sorted(UNCHECKED))
def test_a_version_the_commit_cannot_state_is_said_unchecked(tmp_path: Path, shape: str) -> None:
    config, reason = UNCHECKED[shape]
    code, report = _run(tmp_path, config, "2.4.0")
    assert (code, _codes(report)) == (0, [])
    (note,) = [n for n in report["provenance"]["notes"] if "METADATA Version" in n["message"]]
    assert note["code"] == ""
    assert "is not checked against the version commit" in note["message"]
    assert reason in note["message"]


def test_the_version_is_read_where_the_project_lives(tmp_path: Path) -> None:
    """SGLang's shape: the project in ``python/``, its ``[project] version`` read there."""
    pyproject = SHAPES["project version, hatchling"][0]["pyproject.toml"]
    files = {"engine/__init__.py": INIT, "engine/core.py": b"STEP = 2\n"}
    tree = {f"python/{path}": data for path, data in files.items()}
    repo = tmp_path / "repo"
    (b,) = make_repo(repo, [{**tree, "python/pyproject.toml": pyproject, "README": b"x\n"}])
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "2.2.0", files)
    for version, expected in (("2.3.0", []), ("2.4.0", ["W413"])):
        patch = wheelkit.make_wheel(tmp_path / version, "engine", version, files)
        code, report = run_json(
            "wheels", base, patch, "--source", repo, "--commit", b, "--source-all"
        )
        assert (code, _codes(report)) == (1 if expected else 0, expected)
    (finding,) = [f for f in report["findings"] if f["code"] == "W413"]
    assert finding["detail"].endswith("builds 2.3 (python/pyproject.toml [project] version)")


def test_an_attr_is_read_where_setuptools_reads_it_not_where_the_wheel_points(
    tmp_path: Path,
) -> None:
    """No ``package_dir``: setuptools reads ``engine.__version__`` from ``engine/__init__.py``
    (a real build wrote 2.3.0) whatever old copy the commit keeps elsewhere. A wheel of the
    ``legacy/engine/`` copy (``2.4.0``) has the layout detected there, and its version read
    there passed; it is W413 now."""
    pyproject = SHAPES["setuptools dynamic attr"][0]["pyproject.toml"]
    legacy = {
        "engine/__init__.py": b'"""Engine."""\n__version__ = "2.4.0"\n',
        "engine/core.py": b"STEP = 2\n",
        "engine/extra.py": b"EXTRA = 1\n",  # only the old copy holds it: detection goes there
    }
    tree = {
        "pyproject.toml": pyproject,
        "engine/__init__.py": INIT,
        "engine/core.py": b"STEP = 1\n",
    }
    tree |= {f"legacy/{path}": data for path, data in legacy.items()}
    repo = tmp_path / "repo"
    (b,) = make_repo(repo, [tree])
    base = wheelkit.make_wheel(
        tmp_path / "base",
        "engine",
        "2.3.0",
        {**legacy, "engine/core.py": b"STEP = 0\n"},
    )
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "2.4.0", legacy)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", b)

    assert report["provenance"]["prefix"] == "legacy/"
    assert (code, _codes(report)) == (1, ["W413"])
    (finding,) = [f for f in report["findings"] if f["code"] == "W413"]
    assert finding["detail"].endswith(
        "builds 2.3.0 (engine/__init__.py __version__ (pyproject.toml [tool.setuptools.dynamic] version attr))"
    )
