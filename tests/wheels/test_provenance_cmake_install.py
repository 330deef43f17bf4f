"""`wheels --source`: the Python files a scikit-build-core build's CMake installs (src72).

scikit-build-core runs ``cmake --install`` into the wheel first and copies a package's file
only where CMake left none, so ``install(FILES fixes/auth.py DESTINATION pkg/sub)`` ships
``fixes/auth.py`` as ``pkg/sub/auth.py`` over ``src/pkg/sub/auth.py`` (a real build,
scikit-build-core 1.1.2, CMake 3.25: the wheel held the fix). k3diff compared the old
``src/pkg/sub/auth.py`` that ``wheel.packages`` names: a wheel reverting to it matched, exit 0,
and the wheel the commit builds failed W401. A literal top-level ``install(FILES …)`` of the
top ``CMakeLists.txt`` is now read like a force-include entry; any other ``install()`` that is
not of built targets (``DIRECTORY``, ``CODE``, a variable, a condition, another CMake file)
stops the check, exit 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from provenance.repokit import make_repo

from .test_provenance_backend_places import FILES, REVERTED, SAFE

SKBUILD = (
    b'[build-system]\nrequires = ["scikit-build-core"]\n'
    b'build-backend = "scikit_build_core.build"\n\n[project]\nname = "pkg"\nversion = "1.0"\n\n'
)
PACKAGES = b'[tool.scikit-build]\nwheel.packages = ["src/pkg"]\n'
TOP = b"cmake_minimum_required(VERSION 3.15)\nproject(pkg LANGUAGES CXX)\n"
INSTALL_FIX = b"install(FILES fixes/auth.py DESTINATION pkg/sub)\n"
TARGETS = b"install(TARGETS _core LIBRARY DESTINATION ${SKBUILD_PROJECT_NAME})\n"


def _repo(tmp_path: Path, pyproject: bytes, cmake: bytes, **more: bytes) -> Path:
    tree: dict[str, bytes | None] = {
        "src/pkg/" + path.removeprefix("pkg/"): data for path, data in REVERTED.items()
    }
    tree |= {"fixes/auth.py": SAFE, "pyproject.toml": pyproject, "CMakeLists.txt": cmake}
    make_repo(tmp_path / "repo", [tree | more])
    return tmp_path / "repo"


def _stopped(tmp_path: Path, pyproject: bytes, cmake: bytes, **more: bytes) -> str:
    """The one line k3diff stops with (exit 2, nothing on stdout) for a wheel reverting
    ``pkg/sub/auth.py`` to the package's old file."""
    return _stopped_at(tmp_path, _repo(tmp_path, pyproject, cmake, **more), REVERTED)


def _stopped_at(tmp_path: Path, repo: Path, shipped: dict[str, bytes]) -> str:
    """The one line k3diff stops with checking a wheel of `shipped` files against `repo`."""
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", shipped)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "k3diff wheels BUILT RELEASED" in result.stderr
    return result.stderr


def _check(tmp_path: Path, repo: Path, patch_files: dict[str, bytes]) -> tuple[int, dict[str, Any]]:
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", {**FILES, "pkg/util.py": b""})
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", patch_files)
    return run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD", "--source-all")


@pytest.mark.parametrize("packages", [True, False], ids=["wheel.packages", "by name"])
def test_a_wheel_reverting_a_file_cmake_installs_over_the_package_does_not_pass(
    tmp_path: Path, packages: bool
) -> None:
    pyproject = SKBUILD + (PACKAGES if packages else b"")
    repo = _repo(tmp_path, pyproject, TOP + TARGETS + INSTALL_FIX)

    code, report = _check(tmp_path, repo, REVERTED)

    assert code == 1
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/sub/auth.py"]["status"] == "mismatch"
    assert sources["pkg/sub/auth.py"]["repo_path"] == "fixes/auth.py"
    assert sources["pkg/util.py"]["status"] == "match"


def test_the_wheel_the_commit_builds_matches(tmp_path: Path) -> None:
    repo = _repo(tmp_path, SKBUILD + PACKAGES, TOP + INSTALL_FIX)

    code, report = _check(tmp_path, repo, FILES)

    assert code == 0
    assert report["provenance"]["package_dir"] == {
        "pkg/": "src/pkg/",
        "pkg/sub/auth.py": "fixes/auth.py",
    }
    assert "CMakeLists.txt install()" in report["provenance"]["prefix_from"]


def test_wheel_install_dir_places_what_cmake_installs(tmp_path: Path) -> None:
    pyproject = SKBUILD + PACKAGES + b'wheel.install-dir = "pkg"\n'
    repo = _repo(tmp_path, pyproject, TOP + b"install(FILES fixes/auth.py DESTINATION sub)\n")

    code, report = _check(tmp_path, repo, REVERTED)

    assert code == 1
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/sub/auth.py"]["repo_path"] == "fixes/auth.py"


