"""`wheels --source`: the build setup of every project above the package's own (review76a).

A root ``setup.py`` with ``package_dir={"": "python"}`` builds ``python/pkg/`` while
``python/`` holds a configuration file of its own (a linter's ``setup.cfg``, a ``pyproject.toml``
of tool settings). With ``--source-prefix python/`` only ``python/``'s setup was read: the root's
``setup.py`` running CMake, its backend of its own, or its scikit-build-core's
``install(FILES fixes/auth.py DESTINATION pkg/sub)`` was never said, and a wheel keeping the old
``pkg/sub/auth.py`` matched, exit 0 (without the prefix the root stopped the run, or had the file
compared with CMake's copy). Without the prefix a project between the root and the package's
(``a/setup.py`` over ``a/b/pkg/``) was not read either.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from provenance.repokit import commit_gitlink, make_repo

from .test_provenance_backend_places import FILES, REVERTED, SAFE
from .test_provenance_backends import HATCHLING, _placed, _sources
from .test_provenance_cmake_install import INSTALL_FIX, SKBUILD, TOP
from .test_provenance_cmake_unread import SETUP_PY as SRC_SETUP_PY
from .test_provenance_setuppy_cmake import BUILD_EXT, CMAKE, RUNS, SETUP, SETUPTOOLS

RUNS_CMAKE = BUILD_EXT + RUNS["a list (vLLM)"] + SETUP
SETUP_PY = SRC_SETUP_PY.replace(b'{"": "src"}', b'{"": "b"}')
STRAY = {
    "a setup.cfg of a linter": ("setup.cfg", b"[flake8]\nmax-line-length = 100\n"),
    "a pyproject.toml of tool settings": ("pyproject.toml", b"[tool.ruff]\nline-length = 100\n"),
}


def _run(tmp_path: Path, tree: dict[str, bytes | None], *given: str) -> tuple[int, str]:
    make_repo(tmp_path / "repo", [tree])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)
    args = ("--commit", "HEAD", "--source-all", *given)
    result = run_k3diff("wheels", base, patch, "--source", tmp_path / "repo", *args)
    return result.exit_code, result.stderr


@pytest.mark.parametrize("stray", list(STRAY.values()), ids=list(STRAY))
def test_with_source_prefix_a_root_setup_py_running_cmake_stops_the_check(
    tmp_path: Path, stray: tuple[str, bytes]
) -> None:
    setup_py = RUNS_CMAKE.replace(b'{"": "src"}', b'{"": "python"}')
    tree = {
        **_placed(REVERTED, "python/pkg/"),
        "setup.py": setup_py,
        "pyproject.toml": SETUPTOOLS,
        "CMakeLists.txt": CMAKE,
        "fixes/auth.py": SAFE,
        f"python/{stray[0]}": stray[1],
    }

    code, said = _run(tmp_path, tree, "--source-prefix", "python/")

    assert code == 2
    assert "/repo: setup.py runs CMake (line 11), whose CMake installs files" in said


def test_with_source_prefix_a_root_backend_of_its_own_stops_the_check(tmp_path: Path) -> None:
    tree = {
        **_placed(REVERTED, "python/pkg/"),
        "pyproject.toml": SETUPTOOLS + b'backend-path = ["."]\n',
        "python/setup.cfg": STRAY["a setup.cfg of a linter"][1],
    }

    code, said = _run(tmp_path, tree, "--source-prefix", "python/")

    assert code == 2
    assert "pyproject.toml builds with its own backend 'setuptools.build_meta'" in said


def test_with_source_prefix_a_root_scikit_build_cmake_install_is_compared(tmp_path: Path) -> None:
    """The root's CMake installs ``fixes/auth.py`` as ``pkg/sub/auth.py``: compared with it."""
    packages = b'[tool.scikit-build]\nwheel.packages = ["python/pkg"]\n'
    tree = {
        **_placed(REVERTED, "python/pkg/"),
        "pyproject.toml": SKBUILD + packages,
        "CMakeLists.txt": TOP + INSTALL_FIX,
        "fixes/auth.py": SAFE,
        "python/setup.cfg": STRAY["a setup.cfg of a linter"][1],
    }
    make_repo(tmp_path / "repo", [tree])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)
    given = ("--source-prefix", "python/", "--source-all")

    code, report = run_json(
        "wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD", *given
    )

    assert code == 1
    assert _sources(report)["pkg/sub/auth.py"] == ("mismatch", "fixes/auth.py")


