"""`wheels --source`: CMake writing where a value k3diff does not evaluate decides (cmake75),
and the other backends whose CMake installs into the wheel.

``cmake_path()``, ``string(REPLACE|REGEX|TOLOWER|JOIN|SUBSTRING …)``, ``file(REAL_PATH|
RELATIVE_PATH|GLOB|TO_CMAKE_PATH …)``, ``find_path()``/``find_file()`` and ``execute_process(…
OUTPUT_VARIABLE …)`` each set a variable k3diff read as a place under a variable it does not
read: a write or a program given it passed. Each shape below was built for real
(scikit-build-core 1.1.2, CMake 3.25.1, ``python -m build --no-isolation``, ``fixes/auth.py``
newer than the package's file, as ``file(COPY)`` copies only a file of another timestamp): the
wheel shipped ``fixes/auth.py`` as ``pkg/sub/auth.py``, while k3diff compared the package's
old file and a wheel reverting to it matched, exit 0; so did py-build-cmake 0.5.1's build of
``install(FILES fixes/auth.py DESTINATION pkg/sub)`` and scikit-build 0.18.1's (``setup.py``
importing ``skbuild``) of a ``file(COPY …)`` into the package. Each now stops, exit 2, naming
the file, its line and the command setting the value. `test_cmake_itself_writes_the_fix`
configures each with CMake where it is installed, as those builds do before copying the
package's files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .test_provenance_backend_places import OLD, REVERTED, SAFE
from .test_provenance_cmake_hidden import _passes
from .test_provenance_cmake_install import PACKAGES, SKBUILD, TOP, _repo, _stopped_at

SOURCE = "${CMAKE_SOURCE_DIR}"
COPY = "file(COPY fixes/auth.py DESTINATION ${D})\n"
UNREAD = {
    "cmake_path(SET": f"cmake_path(SET D {SOURCE}/src/pkg/sub)\n{COPY}",
    "cmake_path(APPEND": f"cmake_path(APPEND D {SOURCE} src pkg sub)\n{COPY}",
    "string(TOLOWER": f"string(TOLOWER {SOURCE}/SRC/pkg/sub D)\n{COPY}",
    "string(REPLACE": f"string(REPLACE BIN {SOURCE}/src D BIN/pkg/sub)\n{COPY}",
    "string(REGEX REPLACE": f'string(REGEX REPLACE "^x" "{SOURCE}" D x/src/pkg/sub)\n{COPY}',
    "string(JOIN": f"string(JOIN / D {SOURCE} src pkg sub)\n{COPY}",
    "string(SUBSTRING": f'string(SUBSTRING "xx{SOURCE}/src/pkg/sub" 2 -1 D)\n{COPY}',
    "file(REAL_PATH": f"file(REAL_PATH src/pkg/sub D)\n{COPY}",
    "file(RELATIVE_PATH": f"file(RELATIVE_PATH D ${{CMAKE_BINARY_DIR}} {SOURCE}/src/pkg/sub)\n"
    + COPY,
    "file(GLOB": f"file(GLOB D LIST_DIRECTORIES true {SOURCE}/src/pkg/s*)\n{COPY}",
    "find_path": f"find_path(D auth.py PATHS {SOURCE}/src/pkg/sub NO_DEFAULT_PATH)\n{COPY}",
    "find_file": f"find_file(F auth.py PATHS {SOURCE}/src/pkg/sub NO_DEFAULT_PATH)\n"
    f"file(COPY_FILE {SOURCE}/fixes/auth.py ${{F}})\n",
    "execute_process(OUTPUT_VARIABLE": "execute_process(COMMAND pwd OUTPUT_VARIABLE D\n"
    "  OUTPUT_STRIP_TRAILING_WHITESPACE)\nfile(COPY fixes/auth.py DESTINATION ${D}/src/pkg/sub)\n",
    "a program given a path": f"cmake_path(SET D {SOURCE}/src/pkg/sub/auth.py)\n"
    f"cmake_path(SET S {SOURCE}/fixes/auth.py)\n"
    "add_custom_target(fix ALL COMMAND ${CMAKE_COMMAND} -E copy ${S} ${D})\n",
    "a variable holding it": f"file(TO_CMAKE_PATH {SOURCE}/src/pkg D)\nset(E ${{D}}/sub)\n"
    "file(COPY fixes/auth.py DESTINATION ${E})\n",
}
"""Each shape's CMake after `TOP`; each copies ``fixes/auth.py`` into ``src/pkg/sub``."""
SAID = {
    "find_file": "line 4: file(…) writes under '${F}', which find_file(…) at CMakeLists.txt line 3",
    "execute_process(OUTPUT_VARIABLE": "line 5: file(…) writes under '${D}', which "
    "execute_process(…) at CMakeLists.txt line 3 sets, not evaluated",
    "a program given a path": "line 5: add_custom_target(…) runs a program given '${S}', which "
    "cmake_path(…) at CMakeLists.txt line 4 sets",
    "a variable holding it": "line 5: file(…) writes under '${D}', which file(…) at",
}


