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
}

SCRIPT = b"file(COPY ${SRC}/fixes/auth.py DESTINATION ${CMAKE_INSTALL_PREFIX}/pkg/sub)\n"
SCRIPTS = {
    "a CMake script in the project": {
        "fix.cmake": b"file(COPY fixes/auth.py DESTINATION src/pkg/sub)\n"
    },
    "install(SCRIPT": {"cmake/fix.cmake": SCRIPT},
}
"""The scripts those run (their relative paths, in script mode, are the project's)."""


@pytest.mark.parametrize("case", sorted(WRITES))
def test_cmake_writing_into_the_wheel_by_a_name_not_evaluated_stops_the_check(
    tmp_path: Path, case: str
) -> None:
    """A real build shipped the fix; the wheel reverting to the old file passed, exit 0."""
    cmake, said = WRITES[case]
    repo = _repo(tmp_path, SKBUILD + PACKAGES, TOP + cmake, **SCRIPTS.get(case, {}))

    assert f"CMakeLists.txt {said}" in _stopped_at(tmp_path, repo, REVERTED)


CHECKED = {
    "nanobind's query": b'execute_process(\n  COMMAND "${Python_EXECUTABLE}" -m nanobind '
    b"--cmake_dir\n  OUTPUT_STRIP_TRAILING_WHITESPACE OUTPUT_VARIABLE nanobind_ROOT)\n",
    "pyzmq's bundled build": b"list(APPEND cfg ./configure --prefix=${BUNDLE_DIR})\n"
    b"execute_process(COMMAND ${cfg}\n"
    b"  WORKING_DIRECTORY ${bundled_libsodium_SOURCE_DIR} RESULT_VARIABLE _status)\n"
    b'if("$ENV{${_optname}}" STREQUAL "")\nendif()\n',
    "f2py's input": b"add_custom_command(\n  OUTPUT fibbymodule.c\n  COMMAND "
    b'Python::Interpreter -m numpy.f2py\n  "${CMAKE_CURRENT_SOURCE_DIR}/fib1.f" -m fibby\n'
    b"  VERBATIM\n  DEPENDS fib1.f)\n",
    "a build-tree step": b"add_custom_command(OUTPUT gen.c COMMAND ${CYTHON} ${PYX} "
    b"--output-file ${CMAKE_CURRENT_BINARY_DIR}/gen.c)\n",
    "a version by a computed name": b"set(V ${${PROJECT_NAME}_VERSION})\n",
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
