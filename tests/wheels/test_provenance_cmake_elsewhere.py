"""`wheels --source`: CMake that places a file in a scikit-build-core wheel without an
``install()`` k3diff reads (review72a).

Each shape below shipped ``fixes/auth.py`` as ``pkg/sub/auth.py`` in a real build
(scikit-build-core 1.1.2, CMake 3.25), over the package's old ``src/pkg/sub/auth.py``, while
k3diff passed every CMake command but ``install()`` over and compared the old file: a wheel
reverting to it matched, exit 0. Each now stops the check, exit 2; the shapes of common real
projects (pybind11's and nanobind's examples, headers attached to a library, CMake modules
included by name or from the project) still read the packages.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

from .test_provenance_backend_places import FILES, REVERTED
from .test_provenance_cmake_install import (
    INSTALL_FIX,
    PACKAGES,
    SKBUILD,
    TARGETS,
    TOP,
    _check,
    _repo,
    _stopped,
)

LIBRARY = b"add_library(core SHARED lib.c)\n"

ELSEWHERE = {
    "cmake_language": (
        b"cmake_language(CALL install FILES fixes/auth.py DESTINATION pkg/sub)\n",
        "line 3: cmake_language(",
    ),
    "include of another file": (b"include(rules.txt)\n", "include(rules.txt)"),
    "include from outside": (b"include(../shared/rules.cmake)\n", "include(../shared"),
    "add_subdirectory outside": (b"add_subdirectory(../shared shared)\n", "add_subdirectory("),
    "include of a configured file": (
        b"configure_file(rules.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/rules.cmake COPYONLY)\n"
        b"include(${CMAKE_CURRENT_BINARY_DIR}/rules.cmake)\n",
        "include(${CMAKE_CURRENT_BINARY_DIR}/rules.cmake)",
    ),
    "imported runtime artifacts": (
        b"add_executable(fx IMPORTED)\n"
        b"set_property(TARGET fx PROPERTY IMPORTED_LOCATION ${CMAKE_SOURCE_DIR}/fixes/auth.py)\n"
        b"install(IMPORTED_RUNTIME_ARTIFACTS fx DESTINATION pkg/sub)\n",
        "install(IMPORTED_RUNTIME_ARTIFACTS",
    ),
    "public header": (
        LIBRARY + b"set_target_properties(core PROPERTIES PUBLIC_HEADER fixes/auth.py)\n"
        b"install(TARGETS core LIBRARY DESTINATION pkg PUBLIC_HEADER DESTINATION pkg/sub)\n",
        "set_target_properties(…) attaches files",
    ),
    "resource by variable": (
        LIBRARY + b"set_property(TARGET core PROPERTY RESOURCE ${FIX})\n"
        b"install(TARGETS core LIBRARY DESTINATION pkg RESOURCE DESTINATION pkg/sub)\n",
        "set_property(…) attaches files",
    ),
    "file set": (
        LIBRARY + b"target_sources(core PUBLIC FILE_SET HEADERS BASE_DIRS fixes FILES "
        b'"fixes/core.h;fixes/auth.py")\n'
        b"install(TARGETS core FILE_SET HEADERS DESTINATION pkg/sub)\n",
        "target_sources(…) attaches files",
    ),
    "copy into the wheel": (
        b"file(COPY fixes/auth.py DESTINATION ${SKBUILD_PLATLIB_DIR}/pkg/sub)\n",
        "file(…) names a wheel directory",
    ),
}


@pytest.mark.parametrize("case", sorted(ELSEWHERE))
def test_cmake_placing_a_file_without_a_read_install_stops_the_check(
    tmp_path: Path, case: str
) -> None:
    cmake, said = ELSEWHERE[case]
    more = {"rules.txt": INSTALL_FIX, "rules.cmake.in": INSTALL_FIX}

    assert said in _stopped(tmp_path, SKBUILD + PACKAGES, TOP + cmake, **more)


PYBIND11_EXAMPLE = b"""cmake_minimum_required(VERSION 3.15...3.26)
project(${SKBUILD_PROJECT_NAME} LANGUAGES CXX)
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 CONFIG REQUIRED)
pybind11_add_module(_core MODULE src/main.cpp)
install(TARGETS _core DESTINATION ${SKBUILD_PROJECT_NAME})
"""
NANOBIND_EXAMPLE = b"""cmake_minimum_required(VERSION 3.15...3.27)
project(nanobind_example LANGUAGES CXX)
if (NOT SKBUILD)
  message(WARNING "This CMake file is meant to be executed using 'scikit-build'.")