UNREAD = {
    "directory": (b"install(DIRECTORY fixes/ DESTINATION pkg/sub)\n", "install(DIRECTORY"),
    "variable": (b"install(FILES ${FIX} DESTINATION pkg/sub)\n", "install(FILES"),
    "condition": (b"if(FIXED)\n  " + INSTALL_FIX + b"endif()\n", "CMakeLists.txt line 4"),
    "after return": (b"return()\n" + INSTALL_FIX, "CMakeLists.txt line 4"),
    "after a conditional return": (  # review72a: read, while a real build returned first
        b"if(DEFINED SKBUILD)\n  return()\nendif()\n" + INSTALL_FIX,
        "CMakeLists.txt line 6",
    ),
    "code": (b'install(CODE "file(COPY_FILE a b)")\n', "install(CODE"),
}


@pytest.mark.parametrize("case", sorted(UNREAD))
def test_an_install_k3diff_does_not_read_stops_the_check(tmp_path: Path, case: str) -> None:
    """`if(FIXED)` read as installing would compare the fix while a build without FIXED
    ships the old file, and the reverse: neither place is known."""
    cmake, said = UNREAD[case]

    assert said in _stopped(tmp_path, SKBUILD + PACKAGES, TOP + cmake)


def test_an_install_in_another_cmake_file_stops_the_check(tmp_path: Path) -> None:
    repo = _repo(
        tmp_path,
        SKBUILD + PACKAGES,
        TOP + b"add_subdirectory(fixes)\n",
        **{"fixes/CMakeLists.txt": b"install(FILES auth.py DESTINATION pkg/sub)\n"},
    )
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 2
    assert "fixes/CMakeLists.txt line 1: install(FILES" in result.stderr


def test_installs_of_built_targets_leave_the_packages_read(tmp_path: Path) -> None:
    """pybind11 and nanobind projects install their extension module alone."""
    cmake = TOP + b"# install(FILES fixes/auth.py DESTINATION pkg/sub)\n" + TARGETS
    repo = _repo(tmp_path, SKBUILD + PACKAGES, cmake)

    code, report = _check(tmp_path, repo, REVERTED)

    assert code == 0
    assert report["provenance"]["package_dir"] == {"pkg/": "src/pkg/"}


def test_another_backend_does_not_read_cmake(tmp_path: Path) -> None:
    pyproject = SKBUILD.replace(b"scikit_build_core.build", b"hatchling.build").replace(
        b"scikit-build-core", b"hatchling"
    )
    pyproject += b'[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n'
    repo = _repo(tmp_path, pyproject, TOP + b"install(DIRECTORY fixes/ DESTINATION pkg/sub)\n")

    code, report = _check(tmp_path, repo, REVERTED)

    assert code == 0
    assert report["provenance"]["package_dir"] == {"pkg/": "src/pkg/"}


def test_installs_of_files_that_are_not_python_leave_the_packages_read(tmp_path: Path) -> None:
    """A vendored library's headers, under a condition, in its own CMake file: no file the
    source check compares, wherever they go."""
    vendored = (
        b"if(FMT_INSTALL)\n  install(FILES fmt.h core.h DESTINATION ${INCLUDE_DIR})\nendif()\n"
    )
    repo = _repo(
        tmp_path,
        SKBUILD + PACKAGES,
        TOP + b"add_subdirectory(third_party/fmt)\n" + TARGETS,
        **{"third_party/fmt/CMakeLists.txt": vendored},
    )

    code, report = _check(tmp_path, repo, REVERTED)

    assert code == 0
    assert report["provenance"]["package_dir"] == {"pkg/": "src/pkg/"}


def test_with_source_prefix_what_cmake_installs_is_still_compared_with_its_place(
    tmp_path: Path,
) -> None:
    """src73: with ``--source-prefix src/`` no CMake was read, the old ``src/pkg/sub/auth.py``
    was compared, and the wheel reverting to it matched, exit 0."""
    repo = _repo(tmp_path, SKBUILD + PACKAGES, TOP + INSTALL_FIX)
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)
    given = ("--source-prefix", "src/", "--source-all")

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD", *given)

    assert code == 1
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/sub/auth.py"]["repo_path"] == "fixes/auth.py"
    assert sources["pkg/sub/auth.py"]["status"] == "mismatch"
    assert sources["pkg/util.py"]["repo_path"] == "src/pkg/util.py"


def test_with_source_prefix_an_install_k3diff_does_not_read_stops_the_check(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path, SKBUILD + PACKAGES, TOP + b"install(DIRECTORY fixes/ DESTINATION pkg)\n")
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)

    result = run_k3diff(
        "wheels", base, patch, "--source", repo, "--commit", "HEAD", "--source-prefix", "src/"
    )

    assert result.exit_code == 2, result.stdout
    assert "CMakeLists.txt line 3: install(DIRECTORY …)" in result.stderr
    assert "k3diff wheels BUILT RELEASED" in result.stderr
