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
