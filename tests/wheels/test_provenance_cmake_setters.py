"""`wheels --source`: CMake values cmake75 still read as a place under a variable k3diff does
not read, and py-build-cmake told to run CMake outside ``pyproject.toml`` (review75a).

``list(GET|JOIN|POP_FRONT|TRANSFORM …)``, ``cmake_parse_arguments()``'s ``${ARG_DEST}``,
``get_directory_property()``/``get_property()``, ``separate_arguments()``, a regular
expression's ``${CMAKE_MATCH_1}``, a name holding ``/`` (``${a/b}``), and a build step's
program set by ``cmake_path()`` (or found by ``find_program()`` in the project, or set over
one) each reached the package's directory in a real configure (CMake 3.25.1, as
scikit-build-core runs it in the project before copying the package's files), while k3diff
passed a wheel reverting ``pkg/sub/auth.py`` to the package's old file, exit 0. So did
py-build-cmake 0.5.1 reading a ``cmake`` table from ``py-build-cmake.local.toml`` (a real
build shipped ``install(FILES fixes/auth.py DESTINATION pkg/sub)``'s fix). Each now stops,
exit 2, naming the file, line and command.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .test_provenance_backend_places import REVERTED, SAFE
from .test_provenance_cmake_hidden import _passes
from .test_provenance_cmake_install import PACKAGES, SKBUILD, TOP, _repo, _stopped_at
from .test_provenance_cmake_unread import CMAKE, PY_BUILD_CMAKE, _passes_with, configured

SOURCE = "${CMAKE_SOURCE_DIR}"
COPY = "file(COPY fixes/auth.py DESTINATION ${D})\n"
SCRIPT = b"#!/bin/sh\ncp fixes/auth.py src/pkg/sub/auth.py\n"
"""``fixes/cp.sh``: a project's script, which writes the fix into the package."""
PARSE = "function(fix)\n  cmake_parse_arguments({})\n  file(COPY fixes/auth.py DESTINATION ${{A_DEST}})\nendfunction()\n"
SHAPES = {
    "list(GET": (
        f"set(L {SOURCE}/src/pkg/sub)\nlist(GET L 0 D)\n{COPY}",
        "list(…) at CMakeLists.txt line 4",
    ),
    "list(JOIN": (
        f"set(L {SOURCE} src pkg sub)\nlist(JOIN L / D)\n{COPY}",
        "list(…) at CMakeLists.txt line 4",
    ),
    "list(POP_FRONT": (
        f"set(L {SOURCE}/src/pkg/sub)\nlist(POP_FRONT L D)\n{COPY}",
        "list(…) at CMakeLists.txt line 4",
    ),
    "list(TRANSFORM": (
        f"set(D src/pkg/sub)\nlist(TRANSFORM D PREPEND {SOURCE}/)\n{COPY}",
        "list(…) at CMakeLists.txt line 4",
    ),
    "cmake_parse_arguments": (
        PARSE.format('A "" DEST "" ${ARGN}') + f"fix(DEST {SOURCE}/src/pkg/sub)\n",
        "'${A_DEST}', which cmake_parse_arguments(…) at CMakeLists.txt line 4",
    ),
    "cmake_parse_arguments(PARSE_ARGV": (
        PARSE.format('PARSE_ARGV 0 A "" "${one}" ""')
        + f"set(one DEST)\nfix(DEST {SOURCE}/src/pkg/sub)\n",
        "'${A_DEST}', which cmake_parse_arguments(…) at CMakeLists.txt line 4",
    ),
    "get_directory_property": (
        "get_directory_property(D SOURCE_DIR)\nfile(COPY fixes/auth.py DESTINATION ${D}/src/pkg/sub)\n",
        "get_directory_property(…) at CMakeLists.txt line 3",
    ),
    "get_property": (
        "get_property(D DIRECTORY PROPERTY SOURCE_DIR)\nfile(COPY fixes/auth.py DESTINATION ${D}/src/pkg/sub)\n",
        "get_property(…) at CMakeLists.txt line 3",
    ),
    "separate_arguments": (
        f'separate_arguments(D UNIX_COMMAND "{SOURCE}/src/pkg/sub")\n{COPY}',
        "separate_arguments(…) at CMakeLists.txt line 3",
    ),
    "string(REGEX MATCH": (
        f'string(REGEX MATCH "(.*)" X {SOURCE}/src/pkg/sub)\nfile(COPY fixes/auth.py DESTINATION ${{CMAKE_MATCH_1}})\n',
        "'${CMAKE_MATCH_1}', which string(…) at CMakeLists.txt line 3",
    ),
    "if(MATCHES": (
        f'if("{SOURCE}/src/pkg/sub" MATCHES "(.*)")\nendif()\nfile(COPY fixes/auth.py DESTINATION ${{CMAKE_MATCH_1}})\n',
        "'${CMAKE_MATCH_1}', which if(…) at CMakeLists.txt line 3",
    ),
    "a name holding /": (
        f"cmake_path(SET a/b {SOURCE}/src/pkg/sub)\nfile(COPY fixes/auth.py DESTINATION ${{a/b}})\n",
        "'${a/b}', which cmake_path(…) at CMakeLists.txt line 3",
    ),
    "set(a name holding /": (
        f"set(a/b {SOURCE}/src/pkg/sub)\nfile(COPY fixes/auth.py DESTINATION ${{a/b}})\n",
        f"file(…) writes '{SOURCE}/src/pkg/sub', which may be outside the build tree",
    ),
    "include(RESULT_VARIABLE": (
        "include(src/pkg/sub/x.cmake RESULT_VARIABLE R)\nget_filename_component(D ${R} DIRECTORY)\n"
        + COPY,
        "'${R}', which include(…) at CMakeLists.txt line 3",
    ),
    "file(GENERATE OUTPUT $<TARGET_PROPERTY": (
        "add_custom_target(core)\nfile(GENERATE OUTPUT $<TARGET_PROPERTY:core,SOURCE_DIR>"
        "/src/pkg/sub/auth.py INPUT fixes/auth.py)\n",
        "file(…) writes under '$<TARGET_PROPERTY:core,SOURCE_DIR>/src/pkg/sub/auth.py', a "
        "generator expression, not evaluated",
    ),
    "set() in two branches": (
        f"if(WIN32)\n  set(D build)\nelse()\n  set(D {SOURCE}/src/pkg/sub)\nendif()\n{COPY}",
        f"line 8: file(…) writes '{SOURCE}/src/pkg/sub', which may be outside the build tree",
    ),
    "configure_file() in two branches": (
        f"if(WIN32)\n  set(D ${{CMAKE_BINARY_DIR}}/auth.py)\nelse()\n"
        f"  set(D {SOURCE}/src/pkg/sub/auth.py)\nendif()\nconfigure_file(fixes/auth.py ${{D}} COPYONLY)\n",
        f"line 8: configure_file(…) writes '{SOURCE}/src/pkg/sub/auth.py', which may be outside",
    ),
    "set_property(CACHE": (
        f"set(D build CACHE PATH x)\nset_property(CACHE D PROPERTY VALUE {SOURCE}/src/pkg/sub)\n"
        "file(COPY fixes/auth.py DESTINATION $CACHE{D})\n",
        f"file(…) writes '{SOURCE}/src/pkg/sub', which may be outside the build tree",
    ),
    "a program set by cmake_path": (
        f"cmake_path(SET P {SOURCE}/fixes/cp.sh)\nexecute_process(COMMAND ${{P}})\n",
        "execute_process(…) runs a program given '${P}', which cmake_path(…) at CMakeLists.txt line 3",
    ),
    "a program found in the project": (
        f"find_program(P cp.sh PATHS {SOURCE}/fixes NO_DEFAULT_PATH)\nexecute_process(COMMAND ${{P}})\n",
        "execute_process(…) runs a program given '${P}', which find_program(…) at CMakeLists.txt line 3",
    ),
    "a program found in a project directory": (
        "find_program(P cp.sh PATHS fixes NO_DEFAULT_PATH)\nexecute_process(COMMAND ${P})\n",
        "runs a program given '${P}', which find_program(…) at CMakeLists.txt line 3",
    ),
    "a program found on a PATH set": (
        f'set(ENV{{PATH}} "{SOURCE}/fixes:$ENV{{PATH}}")\nfind_program(P cp.sh)\n'
        "execute_process(COMMAND ${P})\n",
        "runs a program given '${P}', which find_program(…) at CMakeLists.txt line 4",
    ),
    "a program found on CMAKE_PROGRAM_PATH": (
        f"list(APPEND CMAKE_PROGRAM_PATH {SOURCE}/fixes)\nfind_program(P cp.sh)\n"
        "execute_process(COMMAND ${P})\n",
        "runs a program given '${P}', which find_program(…) at CMakeLists.txt line 4",
    ),
    "a program found under a value not evaluated": (
        "execute_process(COMMAND pwd OUTPUT_VARIABLE R OUTPUT_STRIP_TRAILING_WHITESPACE)\n"
        "find_program(P cp.sh PATHS ${R}/fixes NO_DEFAULT_PATH)\nexecute_process(COMMAND ${P})\n",
        "runs a program given '${P}', which find_program(…) at CMakeLists.txt line 4",
    ),
    "a target named in DEPENDS": (
        f"cmake_path(SET D {SOURCE}/src/pkg/sub/auth.py)\ncmake_path(SET F {SOURCE}/fixes/auth.py)\n"
        "add_custom_target(fix ALL COMMAND ${CMAKE_COMMAND} -E copy ${F} ${D} DEPENDS ${F} ${D})\n",
        "add_custom_target(…) runs a program given '${F}', which cmake_path(…) at CMakeLists.txt line 4",
    ),
    "a target globbed and named in DEPENDS": (
        f"file(GLOB D {SOURCE}/src/pkg/sub/auth.py)\nfile(GLOB F {SOURCE}/fixes/*.py)\n"
        "add_custom_target(fix ALL COMMAND ${CMAKE_COMMAND} -E copy ${F} ${D} DEPENDS ${F} ${D})\n",
        "add_custom_target(…) runs a program given '${F}', which file(…) at CMakeLists.txt line 4",
    ),
    "a program set over find_program": (
        f"find_program(P true)\nset(P {SOURCE}/fixes/cp.sh)\nexecute_process(COMMAND ${{P}})\n",
        f"execute_process(…) runs a program given '{SOURCE}/fixes/cp.sh', outside the build tree",
    ),
}
"""Each shape's CMake after `TOP`, and what the stop says; each puts the fix into
``src/pkg/sub``."""