endif()
message(STATUS "installing into ${SKBUILD_PLATLIB_DIR}")
find_package(Python 3.8 COMPONENTS Interpreter Development.Module REQUIRED)
execute_process(
  COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
  OUTPUT_STRIP_TRAILING_WHITESPACE OUTPUT_VARIABLE nanobind_ROOT)
find_package(nanobind CONFIG REQUIRED)
nanobind_add_module(nanobind_example_ext STABLE_ABI NB_STATIC src/nanobind_example_ext.cpp)
install(TARGETS nanobind_example_ext LIBRARY DESTINATION nanobind_example)
"""
HEADERS = b"""cmake_minimum_required(VERSION 3.23)
project(pkg LANGUAGES C)
include(GNUInstallDirs)
include(${CMAKE_CURRENT_LIST_DIR}/cmake/warnings.cmake)
add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/src/core)
add_library(core SHARED lib.c)
set_target_properties(core PROPERTIES PUBLIC_HEADER "include/core.h;include/util.h")
target_sources(core PUBLIC FILE_SET HEADERS BASE_DIRS include FILES include/core.h)
install(TARGETS core LIBRARY DESTINATION pkg PUBLIC_HEADER DESTINATION pkg/include
        FILE_SET HEADERS DESTINATION pkg/include)
"""


@pytest.mark.parametrize(
    "cmake",
    [PYBIND11_EXAMPLE, NANOBIND_EXAMPLE, HEADERS],
    ids=["pybind11 example", "nanobind example", "headers"],
)
def test_common_projects_still_read_the_packages(tmp_path: Path, cmake: bytes) -> None:
    more = {"cmake/warnings.cmake": b"add_compile_options(-Wall)\n"}
    repo = _repo(tmp_path, SKBUILD + PACKAGES, cmake, **more)

    code, report = _check(tmp_path, repo, REVERTED)

    assert code == 0
    assert report["provenance"]["package_dir"] == {"pkg/": "src/pkg/"}


def test_the_original_install_under_its_underscored_name_is_read(tmp_path: Path) -> None:
    """A project redefining ``install`` calls CMake's own as ``_install``."""
    cmake = TOP + b"_install(FILES fixes/auth.py DESTINATION pkg/sub)\n"
    repo = _repo(tmp_path, SKBUILD + PACKAGES, cmake)

    code, report = _check(tmp_path, repo, REVERTED)

    assert code == 1
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/sub/auth.py"]["repo_path"] == "fixes/auth.py"


def test_targets_alone_still_read_the_packages(tmp_path: Path) -> None:
    repo = _repo(tmp_path, SKBUILD + PACKAGES, TOP + TARGETS)

    code, _ = _check(tmp_path, repo, REVERTED)

    assert code == 0


@pytest.mark.parametrize(
    "before",
    [
        b"install(TARGETS _core #[[ the module ]] DESTINATION pkg)\n",
        b'message(STATUS #[[x]] "hi")\n',
    ],
    ids=["install(TARGETS", "message"],
)
def test_a_bracket_comment_does_not_hide_the_next_command(tmp_path: Path, before: bytes) -> None:
    """A bracket comment inside a command's arguments ends at ``]]``, not at the line's end:
    read to the line's end, it took the next ``install(FILES …)`` into the arguments of one
    passed over (a real build shipped the fix, k3diff compared the old file, exit 0)."""
    repo = _repo(tmp_path, SKBUILD + PACKAGES, TOP + before + INSTALL_FIX)

    code, report = _check(tmp_path, repo, REVERTED)

    assert code == 1
    sources = {e["path"]: e["source"] for e in report["entries"] if "source" in e}
    assert sources["pkg/sub/auth.py"]["repo_path"] == "fixes/auth.py"