@pytest.mark.parametrize("given", [(), ("--source-prefix", "a/b/")], ids=["", "prefix"])
def test_a_project_between_the_root_and_the_packages_running_cmake_stops_the_check(
    tmp_path: Path, given: tuple[str, ...]
) -> None:
    tree = {
        **_placed(REVERTED, "a/b/pkg/"),
        "a/setup.py": RUNS_CMAKE.replace(b'{"": "src"}', b'{"": "b"}'),
        "a/CMakeLists.txt": CMAKE,
        "a/fixes/auth.py": SAFE,
        "a/b/setup.cfg": STRAY["a setup.cfg of a linter"][1],
    }

    code, said = _run(tmp_path, tree, *given)

    assert code == 2
    assert "a/setup.py runs CMake (line 11), whose CMake installs files" in said


@pytest.mark.parametrize("given", [(), ("--source-prefix", "a/b/")], ids=["", "prefix"])
def test_a_project_between_importing_a_module_of_a_submodule_stops_the_check(
    tmp_path: Path, given: tuple[str, ...]
) -> None:
    """``a/setup.py`` imports ``tools.cm``, ``a/tools`` a submodule (gitlink) whose files
    k3diff does not read (submod77: exit 0 without the prefix)."""
    tree = {
        **_placed(REVERTED, "a/b/pkg/"),
        "a/setup.py": b"from setuptools import setup\nimport tools.cm\n" + SETUP_PY,
        "a/CMakeLists.txt": CMAKE,
        "a/b/setup.cfg": STRAY["a setup.cfg of a linter"][1],
    }
    make_repo(tmp_path / "repo", [tree])
    commit_gitlink(tmp_path / "repo", "a/tools")
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)
    args = ("--commit", "HEAD", "--source-all", *given)

    result = run_k3diff("wheels", base, patch, "--source", tmp_path / "repo", *args)

    assert (result.exit_code, result.stdout) == (2, ""), result.stdout
    said = "a/tools/__init__.py, which setup.py imports, is under the symbolic link or submodule"
    assert f"{said} a/tools, not read" in result.stderr


def test_too_many_projects_above_the_package_stop_the_check(tmp_path: Path) -> None:
    """Each project above is read, its configuration and CMake files: 100 nested ones, each a
    256 KiB ``pyproject.toml`` and ``setup.py``, took 9 s; past 4 the run stops."""
    tree: dict[str, bytes | None] = {}
    for depth in range(1, 6):
        tree["d/" * depth + "setup.cfg"] = b"[metadata]\nname = x\n"
    tree |= _placed(REVERTED, "d/" * 5 + "pkg/")

    code, said = _run(tmp_path, tree, "--source-prefix", "d/" * 5)

    assert code == 2
    assert "5 projects (directories holding a pyproject.toml, setup.cfg or setup.py)" in said


@pytest.mark.parametrize("given", [(), ("--source-prefix", "python/")], ids=["", "prefix"])
def test_projects_above_building_no_cmake_leave_the_check_as_it_was(
    tmp_path: Path, given: tuple[str, ...]
) -> None:
    """SGLang's shape, a root of tool settings over ``python/pyproject.toml``, and a root
    ``setup.py`` running no CMake, still check the package: the wheel matches, exit 0."""
    hatch = HATCHLING + b'[tool.hatch.build.targets.wheel]\npackages = ["pkg"]\n'
    for n, root in enumerate([b"[tool.ruff]\nline-length = 100\n", SETUPTOOLS]):
        tree = {
            **_placed(REVERTED, "python/pkg/"),
            "pyproject.toml": root,
            "python/pyproject.toml": hatch,
        }
        if n:
            tree["setup.py"] = b'from setuptools import setup\nsetup(name="other")\n'
        make_repo(tmp_path / str(n) / "repo", [tree])
        base = wheelkit.make_wheel(tmp_path / str(n) / "b", "pkg", "1.0", FILES)
        patch = wheelkit.make_wheel(tmp_path / str(n) / "p", "pkg", "1.0", REVERTED)
        repo = tmp_path / str(n) / "repo"

        result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD", *given)

        assert result.exit_code == 0, result.stdout + result.stderr