@pytest.mark.parametrize("case", sorted(SHAPES))
def test_a_value_cmake75_read_as_another_variable_stops_the_check(
    tmp_path: Path, case: str
) -> None:
    """A build of this commit ships the fix; the wheel reverting to the old file passed."""
    cmake, said = SHAPES[case]
    more = {"fixes/cp.sh": SCRIPT, "src/pkg/sub/x.cmake": b""}
    repo = _repo(tmp_path, SKBUILD + PACKAGES, TOP + cmake.encode(), **more)

    assert said in _stopped_at(tmp_path, repo, REVERTED)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs CMake")
@pytest.mark.parametrize("case", sorted(SHAPES))
def test_cmake_itself_puts_the_fix_in_the_package(tmp_path: Path, case: str) -> None:
    """CMake, configuring the project in its directory as scikit-build-core does, puts the
    fix at ``src/pkg/sub/auth.py``, which the wheel then ships."""
    more = {"fixes/cp.sh": SCRIPT, "src/pkg/sub/x.cmake": b""}
    built = "DEPENDS" in case  # a build step: it runs when the build does

    assert configured(tmp_path, SHAPES[case][0], more, built=built) == SAFE


USED = {
    "a configuration's file generated": b"file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/"
    b"$<CONFIG>/gen.py CONTENT x)\nfile(GENERATE OUTPUT $<TARGET_FILE_DIR:m>/m.json CONTENT x)\n"
    b"add_library(m MODULE x.cpp)\n",
    "a program of the machine": b"find_program(P true)\nexecute_process(COMMAND ${P})\n",
    "a program found or named": b"find_program(P true)\nif(NOT P)\n  set(P true)\nendif()\n"
    b"execute_process(COMMAND ${P})\n",
    "a parsed argument naming a licence": b'function(lic)\n  cmake_parse_arguments(A "" DIR'
    b' "" ${ARGN})\n  file(WRITE ${A_DIR}/LICENSE.txt x)\nendfunction()\nlic(DIR licenses)\n',
    "a match in a message": b'if(x MATCHES "(x)")\n  message(STATUS ${CMAKE_MATCH_1})\nendif()\n',
}
"""What real projects do with such values that writes no Python file of theirs."""


