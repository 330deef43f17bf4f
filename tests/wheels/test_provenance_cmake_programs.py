"""`wheels --source`: CMake writing into the wheel under names k3diff does not evaluate (stop
73's note): a variable by a computed name, and programs the build runs.

Each shape below was built for real (scikit-build-core 1.1.2, CMake 3.25.1, ``python -m build
--no-isolation``): the wheel shipped ``fixes/auth.py`` as ``pkg/sub/auth.py``, over the
package's old ``src/pkg/sub/auth.py``, while k3diff compared the old file, and a wheel
reverting to it matched, exit 0. ``execute_process`` runs in the project's directory (a
``cmake -E touch`` marker landed there; one in ``src/pkg/sub`` removing ``auth.py`` left the
module out). Each now stops the check, exit 2, naming the file,
its line and the construct; what real projects do (pyzmq's bundled ``./configure`` in a
fetched directory, nanobind's query of its CMake directory, scikit-build-core's f2py example)
still checks.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from .test_provenance_backend_places import REVERTED
from .test_provenance_cmake_hidden import _passes
from .test_provenance_cmake_install import PACKAGES, SKBUILD, TOP, _repo, _stopped_at

COPY = "${CMAKE_COMMAND} -E copy"
WRITES = {
    "a computed name": (
        b"set(X SKBUILD_PLATLIB)\nfile(COPY fixes/auth.py DESTINATION ${${X}_DIR}/pkg/sub)\n",
        "line 4: file(…) names ${${X}_DIR}, a variable by a computed name",
    ),
    "a source directory by a computed name": (
        b"file(COPY fixes/auth.py DESTINATION ${${PROJECT_NAME}_SOURCE_DIR}/src/pkg/sub)\n",
        "line 3: file(…) writes '${${PROJECT_NAME}_SOURCE_DIR}/src/pkg/sub', which may be",
    ),
    "get_directory_property": (
        b"set(N SKBUILD_)\nstring(APPEND N PLATLIB_DIR)\nget_directory_property(D DEFINITION"
        b" ${N})\nfile(COPY fixes/auth.py DESTINATION ${D}/pkg/sub)\n",
        "line 5: get_directory_property(…) reads a variable by the name '${N}'",
    ),
    "execute_process in the project": (
        f"execute_process(COMMAND {COPY} fixes/auth.py src/pkg/sub/auth.py)\n".encode(),
        "line 3: execute_process(…) runs a program in the project's directory given "
        "'fixes/auth.py'",
    ),
    "execute_process in a package's directory": (
        b"execute_process(COMMAND ${CMAKE_COMMAND} -E remove auth.py\n"
        b"  WORKING_DIRECTORY src/pkg/sub)\n",
        "line 3: execute_process(…) runs a program in 'src/pkg/sub', a directory below",
    ),
    "a shell command line": (
        b'add_custom_target(fix ALL COMMAND sh -c "cp ${CMAKE_SOURCE_DIR}/fixes/auth.py '
        b'${CMAKE_SOURCE_DIR}/src/pkg/sub/")\n',
        "line 3: add_custom_target(…) runs a program given 'cp ${CMAKE_SOURCE_DIR}/fixes",
    ),
    "a CMake script in the project": (
        b"execute_process(COMMAND ${CMAKE_COMMAND} -P fix.cmake)\n",
        "line 3: execute_process(…) runs a program running a CMake script (-P) in the project",
    ),
    "install(SCRIPT": (  # stopped before too: the SCRIPT copied the fix in a real build
        b'install(CODE "set(SRC ${CMAKE_CURRENT_SOURCE_DIR})")\ninstall(SCRIPT cmake/fix.cmake)\n',
        "line 3: install(CODE …), which k3diff does not read",
    ),
    "add_custom_target into the sources": (
        f"add_custom_target(fix ALL COMMAND {COPY} fixes/auth.py "
        "${CMAKE_CURRENT_SOURCE_DIR}/src/pkg/sub/auth.py WORKING_DIRECTORY "
        "${CMAKE_CURRENT_SOURCE_DIR})\n".encode(),
        "line 3: add_custom_target(…) runs a program in the project's directory given "
        "'fixes/auth.py'",
    ),
    "add_custom_target up into the wheel": (
        f"add_custom_target(fix ALL COMMAND {COPY} ${{CMAKE_CURRENT_SOURCE_DIR}}/fixes/auth.py "
        "../wheel/platlib/pkg/sub/auth.py DEPENDS fixes/auth.py)\n".encode(),
        "line 3: add_custom_target(…) runs a program given '../wheel/platlib/pkg/sub/auth.py', "
        "outside the build tree",
    ),
    # review74b: the words in a variable, which k3diff read as a place under a variable
    "a program's words in a variable": (
        b"set(cmd cp fixes/auth.py src/pkg/sub/auth.py)\nexecute_process(COMMAND ${cmd})\n",
        "line 4: execute_process(…) runs a program in the project's directory given "
        "'fixes/auth.py'",
    ),
    "a program's words listed": (
        b"list(APPEND cmd cp fixes/auth.py)\nif(WIN32)\nelse()\nlist(APPEND cmd src)\nendif()\n"
        b"set(to ${cmd}/pkg/sub/auth.py)\nexecute_process(COMMAND ${to})\n",
        "line 9: execute_process(…) runs a program in the project's directory given "
        "'fixes/auth.py'",
    ),
    "a working directory in a variable": (
        b"set(W ${CMAKE_SOURCE_DIR}/src/pkg/sub)\nexecute_process(COMMAND ${CMAKE_COMMAND} -E "
        b"remove auth.py\n  WORKING_DIRECTORY ${W})\n",
        "line 4: execute_process(…) runs a program in '${CMAKE_SOURCE_DIR}/src/pkg/sub'",
    ),
    "a program given a directory of the project by name": (
        b"execute_process(COMMAND ${CMAKE_COMMAND} -E copy_directory fixes src)\n",
        "line 3: execute_process(…) runs a program in the project's directory given 'fixes'",
    ),
    "a generator expression's output": (
        b"file(GENERATE OUTPUT $<1:${CMAKE_SOURCE_DIR}>/src/pkg/sub/auth.py INPUT fixes/auth.py)\n",
        "line 3: file(…) writes '$<1:${CMAKE_SOURCE_DIR}>/src/pkg/sub/auth.py', which may be",
    ),
    "a write's place in a variable": (
        b"set(D ${CMAKE_SOURCE_DIR}/src/pkg/sub)\nfile(COPY fixes/auth.py DESTINATION ${D})\n",
        "line 4: file(…) writes '${CMAKE_SOURCE_DIR}/src/pkg/sub', which may be",
    ),
    "a function's arguments": (
        b"function(run)\n  execute_process(COMMAND ${ARGN})\nendfunction()\n"
        b"set(ENV{F} fixes/auth.py)\nrun(cp $ENV{F} src/pkg/sub/auth.py)\n",
        "line 4: execute_process(…) runs a program in the project's directory given "
        "'fixes/auth.py'",
    ),
    "a loop's variable": (
        b"set(L fixes/auth.py src/pkg/sub/)\nforeach(w IN LISTS L)\n"
        b"  list(APPEND cmd ${w})\nendforeach()\nexecute_process(COMMAND cp ${cmd})\n",
        "line 7: execute_process(…) runs a program in the project's directory given "
        "'fixes/auth.py'",
    ),
    "a working directory by cmake.define": (
        b"execute_process(COMMAND ${CMAKE_COMMAND} -E remove auth.py WORKING_DIRECTORY ${W})\n",
        "line 3: execute_process(…) runs a program in 'src/pkg/sub', a directory below",
    ),
    "a working directory by cmake.args": (
        b"execute_process(COMMAND ${CMAKE_COMMAND} -E remove auth.py WORKING_DIRECTORY ${W})\n",
        "line 3: execute_process(…) runs a program in 'src/pkg/sub', a directory below",
    ),
    "a path made absolute": (
        b"get_filename_component(S fixes/auth.py ABSOLUTE)\n"
        b"get_filename_component(D src/pkg/sub/auth.py ABSOLUTE)\n"
        b"add_custom_target(fix ALL COMMAND ${CMAKE_COMMAND} -E copy ${S} ${D})\n",
        "line 5: add_custom_target(…) runs a program given "
        "'${CMAKE_CURRENT_SOURCE_DIR}/fixes/auth.py', outside the build tree",
    ),
    "FetchContent into the sources": (
        b"include(FetchContent)\nFetchContent_Declare(x URL file://${CMAKE_SOURCE_DIR}/fix.tar"
        b" SOURCE_DIR ${CMAKE_SOURCE_DIR}/src/pkg/sub)\nFetchContent_MakeAvailable(x)\n",
        "line 4: fetchcontent_declare(…) fetches a project given "
        "'file://${CMAKE_SOURCE_DIR}/fix.tar', outside the build tree",
    ),
}

SCRIPT = b"file(COPY ${SRC}/fixes/auth.py DESTINATION ${CMAKE_INSTALL_PREFIX}/pkg/sub)\n"
SCRIPTS = {
    "a CMake script in the project": {
        "fix.cmake": b"file(COPY fixes/auth.py DESTINATION src/pkg/sub)\n"
    },
    "install(SCRIPT": {"cmake/fix.cmake": SCRIPT},
}
"""The scripts those run (their relative paths, in script mode, are the project's)."""


DEFINED = b'cmake.define = {W = "src/pkg/sub"}\n'
"""A ``cmake.define`` of ``pyproject.toml``, which scikit-build-core passes as ``-DW=…``."""


@pytest.mark.parametrize("case", sorted(WRITES))
def test_cmake_writing_into_the_wheel_by_a_name_not_evaluated_stops_the_check(
    tmp_path: Path, case: str
) -> None:
    """A real build shipped the fix; the wheel reverting to the old file passed, exit 0."""
    cmake, said = WRITES[case]
    pyproject = SKBUILD + PACKAGES + (DEFINED if "cmake.define" in case else b"")
    pyproject += b'cmake.args = ["-DW:PATH=src/pkg/sub"]\n' if "cmake.args" in case else b""
    repo = _repo(tmp_path, pyproject, TOP + cmake, **SCRIPTS.get(case, {}))

    assert f"CMakeLists.txt {said}" in _stopped_at(tmp_path, repo, REVERTED)


CHECKED = {
    "nanobind's query": b'execute_process(\n  COMMAND "${Python_EXECUTABLE}" -m nanobind '
    b"--cmake_dir\n  OUTPUT_STRIP_TRAILING_WHITESPACE OUTPUT_VARIABLE nanobind_ROOT)\n",
    "pyzmq's bundled build": b'set(BUNDLE_DIR "${CMAKE_CURRENT_BINARY_DIR}/bundled")\n'
    b"FetchContent_Declare(bundled_libsodium\n  URL ${PYZMQ_LIBSODIUM_URL}\n"
    b"  PREFIX ${BUNDLE_DIR}\n)\nlist(APPEND cfg ./configure --prefix=${BUNDLE_DIR})\n"
    b"execute_process(COMMAND ${cfg}\n"
    b"  WORKING_DIRECTORY ${bundled_libsodium_SOURCE_DIR} RESULT_VARIABLE _status)\n"
    b'if("$ENV{${_optname}}" STREQUAL "")\nendif()\n',
    "f2py's input": b"add_custom_command(\n  OUTPUT fibbymodule.c\n  COMMAND "
    b'Python::Interpreter -m numpy.f2py\n  "${CMAKE_CURRENT_SOURCE_DIR}/fib1.f" -m fibby\n'
    b"  VERBATIM\n  DEPENDS fib1.f)\n",
    "a build-tree step": b"add_custom_command(OUTPUT gen.c COMMAND ${CYTHON} ${PYX} "
    b"--output-file ${CMAKE_CURRENT_BINARY_DIR}/gen.c)\n",
    "a version by a computed name": b"set(V ${${PROJECT_NAME}_VERSION})\n",
    "pyzmq's licence": b'set(LICENSE_DIR "${CMAKE_CURRENT_SOURCE_DIR}/licenses")\n'
    b'configure_file("x/LICENSE" "${LICENSE_DIR}/LICENSE.libsodium.txt" COPYONLY)\n',
    "correctionlib's vendored pybind11": b"FetchContent_Declare(pybind11\n  SOURCE_DIR "
    b"${CMAKE_CURRENT_SOURCE_DIR}/pybind11)\nFetchContent_MakeAvailable(pybind11)\n",
    "flags grown from themselves": b"set(F -O2)\nset(F ${F} -g)\nset(F ${F} ${F})\n"
    b"add_custom_command(OUTPUT gen.c COMMAND cc ${F} -o gen.c)\n",
}


@pytest.mark.parametrize("case", sorted(CHECKED))
def test_what_real_projects_run_still_checks(tmp_path: Path, case: str) -> None:
    _passes(tmp_path, CHECKED[case])


def test_a_name_of_many_inner_references_is_read_in_time(tmp_path: Path) -> None:
    """A regex of ``.*`` per inner reference took 3.7 s for ten (``${${a}…${a}Q}``), and
    doubled with each: 60,000 of them are read at once."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError("the check took over 20 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(20)
    try:
        _passes(tmp_path, b"set(V ${" + b"${a}" * 60_000 + b"Q})\n")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_variables_expanding_past_the_budget_stop_the_check_in_time(tmp_path: Path) -> None:
    """A list doubling each round, referenced by thousands of programs: read within the
    budget, or stopped, never for minutes."""
    cmake = b"set(a " + b" ".join(b"x%d" % i for i in range(20_000)) + b")\nset(b ${a} ${a})\n"
    cmake += b"add_custom_command(OUTPUT o COMMAND c ${b})\n" * 20_000
    repo = _repo(tmp_path, SKBUILD + PACKAGES, TOP + cmake)

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError("the check took over 20 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(20)
    try:
        said = _stopped_at(tmp_path, repo, REVERTED)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert "k3diff wheels BUILT RELEASED" in said
