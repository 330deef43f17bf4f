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
import wheelkit
from cli_support import run_k3diff
from provenance.repokit import commit

from .test_provenance_backend_places import FILES, REVERTED
from .test_provenance_cmake_install import TOP, _repo, _stopped_at
from .test_provenance_cmake_unread import CLASSIC, PY_BUILD_CMAKE, SETUP_PY, _passes_with

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
    "bytes (review76a)": b'RUN = [b"cmake", b"--install", b"."]\n',
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


VLLM_BUILD_EXT = b"""import os
import subprocess
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class CMakeExtension(Extension):
    def __init__(self, name, cmake_lists_dir=".", **kwa):
        super().__init__(name, sources=[], py_limited_api=True, **kwa)
        self.cmake_lists_dir = os.path.abspath(cmake_lists_dir)


class cmake_build_ext(build_ext):
    def build_extensions(self):
        os.makedirs(self.build_temp, exist_ok=True)
        for ext in self.extensions:
            subprocess.check_call(["cmake", ext.cmake_lists_dir], cwd=self.build_temp)
        subprocess.check_call(["cmake", "--build", "."], cwd=self.build_temp)
        for ext in self.extensions:
            prefix = Path(self.get_ext_fullpath(ext.name)).parent.absolute()
            for _ in range(ext.name.count(".")):
                prefix = prefix.parent
            name = ext.name.removeprefix("pkg.").removeprefix("fa.")
            install = ["cmake", "--install", ".", "--prefix", prefix, "--component", name]
            subprocess.check_call(install, cwd=self.build_temp)


"""
VLLM_SETUP = SETUP_PY.replace(
    b")\n", b', ext_modules=[CMakeExtension("pkg._C"), CMakeExtension("pkg.fa._fa2_C")],\n'
)
VLLM_SETUP += b'    cmdclass={"build_ext": cmake_build_ext})\n'
VLLM_TOP = b"""cmake_minimum_required(VERSION 3.25)
project(pkg_extensions LANGUAGES NONE)
install(CODE "set(CMAKE_INSTALL_LOCAL_ONLY TRUE)" ALL_COMPONENTS)
add_custom_target(_C)
include(FetchContent)
include(${CMAKE_CURRENT_LIST_DIR}/cmake/fa.cmake)
"""
VLLM_FA = b"""if (DEFINED ENV{FA_SRC_DIR})
  set(FA_SRC_DIR $ENV{FA_SRC_DIR})
endif()
FetchContent_Declare(fa SOURCE_DIR ${FA_SRC_DIR} BINARY_DIR ${CMAKE_BINARY_DIR}/fa)
install(CODE "set(CMAKE_INSTALL_LOCAL_ONLY FALSE)" ALL_COMPONENTS)
install(CODE "set(OLD_CMAKE_INSTALL_PREFIX \\"\\${CMAKE_INSTALL_PREFIX}\\")" ALL_COMPONENTS)
install(CODE "set(CMAKE_INSTALL_PREFIX \\"\\${CMAKE_INSTALL_PREFIX}/pkg/\\")" ALL_COMPONENTS)
FetchContent_MakeAvailable(fa)
install(CODE "set(CMAKE_INSTALL_PREFIX \\"\\${OLD_CMAKE_INSTALL_PREFIX}\\")" ALL_COMPONENTS)
install(CODE "set(CMAKE_INSTALL_LOCAL_ONLY TRUE)" ALL_COMPONENTS)
install(DIRECTORY ${fa_SOURCE_DIR}/fa/ DESTINATION pkg/fa COMPONENT _fa2_C
  FILES_MATCHING PATTERN "*.py")
"""


def test_vllms_whole_shape_still_stops_the_check(tmp_path: Path) -> None:
    """vLLM 0.10.1's shape (vllm76): the prefix is the wheel's root, but install(CODE …) moves
    it to ``pkg/`` while a ``FetchContent`` project's own install rules run. A real build of
    this shape (setuptools 65.5.0, CMake 3.25.1, the project's source from the builder's
    environment as ``VLLM_FLASH_ATTN_SRC_DIR``) shipped that project's ``sampling_params.py``
    over the package's: its files may stand anywhere in the package, so nothing is matched."""
    more = {"setup.py": VLLM_BUILD_EXT + VLLM_SETUP, "cmake/fa.cmake": VLLM_FA}
    repo = _repo(tmp_path, SETUPTOOLS, VLLM_TOP, **more)

    said = _stopped_at(tmp_path, repo, REVERTED)

    line = VLLM_BUILD_EXT[: VLLM_BUILD_EXT.index(b'"cmake", ext.')].count(b"\n") + 1
    assert f"setup.py runs CMake (line {line}), whose CMake installs files" in said