@pytest.mark.parametrize("case", sorted(USED))
def test_such_values_no_write_depends_on_still_check(tmp_path: Path, case: str) -> None:
    _passes(tmp_path, USED[case])


LOCAL = {
    "py-build-cmake.local.toml": b'[cmake]\nsource_path = "."\n',
    "py-build-cmake.cross.toml": b'[cmake]\nsource_path = "."\n',
    "py-build-cmake.local.pbc": b"cmake.source_path=.\n",
}


@pytest.mark.parametrize("name", sorted(LOCAL))
def test_py_build_cmake_told_to_run_cmake_by_another_file_stops_the_check(
    tmp_path: Path, name: str
) -> None:
    """py-build-cmake reads these files beside ``pyproject.toml`` too: a real build of a
    ``py-build-cmake.local.toml`` with a ``cmake`` table ran the CMake, which installed the
    fix over the package's file; a wheel of the old file passed."""
    repo = _repo(tmp_path, PY_BUILD_CMAKE, CMAKE, **{name: LOCAL[name]})

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert f"builds with py-build-cmake ({name} may give it a cmake table), whose CMake" in said


@pytest.mark.parametrize("how", ["pyodide", "build_component"])
def test_py_build_cmake_for_pyodide_or_a_component_stops_the_check(
    tmp_path: Path, how: str
) -> None:
    """py-build-cmake's ``pyodide`` table sets CMake for a Pyodide build, and its
    ``build_component`` backend ships what a CMake component installs."""
    pyproject = PY_BUILD_CMAKE + b'[tool.py-build-cmake.pyodide.cmake]\nsource_path = "."\n'
    if how == "build_component":
        pyproject = PY_BUILD_CMAKE.replace(
            b"py_build_cmake.build", b"py_build_cmake.build_component"
        )
    repo = _repo(tmp_path, pyproject, CMAKE)

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "pyproject.toml builds with py-build-cmake, whose CMake installs files" in said


