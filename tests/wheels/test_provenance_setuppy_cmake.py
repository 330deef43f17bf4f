"""`wheels --source`: a ``setup.py`` running CMake from a command class of its own (vLLM's
``cmake_build_ext``) stops the check (realsource75).

A real build of this shape (setuptools 65.5.0, CMake 3.25.1, ``pip wheel
--no-build-isolation``) shipped ``fixes/auth.py`` as ``pkg/sub/auth.py``: setuptools runs
``build_ext`` after ``build_py``, and CMake's ``install(FILES fixes/auth.py DESTINATION pkg/sub
COMPONENT _C)`` went over the package's copy. k3diff compared the package's old file, and a
wheel keeping it matched, exit 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_provenance_backend_places import REVERTED
from .test_provenance_cmake_install import TOP, _repo, _stopped_at
from .test_provenance_cmake_unread import SETUP_PY, _passes_with

SETUPTOOLS = b'[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
CMAKE = TOP + b"install(FILES fixes/auth.py DESTINATION pkg/sub COMPONENT _C)\n"
BUILD_EXT = b"""import subprocess
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class cmake_build_ext(build_ext):
    def build_extensions(self):
        subprocess.check_call(RUN, cwd=self.build_temp)


"""
SETUP = SETUP_PY.replace(b")\n", b', ext_modules=[Extension("pkg._C", [])],\n')
SETUP += b'    cmdclass={"build_ext": cmake_build_ext})\n'
RUNS = {
    "a list (vLLM)": b'RUN = ["cmake", "--install", ".", "--prefix", "..", "--component", "_C"]\n',
    "a command line": b'RUN = "cmake --install . --component _C"\n',
    "a path to it": b'RUN = ["/usr/bin/cmake", "--install", "."]\n',
    "the cmake package": b"from cmake import CMAKE_BIN_DIR\nRUN = [CMAKE_BIN_DIR + '/x']\n",
}


@pytest.mark.parametrize("run", list(RUNS.values()), ids=list(RUNS))
@pytest.mark.parametrize("pyproject", [SETUPTOOLS, b""], ids=["setuptools", "no pyproject"])
def test_a_setup_py_running_cmake_stops_the_check(
    tmp_path: Path, run: bytes, pyproject: bytes
) -> None:
    """A wheel keeping the package's old file, which the commit's build replaces with CMake's,
    passed (exit 0); it stops now, naming the line of ``setup.py`` that runs CMake."""
    setup_py = BUILD_EXT + run + SETUP
    repo = _repo(tmp_path, pyproject, CMAKE, **{"setup.py": setup_py})

    said = _stopped_at(tmp_path, repo, REVERTED)

    line = BUILD_EXT.count(b"\n") + 1  # the first of `run`'s lines
    assert f"setup.py runs CMake (line {line}), whose CMake installs files" in said


def test_a_setup_py_naming_cmake_only_as_a_word_still_checks(tmp_path: Path) -> None:
    """A string mentioning CMake but not starting with it (a message, ``cmake>=3.26``) and a
    ``build_ext`` running another program leave the check as it was."""
    run = b'RUN = ["ninja"]\nNOTE = "needs cmake"\nREQ = "cmake>=3.26"\n'
    _passes_with(tmp_path / "a", SETUPTOOLS, **{"setup.py": BUILD_EXT + run + SETUP})
