"""`wheels --source`: CMake that changes what an ``install()`` does, or names the wheel's
install directory as ``CMAKE_INSTALL_PREFIX`` (review73b).

Each shape below was built for real (scikit-build-core 1.1.2, CMake 3.25): ``macro(install)``
made the ``install(FILES fixes/auth.py DESTINATION pkg/sub)`` after it do nothing, so the
wheel shipped the package's old ``src/pkg/sub/auth.py`` while k3diff compared the fix, and a
wheel shipping the fix matched, exit 0; ``file(COPY … DESTINATION ${CMAKE_INSTALL_PREFIX}/…)``
(scikit-build-core sets the prefix to the wheel's install directory at configure time) shipped
the fix while k3diff compared the old file, and a wheel reverting to it matched, exit 0. Each
now stops the check, exit 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

from .test_provenance_backend_places import FILES, REVERTED
from .test_provenance_cmake_install import INSTALL_FIX, PACKAGES, SKBUILD, TOP, _repo, _stopped_at

REDEFINED = {
    "macro(install)": b"macro(install)\nendmacro()\n",
    "function(INSTALL)": b"function(INSTALL)\nendfunction()\n",
    "macro(_install)": b"macro(_install)\nendmacro()\n",
    "a name by variable": b"set(N install)\nmacro(${N})\nendmacro()\n",
    "a name in a bracket": b"function([[install]])\nendfunction()\n",
}


def _stops(tmp_path: Path, cmake: bytes, shipped: dict[str, bytes]) -> str:
    return _stopped_at(tmp_path, _repo(tmp_path, SKBUILD + PACKAGES, TOP + cmake), shipped)


def _passes(tmp_path: Path, cmake: bytes) -> None:
    """A wheel shipping the package's files as the commit holds them passes (exit 0)."""
    repo = _repo(tmp_path, SKBUILD + PACKAGES, TOP + cmake)
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 0, result.stdout + result.stderr


@pytest.mark.parametrize("case", sorted(REDEFINED))
def test_a_command_that_may_stand_for_install_stops_the_check(tmp_path: Path, case: str) -> None:
    """The wheel ships the fix ``install(FILES …)`` names, which a build of this commit does
    not install (its ``install`` does nothing): it passed, exit 0."""
    call = INSTALL_FIX.replace(b"install(", b"_install(") if "_install" in case else INSTALL_FIX
    cmake = REDEFINED[case] + call

    assert "which may stand for install()" in _stops(tmp_path, cmake, FILES)


@pytest.mark.parametrize(
    "cmake",
    [
        b"file(COPY fixes/auth.py DESTINATION ${CMAKE_INSTALL_PREFIX}/pkg/sub)\n",
        b"set(D $CACHE{CMAKE_INSTALL_PREFIX})\n",
    ],
    ids=["file(COPY", "set"],
)
def test_cmake_naming_the_install_prefix_outside_install_stops_the_check(
    tmp_path: Path, cmake: bytes
) -> None:
    """The wheel reverts to the package's old file, which a build of this commit replaces
    with the fix it copies into ``CMAKE_INSTALL_PREFIX``: it passed, exit 0."""
    assert "names a wheel directory" in _stops(tmp_path, cmake, REVERTED)


def test_a_macro_returning_stops_the_check(tmp_path: Path) -> None:
    """``return()`` in a macro returns from where it is called: a real build with
    ``stop_here()`` (from ``helpers.cmake``) before ``install(FILES fixes/auth.py …)``
    installed nothing and shipped the package's old file, while k3diff compared the fix and
    a wheel shipping it matched, exit 0."""
    helpers = b"macro(stop_here)\n  if(1)\n    return()\n  endif()\nendmacro()\n"
    cmake = TOP + b"include(helpers.cmake)\nstop_here()\n" + INSTALL_FIX
    pyproject = SKBUILD + PACKAGES

    repo = _repo(tmp_path, pyproject, cmake, **{"helpers.cmake": helpers})

    stderr = _stopped_at(tmp_path, repo, FILES)

    assert "helpers.cmake line 3: return() in a macro" in stderr