@pytest.mark.parametrize("case", sorted(UNREAD))
def test_a_write_where_an_unevaluated_value_decides_stops_the_check(
    tmp_path: Path, case: str
) -> None:
    """A build of this commit ships the fix; the wheel reverting to the old file passed."""
    repo = _repo(tmp_path, SKBUILD + PACKAGES, TOP + UNREAD[case].encode())
    command = case.partition("(")[0].rstrip()
    said = SAID.get(case, f"line 4: file(…) writes under '${{D}}', which {command}(…) at ")

    assert f"CMakeLists.txt {said}" in _stopped_at(tmp_path, repo, REVERTED)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs CMake")
@pytest.mark.parametrize("case", sorted(UNREAD))
def test_cmake_itself_writes_the_fix(tmp_path: Path, case: str) -> None:
    """CMake, configuring the project in its directory as scikit-build-core does, puts the
    fix at ``src/pkg/sub/auth.py``, which the wheel then ships."""
    built = case == "a program given a path"  # a build step: it runs when the build does

    assert configured(tmp_path, UNREAD[case], built=built) == SAFE


def configured(
    tmp_path: Path, cmake: str, more: dict[str, bytes] | None = None, *, built: bool = False
) -> bytes:
    """``src/pkg/sub/auth.py`` after CMake configures (and, where `built`, builds) a project
    of the package's old file, ``fixes/auth.py`` newer (``file(COPY)`` copies only a file of
    another timestamp), `more` files (executable) and `cmake` after `TOP`, in its directory."""
    project = tmp_path / "project"
    (project / "src/pkg/sub").mkdir(parents=True)
    (project / "fixes").mkdir()
    (project / "src/pkg/sub/auth.py").write_bytes(OLD)
    (project / "fixes/auth.py").write_bytes(SAFE)
    for name, data in (more or {}).items():
        (project / name).write_bytes(data)
        (project / name).chmod(0o755)
    os.utime(project / "src/pkg/sub/auth.py", (1_000_000_000, 1_000_000_000))
    top = TOP.replace(b"LANGUAGES CXX", b"LANGUAGES NONE")
    (project / "CMakeLists.txt").write_bytes(top + cmake.encode())
    build = ["cmake", "-S", ".", "-B", str(tmp_path / "build")]
    subprocess.run(build, cwd=project, check=True, capture_output=True, timeout=120)
    if built:
        build = ["cmake", "--build", str(tmp_path / "build")]
        subprocess.run(build, check=True, capture_output=True, timeout=120)
    return (project / "src/pkg/sub/auth.py").read_bytes()


USED = {
    "nanobind's query": b'execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind '
    b"--cmake_dir\n  OUTPUT_STRIP_TRAILING_WHITESPACE OUTPUT_VARIABLE nanobind_ROOT)\n"
    b'list(APPEND CMAKE_PREFIX_PATH "${nanobind_ROOT}")\n',
    "a program found": b"find_program(CYTHON cython REQUIRED)\n"
    b"add_custom_command(OUTPUT gen.c COMMAND ${CYTHON} x.pyx -o gen.c)\n",
    "a lower-case name": b"string(TOLOWER ${PROJECT_NAME} N)\nadd_library(${N} MODULE x.c)\n",
    "a globbed input": b"file(GLOB PYX ${CMAKE_CURRENT_SOURCE_DIR}/*.pyx)\nforeach(p ${PYX})\n"
    b"  add_custom_command(OUTPUT x.c COMMAND cython ${p} -o x.c DEPENDS ${p})\nendforeach()\n",
    "a licence written": b"file(REAL_PATH licenses D)\nfile(WRITE ${D}/LICENSE.txt x)\n",
}
"""What real projects do with such values that writes no Python file of theirs: a program
found by ``find_program`` and run, a value named in no write."""


