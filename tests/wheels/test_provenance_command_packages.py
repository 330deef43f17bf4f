"""`wheels --source`: ``setup.cfg``'s ``[global] command_packages`` (holds78). setuptools
looks there for a command it does not know, and ``[aliases]`` runs it in the build
(``bdist_wheel = cmakeinstall bdist_wheel``: setuptools 84 from ``setup.py`` ran the
project's ``tools/cmakeinstall.py``); a command running ``cmake --install`` over
``pkg/sub/auth.py`` was never read, and a wheel keeping the old file matched, exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_provenance_backend_places import REVERTED
from .test_provenance_cmake_install import _repo, _stopped_at
from .test_provenance_cmake_unread import _passes_with
from .test_provenance_setuppy_cmake import CMAKE

COMMAND = b"""import subprocess

from setuptools import Command


class cmakeinstall(Command):
    user_options = []

    def initialize_options(self):
        pass

    def finalize_options(self):
        pass

    def run(self):
        subprocess.check_call(["cmake", "--install", ".", "--prefix", "build/lib"])
"""
SETUP_PY = (
    b"from setuptools import setup\nsetup(package_dir={'': 'src'}, packages=['pkg', 'pkg.sub'])\n"
)
ALIASES = b"[aliases]\nbdist_wheel = cmakeinstall bdist_wheel\n"


@pytest.mark.parametrize(
    "option",
    [b"command_packages = tools", b"command-packages = tools"],
    ids=["command_packages", "command-packages, on which the build fails"],
)
def test_command_packages_stop_the_check(tmp_path: Path, option: bytes) -> None:
    cfg = b"[global]\n" + option + b"\n\n" + ALIASES
    more = {
        "setup.py": SETUP_PY,
        "setup.cfg": cfg,
        "tools/__init__.py": b"",
        "tools/cmakeinstall.py": COMMAND,
    }
    repo = _repo(tmp_path, b"", CMAKE, **more)

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert ": setup.cfg [global] command_packages names 'tools', packages whose modules" in said
    assert "how the project builds is not known" in said


def test_aliases_and_other_global_options_leave_the_check_as_it_was(tmp_path: Path) -> None:
    """``[aliases] test = pytest`` (commands setuptools knows) and ``[global] verbose``."""
    cfg = b"[global]\nverbose = 1\n\n[aliases]\ntest = pytest\n"
    _passes_with(tmp_path / "a", b"", **{"setup.py": SETUP_PY, "setup.cfg": cfg})


@pytest.mark.parametrize(
    ("given", "aliases"),
    [
        (", command_packages='tools'", ALIASES),
        (", options={'global': {'command_packages': 'tools'}}", ALIASES),
        (
            ", options={'global': {'command_packages': 'tools'},"
            " 'aliases': {'bdist_wheel': 'cmakeinstall bdist_wheel'}}",
            b"",
        ),
        (", command_packages='tools'", b"[flake8]\n" + b"# padding\n" * (30 * 1024) + ALIASES),
    ],
    ids=["keyword", "options", "options with aliases", "keyword, setup.cfg over the cap"],
)
def test_command_packages_setup_py_sets_stop_the_check(
    tmp_path: Path, given: str, aliases: bytes
) -> None:
    """``setup.py`` setting ``command_packages`` (review78a: setuptools 84 ran
    ``tools/cmakeinstall.py`` for each, and the check passed, exit 0; the last, a 300 KiB
    ``setup.cfg`` of linters' settings holding the ``[aliases]``, stopped before holds78)."""
    setup_py = SETUP_PY.replace(b"])\n", b"]" + given.encode() + b")\n")
    more = {"setup.py": setup_py, "tools/__init__.py": b"", "tools/cmakeinstall.py": COMMAND}
    if aliases:
        more["setup.cfg"] = aliases
    repo = _repo(tmp_path, b"", CMAKE, **more)

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert ": setup.py sets command_packages in setup() (line 2), packages whose" in said


def test_other_setup_py_options_leave_the_check_as_it_was(tmp_path: Path) -> None:
    """``options={'bdist_wheel': …, 'global': {'verbose': 1}}`` (real projects' shape)."""
    setup_py = SETUP_PY.replace(
        b"])\n", b"], options={'bdist_wheel': {'universal': 1}, 'global': {'verbose': 1}})\n"
    )
    _passes_with(tmp_path / "a", b"", **{"setup.py": setup_py, "setup.cfg": ALIASES})