def test_py_build_cmake_with_other_files_but_no_settings_still_checks(tmp_path: Path) -> None:
    _passes_with(tmp_path / "a", PY_BUILD_CMAKE, **{"py-build-cmake.toml": b"[cmake]\n"})


PLUGIN_SETUP = b'from setuptools import setup\nsetup(packages=["pkg", "pkg.sub"], '
PLUGIN_SETUP += b'package_dir={"": "src"}, cmake_source_dir=".")\n'


@pytest.mark.parametrize(
    "backend", [b"scikit_build_core.setuptools.build_meta", b"setuptools.build_meta"]
)
def test_scikit_build_core_setuptools_plugin_stops_the_check(
    tmp_path: Path, backend: bytes
) -> None:
    """scikit-build-core's setuptools plugin (its backend, or setuptools' where the build
    requires scikit-build-core, which registers it) installs the CMake of
    ``cmake_source_dir`` into the wheel: a real build shipped ``install(FILES …)``'s fix."""
    pyproject = b'[build-system]\nrequires = ["scikit-build-core>=0.10", "setuptools"]\n'
    pyproject += b'build-backend = "' + backend + b'"\n\n[project]\nname = "pkg"\nversion = "1.0"\n'
    repo = _repo(tmp_path, pyproject, CMAKE, **{"setup.py": PLUGIN_SETUP})

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "pyproject.toml builds with scikit-build-core's setuptools plugin, whose CMake" in said
