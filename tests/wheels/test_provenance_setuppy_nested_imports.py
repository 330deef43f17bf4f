"""`wheels --source`: the project's modules that modules ``setup.py`` imports import in turn.

``setup.py`` importing ``build_helpers``, which imports ``_cmake``, whose command class runs
``cmake --install`` over the package's old ``src/pkg/sub/auth.py``: only ``build_helpers`` was
read, and a wheel keeping the old file matched, exit 0; so did a relative import of a package
of the project (``from .cm import CMakeBuild`` in ``tools/helpers.py``), an
``importlib.import_module("cm")`` and a ``setup.cfg`` command class whose module imports
``_cmake`` (source78). Each now stops, exit 2, naming the module and who imports it.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from provenance.repokit import make_repo

from .test_provenance_backend_places import REVERTED, SAFE
from .test_provenance_cmake_install import _stopped_at
from .test_provenance_cmake_unread import SETUP_PY, _passes_with
from .test_provenance_config_stops import CM, SETUP_CFG
from .test_provenance_setuppy_cmake import CMAKE, SETUPTOOLS

HEAD = b"import os, sys\nfrom setuptools import setup\n"
SHAPES = {
    "an import of an import": (
        {
            "setup.py": HEAD + b"import build_helpers\n" + SETUP_PY,
            "build_helpers.py": b"from _cmake import CMakeBuild\n",
            "_cmake.py": CM,
        },
        "_cmake.py, which build_helpers.py imports, runs CMake (line 8)",
    ),
    "three deep": (
        {
            "setup.py": HEAD + b"from tools import helpers\n" + SETUP_PY,
            "tools/__init__.py": b"",
            "tools/helpers.py": b"import tools.more\n",
            "tools/more.py": b"import _cmake\n",
            "_cmake.py": CM,
        },
        "_cmake.py, which tools/more.py imports, runs CMake (line 8)",
    ),
    "a relative import": (
        {
            "setup.py": HEAD + b"import tools.helpers\n" + SETUP_PY,
            "tools/__init__.py": b"",
            "tools/helpers.py": b"from .cm import CMakeBuild\n",
            "tools/cm.py": CM,
        },
        "tools/cm.py, which tools/helpers.py imports, runs CMake (line 8)",
    ),
    "a relative import of the package": (
        {
            "setup.py": HEAD + b"import tools.helpers\n" + SETUP_PY,
            "tools/__init__.py": b"",
            "tools/helpers.py": b"from . import cm\n",
            "tools/cm.py": CM,
        },
        "tools/cm.py, which tools/helpers.py imports, runs CMake (line 8)",
    ),
    "importlib.import_module": (
        {
            "setup.py": HEAD + b"import importlib\nimportlib.import_module('cm')\n" + SETUP_PY,
            "cm.py": CM,
        },
        "cm.py, which setup.py imports, runs CMake (line 8)",
    ),
    "__import__ in a module": (
        {
            "setup.py": HEAD + b"import helpers\n" + SETUP_PY,
            "helpers.py": b"def load():\n    return __import__('tools.cm')\n",
            "tools/cm.py": CM,
        },
        "tools/cm.py, which helpers.py imports, runs CMake (line 8)",
    ),
    "a sys.path entry": (
        {
            "setup.py": HEAD + b"sys.path.insert(0, 'build')\nimport helpers\n" + SETUP_PY,
            "build/helpers.py": b"import _cmake\n",
            "build/_cmake.py": CM,
        },
        "build/_cmake.py, which build/helpers.py imports, runs CMake (line 8)",
    ),
    "setup.cfg's cmdclass": (
        {
            "setup.py": HEAD + SETUP_PY,
            "setup.cfg": SETUP_CFG + b"cmdclass =\n    build_ext = tools.cm.CMakeBuild\n",
            "tools/__init__.py": b"",
            "tools/cm.py": b"from tools._cmake import CMakeBuild\n",
            "tools/_cmake.py": CM,
        },
        "tools/_cmake.py, which tools/cm.py imports, runs CMake (line 8)",
    ),
}


def _repo(tmp_path: Path, files: dict[str, bytes]) -> Path:
    tree: dict[str, bytes | None] = {
        "src/pkg/" + path.removeprefix("pkg/"): data for path, data in REVERTED.items()
    }
    tree |= {"fixes/auth.py": SAFE, "pyproject.toml": SETUPTOOLS, "CMakeLists.txt": CMAKE}
    make_repo(tmp_path / "repo", [tree | files])
    return tmp_path / "repo"


@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_a_module_imported_in_turn_running_cmake_stops_the_check(
    tmp_path: Path, shape: str
) -> None:
    files, said = SHAPES[shape]

    stopped = _stopped_at(tmp_path, _repo(tmp_path, files), REVERTED)

    assert said in stopped


def test_an_import_cycle_running_no_cmake_still_checks(tmp_path: Path) -> None:
    quiet = {
        "setup.py": HEAD + b"import a\n" + SETUP_PY,
        "a.py": b"import b\n",
        "b.py": b"from a import x\nimport numpy\n",
    }
    _passes_with(tmp_path / "a", SETUPTOOLS, **quiet)


def test_imports_too_deep_stop_the_check(tmp_path: Path) -> None:
    chain = {f"m{n}.py": f"import m{n + 1}\n".encode() for n in range(12)}
    files = {"setup.py": HEAD + b"import m0\n" + SETUP_PY, **chain}

    stopped = _stopped_at(tmp_path, _repo(tmp_path, files), REVERTED)

    assert "m9.py, which m8.py imports, imported 9 imports deep (over 8), not read" in stopped


INSTALLED = {
    "from import": b"from cmake_build_extension import BuildExtension, CMakeExtension\n"
    b'setup(name="pkg", packages=["pkg", "pkg.sub"], package_dir={"": "src"},\n'
    b'      cmdclass={"build_ext": BuildExtension})\n',
    "a module's attribute, dict()": b"import cmake_build_extension as cbe\n"
    b'setup(name="pkg", packages=["pkg", "pkg.sub"], package_dir={"": "src"},\n'
    b"      cmdclass=dict(build_ext=cbe.BuildExtension))\n",
    "a ** mapping": b"from setuptools_cmake import Build\n"
    b'OPTIONS = {"cmdclass": {"build_ext": Build}}\n'
    b'setup(name="pkg", packages=["pkg", "pkg.sub"], package_dir={"": "src"}, **OPTIONS)\n',
}


@pytest.mark.parametrize("shape", list(INSTALLED), ids=list(INSTALLED))
def test_a_command_class_of_an_installed_package_stops_the_check(
    tmp_path: Path, shape: str
) -> None:
    """cmake-build-extension's ``BuildExtension`` runs CMake from code the commit does not
    hold (installed by ``[build-system] requires``)."""
    files = {"setup.py": HEAD + INSTALLED[shape]}

    stopped = _stopped_at(tmp_path, _repo(tmp_path, files), REVERTED)

    said = "is a package the commit holds no file of (it comes from the build's environment, if there at all), so"
    assert said in stopped
    assert "cmdclass build_ext is " in stopped


def test_known_command_classes_and_the_project_s_own_still_check(tmp_path: Path) -> None:
    """setuptools', Cython's and pybind11's ``build_ext``, and one of the project's modules
    running no CMake."""
    setup_py = HEAD + (
        b"from Cython.Distutils import build_ext\nfrom pybind11.setup_helpers import build_ext"
        b" as b2\nfrom helpers import Quiet\nfrom setuptools.command.sdist import sdist\n"
        b'setup(name="pkg", packages=["pkg", "pkg.sub"], package_dir={"": "src"},\n'
        b'      cmdclass={"build_ext": build_ext, "b2": b2, "q": Quiet, "sdist": sdist})\n'
    )
    quiet = {"setup.py": setup_py, "helpers.py": b"class Quiet:\n    pass\n"}
    _passes_with(tmp_path / "a", SETUPTOOLS, **quiet)


CONFIGURED = {
    "setup.cfg": (
        {"setup.cfg": SETUP_CFG + b"cmdclass =\n    build_ext = cmake_build_extension.Build\n"},
        "setup.cfg [options] cmdclass names cmake_build_extension.Build, from",
    ),
    "pyproject.toml": (
        {"pyproject.toml": SETUPTOOLS + b'[tool.setuptools.cmdclass]\nbuild_ext = "cbe.x.Build"\n'},
        "pyproject.toml [tool.setuptools] cmdclass names cbe.x.Build, from cbe.x; cbe is a",
    ),
}


@pytest.mark.parametrize("where", list(CONFIGURED), ids=list(CONFIGURED))
def test_a_configured_command_class_of_an_installed_package_stops_the_check(
    tmp_path: Path, where: str
) -> None:
    more, said = CONFIGURED[where]
    files = {"setup.py": HEAD + SETUP_PY, **more}

    stopped = _stopped_at(tmp_path, _repo(tmp_path, files), REVERTED)

    assert said in stopped
    assert (
        "is a package the commit holds no file of (it comes from the build's environment, if there at all), so"
        in stopped
    )


def test_a_configured_known_command_class_still_checks(tmp_path: Path) -> None:
    cfg = SETUP_CFG + b"cmdclass =\n    build_ext = Cython.Distutils.build_ext\n"
    _passes_with(tmp_path / "a", SETUPTOOLS, **{"setup.py": HEAD + SETUP_PY, "setup.cfg": cfg})


def _many(count: int, body: bytes) -> dict[str, bytes]:
    """``setup.py`` importing ``m0``, which imports ``m1`` … ``m{count}``, each `body`."""
    names = ", ".join(f"m{n}" for n in range(1, count + 1)).encode()
    modules = {f"m{n}.py": body for n in range(1, count + 1)}
    setup_py = HEAD + b"import m0\n" + SETUP_PY
    return {"setup.py": setup_py, "m0.py": b"import " + names + b"\n"} | modules


def test_modules_imported_over_1_mib_in_all_still_check(tmp_path: Path) -> None:
    """Cython's ``setup.py`` imports its compiler, 3.4 MiB: over source78's 1 MiB, it stopped
    (exit 2); 1.6 MiB of documented modules running no CMake now check (cython78)."""
    prose = b'"""' + b"The compiler reads the module and writes its C. " * 800 + b'"""\n'
    body = prose + b"def run(x):\n    return x + 1\n"

    _passes_with(tmp_path / "a", SETUPTOOLS, **_many(40, body))


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"x = " + b"+".join([b"a"] * 60_000) + b"\n", "are over 1,000,000 words together"),
        ((b"#" + b" " * 80 + b"\n") * 1100, "are over 8192 KiB"),
    ],
    ids=["words", "bytes"],
)
def test_modules_imported_past_the_caps_stop_the_check(
    tmp_path: Path, body: bytes, said: str
) -> None:
    """120,000 words a module (``a+a+…``, a million of them parses in some 3 s) in 10, or
    90 KiB of comment lines in 100."""
    count = 10 if said.endswith("together") else 100

    stopped = _stopped_at(tmp_path, _repo(tmp_path, _many(count, body)), REVERTED)

    assert said in stopped


def test_modules_naming_cmake_past_their_words_cap_stop_the_check(tmp_path: Path) -> None:
    """Each module holding ``setup(install_requires=["cmake"])`` is read further, some five
    walks: 120 of them of ``x=a+a+…`` lines, a million words, took 9.4 s of CPU and checked,
    exit 0; over 200,000 words of them now stop before they are read (review78i)."""
    held = b"from setuptools import setup\nsetup(install_requires=['cmake'])\n"
    files = _many(2, held + (b"x = " + b"+".join([b"a"] * 60) + b"\n") * 900)  # 112,000 words

    stopped = _stopped_at(tmp_path, _repo(tmp_path, files), REVERTED)

    assert "m2.py, which m0.py imports, names CMake (over 200,000 words" in stopped


def test_modules_in_utf_7_are_counted_by_their_text(tmp_path: Path) -> None:
    """``# coding: utf-7`` holds a line of tokens in one base64 run, a single word as bytes:
    120 modules of 20,000 words each (2.4 million) passed the words cap and checked, exit 0
    (4.4 s of CPU; 21.5 s each holding ``install_requires=["cmake"]``). Their text counts now
    (review78i)."""
    text = ("x = " + "+".join(["a"] * 60) + "\n") * 1000  # 124,000 words
    utf_7 = b"+" + base64.b64encode(text.encode("utf-16-be")).rstrip(b"=") + b"-\n"

    stopped = _stopped_at(
        tmp_path, _repo(tmp_path, _many(9, b"# coding: utf-7\n" + utf_7)), REVERTED
    )

    assert "are over 1,000,000 words together" in stopped