CHOOSING = {
    "override install-dir": (
        b'[[tool.scikit-build.overrides]]\nif.platform-system = "linux"\n'
        b'wheel.install-dir = "pkg"\n',
        "[[tool.scikit-build.overrides]] may set",
    ),
    "components": (b'install.components = ["python"]\n', "install.components chooses"),
    "spaced install-dir": (b'wheel.install-dir = " pkg"\n', "not a literal path"),
}


@pytest.mark.parametrize("case", sorted(CHOOSING))
def test_settings_choosing_what_cmake_installs_where_stop_the_check(
    tmp_path: Path, case: str
) -> None:
    """A real build with the Linux override shipped the fix at ``pkg/sub/auth.py`` while
    k3diff read ``sub/auth.py``; one with ``install.components`` installed nothing while k3diff
    compared ``fixes/auth.py``: a wheel with the fix matched a build that ships the old file."""
    setting, said = CHOOSING[case]
    cmake = TOP + b"install(FILES fixes/auth.py DESTINATION sub)\n"

    assert said in _stopped(tmp_path, SKBUILD + PACKAGES + setting, cmake)


def test_cmake_files_over_the_bytes_cap_in_all_stop_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each file within the per-file cap, but together past the total one (2,000 files of
    256 KiB would take the reader about 7 minutes): not read, exit 2."""
    monkeypatch.setattr("k3diff.provenance.cmakeruns.CMAKE_BYTES_CAP", 1_000, raising=False)
    padding = b"# " + b"x" * 600 + b"\n"
    more = {"cmake/a.cmake": padding, "cmake/b.cmake": padding}

    stderr = _stopped(tmp_path, SKBUILD + PACKAGES, TOP + TARGETS, **more)

    assert "files are not read (its files are too many or large)" in stderr


def test_wheel_exclude_leaves_out_what_cmake_installs(tmp_path: Path) -> None:
    """scikit-build-core matches `wheel.exclude` at every wheel path but a file
    `wheel.force-include` names: a real build of this commit shipped no `pkg/sub/auth.py`
    (CMake's file excluded, the package's never copied over it). A patch shipping the fix
    there matched the file CMake installs, exit 0: it is W412 now."""
    pyproject = SKBUILD + PACKAGES + b'wheel.exclude = ["pkg/sub/auth.py"]\n'
    repo = _repo(tmp_path, pyproject, TOP + INSTALL_FIX)
    base = {p: d for p, d in FILES.items() if p != "pkg/sub/auth.py"}
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", FILES)

    result = run_k3diff(
        "wheels", wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", base), patch,
        "--source", repo, "--commit", "HEAD", "--format", "json",
    )  # fmt: skip

    assert result.exit_code == 1, result.stderr
    assert '"W412"' in result.stdout
    assert "wheel.exclude leaves it out" in result.stdout


def test_wheel_exclude_does_not_reach_a_file_force_include_names(tmp_path: Path) -> None:
    pyproject = SKBUILD + PACKAGES + b'wheel.exclude = ["pkg/sub/auth.py"]\n'
    pyproject += b'wheel.force-include = {"fixes/auth.py" = "pkg/sub/auth.py"}\n'
    repo = _repo(tmp_path, pyproject, TOP)
    base = {p: d for p, d in FILES.items() if p != "pkg/sub/auth.py"}
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", FILES)

    result = run_k3diff(
        "wheels", wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", base), patch,
        "--source", repo, "--commit", "HEAD",
    )  # fmt: skip

    assert result.exit_code == 0, result.stdout
