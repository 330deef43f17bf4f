"""`wheels --source`: a module ``setup.py`` (or a command class ``setup.cfg`` names) runs from
a directory k3diff did not look in (review77b).

``sys.path`` changed another way than an ``insert``/``append`` of a value read
(``sys.path[:0] = …``, ``extend``, ``+=``, ``pathlib``, ``site.addsitedir`` …), a module under
a directory that is a symbolic link, and a command class setuptools imports from an entry
``setup.py`` adds: each ran ``cmake --install`` over the package's old ``src/pkg/sub/auth.py``
unread, and a wheel keeping the old file matched, exit 0.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff
from provenance.repokit import commit, commit_gitlink

from .test_provenance_backend_places import FILES, REVERTED
from .test_provenance_cmake_install import _repo, _stopped_at
from .test_provenance_cmake_unread import SETUP_PY, _passes_with
from .test_provenance_config_stops import CM, SETUP_CFG
from .test_provenance_setuppy_cmake import CMAKE, SETUPTOOLS

HEAD = b"import os, sys\nfrom setuptools import setup\n"
CHANGES = {
    "sys.path[:0] =": b"sys.path[:0] = ['build_tools']\n",
    "extend": b"sys.path.extend(['build_tools'])\n",
    "+=": b"sys.path += ['build_tools']\n",
    "pathlib": b"import pathlib\n"
    b"sys.path.insert(0, str(pathlib.Path(__file__).parent / 'build_tools'))\n",
    "os.path's join imported": b"from os.path import join\n"
    b"sys.path.insert(0, join('build_tools'))\n",
    "site.addsitedir": b"import site\nsite.addsitedir('build_tools')\n",
    "from sys import path": b"from sys import path\npath.insert(0, 'build_tools')\n",
    "import sys as s": b"import sys as s\ns.path.insert(0, 'build' + '_tools')\n",
}


@pytest.mark.parametrize("change", list(CHANGES.values()), ids=list(CHANGES))
def test_a_sys_path_change_not_read_stops_on_the_module_it_reaches(
    tmp_path: Path, change: bytes
) -> None:
    """Every directory of the commit holding the imported name is taken as an entry."""
    setup_py = HEAD + change + b"import commands\n" + SETUP_PY
    repo = _repo(
        tmp_path, SETUPTOOLS, CMAKE, **{"setup.py": setup_py, "build_tools/commands.py": CM}
    )

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "build_tools/commands.py, which setup.py imports, runs CMake (line 8)" in said


def test_a_sys_path_change_not_read_reaching_no_cmake_still_checks(tmp_path: Path) -> None:
    """A module found that way running no CMake, and names no file of the commit holds."""
    setup_py = HEAD + CHANGES["pathlib"] + b"import numpy, commands\n" + SETUP_PY
    quiet = CM.replace(b'"cmake"', b'"ninja"')
    _passes_with(
        tmp_path / "a", SETUPTOOLS, **{"setup.py": setup_py, "build_tools/commands.py": quiet}
    )


def test_too_many_directories_a_change_not_read_may_reach_stop_the_check(tmp_path: Path) -> None:
    setup_py = HEAD + CHANGES["extend"] + b"import commands\n" + SETUP_PY
    many = {f"d{n}/commands.py": b"X = 1\n" for n in range(17)}
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **{"setup.py": setup_py, **many})

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "setup.py changes sys.path in a way k3diff does not read (line 3), and 17 dir" in said


LINKED = {
    "setup.py's import": (HEAD + b"import tools.cm\n" + SETUP_PY, {}, "setup.py imports"),
    "a sys.path entry": (
        HEAD + b"sys.path.insert(0, 'tools')\nimport cm\n" + SETUP_PY,
        {},
        "setup.py imports",
    ),
    "setup.cfg's cmdclass": (
        HEAD + SETUP_PY,
        {"setup.cfg": SETUP_CFG + b"cmdclass =\n    build_ext = tools.cm.CMakeBuild\n"},
        "setup.cfg [options] cmdclass names",
    ),
}


@pytest.mark.parametrize("case", list(LINKED), ids=list(LINKED))
def test_a_module_under_a_linked_directory_stops_the_check(tmp_path: Path, case: str) -> None:
    """``tools`` a link to ``real/``, which holds ``cm.py``: Python imports through it."""
    setup_py, more, how = LINKED[case]
    files = {"setup.py": setup_py, "real/cm.py": CM, "real/__init__.py": b"", **more}
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **files)
    os.symlink("real", repo / "tools")
    commit(repo, {}, "link")

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert f", which {how}, is under the symbolic link or submodule tools, not read" in said


SUBMODULE = {
    **LINKED,
    "setup.cfg's version attr": (
        HEAD + SETUP_PY,
        {"setup.cfg": SETUP_CFG.replace(b"pkg\n", b"pkg\nversion = attr: tools.cm.V\n", 1)},
        "setup.cfg [metadata] version imports",
    ),
}


@pytest.mark.parametrize("case", list(SUBMODULE), ids=list(SUBMODULE))
@pytest.mark.parametrize("given", [(), ("--source-prefix", "src/")], ids=["", "prefix"])
def test_a_module_in_a_submodule_stops_the_check(
    tmp_path: Path, case: str, given: tuple[str, ...]
) -> None:
    """``tools`` a submodule (a gitlink, mode 160000): a recursive checkout holds its
    ``cm.py``, which the build imports and k3diff does not read (submod77: exit 0, "1 match",
    where a link there stopped)."""
    setup_py, more, how = SUBMODULE[case]
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **{"setup.py": setup_py, **more})
    commit_gitlink(repo, "tools")
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD", *given)

    assert (result.exit_code, result.stdout, len(result.stderr.splitlines())) == (2, "", 1)
    said = f", which {how}, is under the symbolic link or submodule tools, not read, and may"
    assert said in result.stderr


def test_a_command_class_from_a_sys_path_entry_of_setup_py_stops_the_check(
    tmp_path: Path,
) -> None:
    """setuptools finds no ``commands.py`` where it looks first, then imports ``commands``
    from ``sys.path``, where ``setup.py`` put ``build_tools/`` (``importlib.util.find_spec``)."""
    cfg = SETUP_CFG + b"cmdclass =\n    build_ext = commands.CMakeBuild\n"
    setup_py = HEAD + b"sys.path.insert(0, 'build_tools')\n" + SETUP_PY
    files = {"setup.py": setup_py, "setup.cfg": cfg, "build_tools/commands.py": CM}
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **files)

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "build_tools/commands.py, which setup.cfg [options] cmdclass names, runs CMake" in said


RUNS = b'import subprocess\nsubprocess.check_call(["cmake", "--install", "b", "--prefix", "src"])\n'
ATTR = {
    "setup.cfg": {
        "setup.cfg": SETUP_CFG.replace(b"pkg\n", b"pkg\nversion = attr: tools.cm.VERSION\n", 1)
    },
    "[tool.setuptools.dynamic]": {
        "pyproject.toml": SETUPTOOLS
        + b'[project]\nname = "pkg"\ndynamic = ["version"]\n'
        + b'[tool.setuptools.dynamic]\nversion = {attr = "tools.cm.VERSION"}\n'
    },
}


@pytest.mark.parametrize("where", list(ATTR), ids=list(ATTR))
def test_an_attr_version_setuptools_imports_running_cmake_stops_the_check(
    tmp_path: Path, where: str
) -> None:
    """``VERSION`` no literal: setuptools' ``StaticModule`` fails and it imports
    ``tools/cm.py``, whose CMake ran unread (review77b: exit 0). A literal is read statically,
    and nothing is imported."""
    files = {"tools/cm.py": RUNS + b"VERSION = str(1.0)\n", **ATTR[where]}
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **files)

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "tools/cm.py, which " in said
    assert " version imports, runs CMake (line 2)" in said
    static = {"tools/cm.py": RUNS + b'VERSION = "1.0"\n', **ATTR[where]}
    _passes_with(tmp_path / "a", SETUPTOOLS, **static)


RUN = b"run = lambda **given: subprocess.check_call(given.popitem()[1])\n"
REPLACED = {
    "an alias's attribute": b"import setuptools as st, subprocess, types\n"
    + RUN
    + b"st.x = types.SimpleNamespace(setup=run)\n"
    + b'st.x.setup(setup_requires=["cmake", "--install", "b"])\n',
    "setuptools' attribute": b"import setuptools, subprocess, types\n"
    + RUN
    + b"setuptools.x = types.SimpleNamespace(setup=run)\n"
    + b'setuptools.x.setup(setup_requires=["cmake", "--install", "b"])\n',
    "distutils' core set": b"import distutils, subprocess, types\n"
    + RUN
    + b"x = distutils\nx.core = types.SimpleNamespace(setup=run)\n"
    + b'from distutils import core\ncore.setup(setup_requires=["cmake", "--install", "b"])\n',
}


@pytest.mark.parametrize("setup_py", list(REPLACED.values()), ids=list(REPLACED))
def test_a_setup_set_on_a_setuptools_module_still_stops(tmp_path: Path, setup_py: bytes) -> None:
    """``st.x = SimpleNamespace(setup=run)`` then ``st.x.setup(setup_requires=[…])`` runs
    the list (a real run of ``setuptools.x.setup`` did): review77b, taken as setuptools'
    ``setup``, exit 0 (the first and third stopped before cmake77)."""
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **{"setup.py": setup_py})

    said = _stopped_at(tmp_path, repo, REVERTED)

    line = setup_py.count(b"\n")
    assert f"setup.py runs CMake (line {line}), whose CMake installs files" in said