PLUGIN = b'[build-system]\nrequires = ["setuptools", "scikit-build-core"]\n'
PLUGIN += b'build-backend = "setuptools.build_meta"\n'
GIVEN = {
    "setup.py runs CMake": (SETUPTOOLS, BUILD_EXT + RUNS["a list (vLLM)"] + SETUP, "setup.py runs"),
    "classic scikit-build": (CLASSIC, b"from skbuild import setup\n" + SETUP_PY, "scikit-build"),
    "py-build-cmake": (PY_BUILD_CMAKE + b"[tool.py-build-cmake.cmake]\n", b"", "py-build-cmake"),
    "the scikit-build-core plugin": (PLUGIN, SETUP_PY, "scikit-build-core's setuptools plugin"),
}


@pytest.mark.parametrize("pyproject, setup_py, said", list(GIVEN.values()), ids=list(GIVEN))
def test_with_source_prefix_a_build_running_cmake_still_stops_the_check(
    tmp_path: Path, pyproject: bytes, setup_py: bytes, said: str
) -> None:
    """vllm76: with ``--source-prefix`` only scikit-build-core's own CMake was read, so a
    ``setup.py`` running CMake (vLLM's real tree with ``--source-prefix ""``), classic
    scikit-build, py-build-cmake or scikit-build-core's setuptools plugin was never said, and a
    wheel keeping the package's old file, which the commit's build replaces with CMake's, matched
    (exit 0); it stops as without the prefix."""
    more = {"setup.py": setup_py} if setup_py else {}
    repo = _repo(tmp_path, pyproject, CMAKE, **more)
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)
    given = ("--source-prefix", "src/", "--source-all")

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD", *given)

    assert result.exit_code == 2, result.stdout
    assert said in result.stderr
    assert "installs files into the wheel, not read" in result.stderr


def _given_prefix(
    tmp_path: Path, setup_py: bytes, pyproject: bytes = SETUPTOOLS
) -> tuple[int, str]:
    repo = _repo(tmp_path, pyproject, CMAKE, **{"setup.py": setup_py})
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)
    given = ("--source-prefix", "src/", "--source-all")
    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD", *given)
    return result.exit_code, result.stderr


def test_with_source_prefix_a_setup_py_not_read_stops_the_check(tmp_path: Path) -> None:
    """A ``setup.py`` k3diff cannot parse may run CMake as well as any: with ``--source-prefix``
    nothing read it, and a wheel keeping the package's old file matched (exit 0)."""
    code, said = _given_prefix(tmp_path, BUILD_EXT + RUNS["a list (vLLM)"] + b"def (\n")

    assert code == 2
    assert "setup.py is not read (a symbolic link, over 256 KiB or not Python)" in said


def test_with_source_prefix_a_setup_py_running_no_cmake_still_checks(tmp_path: Path) -> None:
    """A ``setup.py`` naming no CMake, and one under another backend, leave the check as it was."""
    assert _given_prefix(tmp_path / "a", SETUP_PY) == (0, "")
    hatch = b'[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
    assert _given_prefix(tmp_path / "b", b"def (\n", hatch)[0] == 0


UNREAD_SETUP = {
    "a symbolic link": b"",
    "over 256 KiB": b"#" * (257 * 1024) + b"\n",
    "not Python": b"\0",
}


@pytest.mark.parametrize("tail", list(UNREAD_SETUP.values()), ids=list(UNREAD_SETUP))
@pytest.mark.parametrize("given", [(), ("--source-prefix", "src/")], ids=["", "prefix"])
def test_a_setup_py_not_read_stops_the_check_with_or_without_a_prefix(
    tmp_path: Path, tail: bytes, given: tuple[str, ...]
) -> None:
    """review76a: without ``--source-prefix`` a ``setup.py`` running CMake that is a link, over
    256 KiB or does not parse was said unread, and detection's place checked: a wheel keeping
    the package's old file matched (exit 0), while with the prefix it stopped (vllm76)."""
    setup_py = BUILD_EXT + RUNS["a list (vLLM)"] + SETUP + tail
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **{"setup.py" if tail else "real.py": setup_py})
    if not tail:
        (repo / "setup.py").symlink_to("real.py")
        commit(repo, {}, "link")
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD", *given)

    assert result.exit_code == 2, result.stdout
    assert "setup.py is not read (a symbolic link, over 256 KiB or not Python)" in result.stderr