@pytest.mark.parametrize("case", sorted(USED))
def test_unevaluated_values_no_write_depends_on_still_check(tmp_path: Path, case: str) -> None:
    _passes(tmp_path, USED[case])


PY_BUILD_CMAKE = (
    b'[build-system]\nrequires = ["py-build-cmake"]\nbuild-backend = "py_build_cmake.build"\n\n'
    b'[project]\nname = "pkg"\nversion = "1.0"\ndescription = "x"\n\n'
    b'[tool.py-build-cmake.module]\ndirectory = "src"\n\n'
)
SETUP_PY = b'setup(name="pkg", packages=["pkg", "pkg.sub"], package_dir={"": "src"})\n'
CLASSIC = b'[build-system]\nrequires = ["setuptools", "scikit-build"]\n'
CLASSIC += b'build-backend = "setuptools.build_meta"\n'
CMAKE = TOP + b"install(FILES fixes/auth.py DESTINATION pkg/sub)\n"


@pytest.mark.parametrize("cmake", ["cmake", "linux.cmake"])
def test_py_build_cmake_running_cmake_stops_the_check(tmp_path: Path, cmake: str) -> None:
    """py-build-cmake copies the module's files, then installs CMake's over them: a real
    build shipped the fix ``install(FILES …)`` names; a wheel of the old file passed."""
    pyproject = PY_BUILD_CMAKE + f'[tool.py-build-cmake.{cmake}]\nsource_path = "."\n'.encode()
    repo = _repo(tmp_path, pyproject, CMAKE)

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "pyproject.toml builds with py-build-cmake, whose CMake installs files" in said


@pytest.mark.parametrize(
    "setup_py",
    [b"from skbuild import setup\n", b"import skbuild\nsetup = skbuild.setup\n"],
    ids=["from skbuild", "import skbuild"],
)
@pytest.mark.parametrize("pyproject", [True, False], ids=["setuptools", "an empty pyproject.toml"])
def test_classic_scikit_build_stops_the_check(
    tmp_path: Path, setup_py: bytes, pyproject: bool
) -> None:
    """scikit-build's ``setup()`` configures the CMake, which wrote the fix into the package
    in a real build (``file(COPY … DESTINATION ${CMAKE_SOURCE_DIR}/src/pkg/sub)``) before
    its files were copied: a wheel of the old file passed."""
    cmake = TOP + f"file(COPY fixes/auth.py DESTINATION {SOURCE}/src/pkg/sub)\n".encode()
    repo = _repo(
        tmp_path, CLASSIC if pyproject else b"", cmake, **{"setup.py": setup_py + SETUP_PY}
    )

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "setup.py builds with scikit-build (skbuild), whose CMake installs files" in said


def test_py_build_cmake_without_cmake_and_setuptools_still_check(tmp_path: Path) -> None:
    """py-build-cmake with no ``cmake`` table ships the module's files alone, and a
    ``setup.py`` of setuptools runs no CMake: both still check."""
    _passes_with(tmp_path / "a", PY_BUILD_CMAKE)
    setup_py = b"from setuptools import setup\n" + SETUP_PY
    _passes_with(tmp_path / "b", b"", **{"setup.py": setup_py})


def _passes_with(tmp_path: Path, pyproject: bytes, **more: bytes) -> None:
    import wheelkit
    from cli_support import run_k3diff

    from .test_provenance_backend_places import FILES

    tmp_path.mkdir()
    repo = _repo(tmp_path, pyproject, CMAKE, **more)
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", FILES)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert result.exit_code == 0, result.stdout + result.stderr


def test_a_value_set_in_an_included_file_stops_the_check(tmp_path: Path) -> None:
    """``include(cmake/dirs.cmake)`` setting ``D`` by ``cmake_path()``: the write in the top
    ``CMakeLists.txt`` is said with the file and line setting it."""
    dirs = f"cmake_path(SET D {SOURCE}/src/pkg/sub)\n".encode()
    cmake = TOP + b"include(cmake/dirs.cmake)\n" + COPY.encode()
    repo = _repo(tmp_path, SKBUILD + PACKAGES, cmake, **{"cmake/dirs.cmake": dirs})

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert (
        "line 4: file(…) writes under '${D}', which cmake_path(…) at cmake/dirs.cmake line 1"
        in said
    )