def test_functions_of_other_names_and_a_prefix_set_still_read_the_packages(
    tmp_path: Path,
) -> None:
    cmake = b"function(install_headers)\nendfunction()\nmacro(my_install)\nendmacro()\n"
    cmake += b"if(CMAKE_INSTALL_PREFIX_INITIALIZED_TO_DEFAULT)\n"
    cmake += b'  set(CMAKE_INSTALL_PREFIX "/opt/x" CACHE PATH "" FORCE)\nendif()\n'

    _passes(tmp_path, cmake)


@pytest.mark.parametrize(
    ("install", "patch"),
    [
        (b'install(FILES fixes/auth.py DESTINATION pkg/sub RENAME "")\n', REVERTED),
        (b"install(FILES fixes/auth.py DESTINATION pkg/sub/auth.py RENAME .)\n", FILES),
    ],
    ids=["empty", "dot"],
)
def test_a_rename_to_no_file_name_stops_the_check(
    tmp_path: Path, install: bytes, patch: dict[str, bytes]
) -> None:
    """A real build installed ``RENAME ""`` under the file's own name (the fix at
    ``pkg/sub/auth.py``) and ``RENAME .`` nothing (the package's old file there), while k3diff
    placed the file at ``DESTINATION`` itself: a wheel shipping the other one matched, exit 0."""
    assert "renames to no file name" in _stops(tmp_path, install, patch)


OUT_OF_THE_BUILD_TREE = {
    "file(WRITE into the project": b'file(WRITE src/pkg/sub/auth.py "import hmac")\n',
    "file(COPY up out of the build tree": (
        b"file(COPY fixes/auth.py DESTINATION ../wheel/platlib/pkg/sub)\n"
    ),
    "configure_file into the source tree": (
        b"configure_file(fixes/auth.py ${CMAKE_CURRENT_SOURCE_DIR}/src/pkg/sub/auth.py COPYONLY)\n"
    ),
    "file(GENERATE relative": b'file(GENERATE OUTPUT src/pkg/sub/auth.py CONTENT "x")\n',
    "file(REMOVE from the project": b"file(REMOVE src/pkg/sub/auth.py)\n",
    "file(RENAME out of the project": (
        b"file(RENAME src/pkg/sub/auth.py ${CMAKE_BINARY_DIR}/auth.py)\n"
    ),
    "a build tree variable set": (
        b"set(CMAKE_CURRENT_BINARY_DIR ${CMAKE_CURRENT_SOURCE_DIR}/src)\n"
        b'file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/pkg/sub/auth.py "import hmac")\n'
    ),
}


@pytest.mark.parametrize("case", sorted(OUT_OF_THE_BUILD_TREE))
def test_cmake_writing_outside_the_build_tree_stops_the_check(tmp_path: Path, case: str) -> None:
    """Each wrote the fix over ``src/pkg/sub/auth.py`` (or into the wheel's staging directory
    beside the build tree) in a real build, which shipped it, while k3diff compared the
    commit's old file: a wheel reverting to it matched, exit 0."""
    stderr = _stops(tmp_path, OUT_OF_THE_BUILD_TREE[case], REVERTED)

    assert "outside the build tree" in stderr or "may set a build tree variable" in stderr


def test_writes_into_the_build_tree_still_read_the_packages(tmp_path: Path) -> None:
    cmake = b"if(CMAKE_SOURCE_DIR STREQUAL CMAKE_BINARY_DIR)\n  message(FATAL_ERROR x)\nendif()\n"
    cmake += b"configure_file(config.h.in config.h)\n"
    cmake += b"configure_file(c.in ${CMAKE_CURRENT_BINARY_DIR}/${PROJECT_NAME}Config.cmake @ONLY)\n"
    cmake += b'file(WRITE "${CMAKE_BINARY_DIR}/stamp.txt" "x")\nfile(READ VERSION V)\n'
    cmake += b"file(COPY data DESTINATION share)\nfile(GLOB S src/*.c)\n"
    cmake += b'file(CONFIGURE OUTPUT v.h CONTENT "x")\n'
    cmake += b'set(out_file "${CMAKE_CURRENT_BINARY_DIR}/log.txt")\nfile(WRITE "${out_file}" "")\n'

    _passes(tmp_path, cmake)