HELPER = b"""import subprocess


class CMake:
    def install(self):
        subprocess.check_call(["cmake", "--install", ".", "--component", "_C"])
"""
IMPORTS = {
    "from a module (PyTorch)": b"from tools.setup_helpers.cmake import CMake\n",
    "a module": b"import tools.setup_helpers.cmake\n",
    "from a package": b"from tools.setup_helpers import cmake\n",
}


@pytest.mark.parametrize("imports", list(IMPORTS.values()), ids=list(IMPORTS))
@pytest.mark.parametrize("given", [(), ("--source-prefix", "src/")], ids=["", "prefix"])
def test_a_module_of_the_project_setup_py_imports_running_cmake_stops_the_check(
    tmp_path: Path, imports: bytes, given: tuple[str, ...]
) -> None:
    """review76a: PyTorch's ``setup.py`` runs CMake from ``tools/setup_helpers/cmake.py``;
    such a module was not read, and a wheel keeping the package's old file matched, exit 0."""
    more = {
        "setup.py": b"from setuptools import setup\n" + imports + SETUP_PY,
        "tools/__init__.py": b"",
        "tools/setup_helpers/__init__.py": b"",
        "tools/setup_helpers/cmake.py": HELPER,
    }
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **more)
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD", *given)

    assert result.exit_code == 2, result.stdout
    said = "tools/setup_helpers/cmake.py, which setup.py imports, runs CMake (line 6), whose CMake"
    assert said in result.stderr


def test_modules_setup_py_imports_running_no_cmake_leave_the_check_as_it_was(
    tmp_path: Path,
) -> None:
    """A module of the project naming no CMake, and one that is no file of it, change nothing."""
    imports = b"import os\nfrom tools.version import VERSION\nfrom setuptools import setup\n"
    more = {"setup.py": imports + SETUP_PY, "tools/version.py": b'VERSION = "1.0"\n'}
    _passes_with(tmp_path / "a", SETUPTOOLS, **more)


@pytest.mark.parametrize("tail", list(UNREAD_SETUP.values()), ids=list(UNREAD_SETUP))
def test_a_module_setup_py_imports_not_read_stops_the_check(tmp_path: Path, tail: bytes) -> None:
    """An imported module that is a link, over 256 KiB or not Python may run CMake too."""
    setup_py = b"from setuptools import setup\nimport tools.cm\n" + SETUP_PY
    named = "tools/cm.py" if tail else "tools/real.py"
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **{"setup.py": setup_py, named: b"X = 1\n" + tail})
    if not tail:
        (repo / "tools" / "cm.py").symlink_to("real.py")
        commit(repo, {}, "link")

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "tools/cm.py, which setup.py imports, " in said
    assert "not read" in said or "is not Python k3diff reads" in said


PATH_ENTRIES = {
    "grpcio's": (
        b'PYTHON_STEM = os.path.join("src", "python", "grpcio")\n'
        b"sys.path.insert(0, os.path.abspath(PYTHON_STEM))\n",
        "src/python/grpcio/commands.py",
    ),
    "beside setup.py": (
        b"HERE = os.path.dirname(os.path.abspath(__file__))\n"
        b'sys.path.append(os.path.join(HERE, "build_tools"))\n',
        "build_tools/commands.py",
    ),
}


@pytest.mark.parametrize("entry", list(PATH_ENTRIES), ids=list(PATH_ENTRIES))
@pytest.mark.parametrize("given", [(), ("--source-prefix", "src/")], ids=["", "prefix"])
def test_a_module_found_through_a_sys_path_entry_running_cmake_stops_the_check(
    tmp_path: Path, entry: str, given: tuple[str, ...]
) -> None:
    """grpcio's ``setup.py`` puts ``src/python/grpcio`` on ``sys.path`` and imports
    ``commands`` from there: such a module running ``cmake --install`` was looked for at the
    project's root alone, not read, and a wheel keeping the package's old file matched, exit 0
    (cmake77)."""
    adds, module = PATH_ENTRIES[entry]
    setup_py = b"import os\nimport sys\nfrom setuptools import setup\n" + adds
    setup_py += b"import commands\n" + SETUP_PY
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **{"setup.py": setup_py, module: HELPER})
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD", *given)

    assert (result.exit_code, result.stdout) == (2, ""), result.stderr
    assert f"{module}, which setup.py imports, runs CMake (line 6), whose CMake" in result.stderr
