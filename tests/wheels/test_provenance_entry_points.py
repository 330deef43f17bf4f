"""`wheels --source`: entry points of metadata the commit holds in the project's directory
that setuptools loads in the build (review78a). A committed ``evil.dist-info`` whose
``entry_points.txt`` names ``[setuptools.finalize_distribution_options]`` ran the project's
``tools/hook.py`` in a setuptools 84 build (PEP 517's legacy path puts the project's directory
on ``sys.path``), which k3diff never read: a hook running ``cmake --install`` over
``pkg/sub/auth.py`` and a wheel keeping the old file matched, exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_provenance_backend_places import REVERTED
from .test_provenance_cmake_install import _repo, _stopped_at
from .test_provenance_cmake_unread import _passes_with
from .test_provenance_command_packages import COMMAND, SETUP_PY
from .test_provenance_setuppy_cmake import CMAKE

HOOK = COMMAND + b"\n\ndef hook(dist):\n    cmakeinstall.run(None)\n"
METADATA = b"Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n"


@pytest.mark.parametrize(
    ("folder", "points"),
    [
        ("evil.dist-info", b"[setuptools.finalize_distribution_options]\nevil = tools.hook:hook\n"),
        ("evil.egg-info", b"[console_scripts]\ne = x:y\n\n[ distutils.commands ]\nbuild_py = tools.hook:B\n"),
    ],
    ids=["finalize_distribution_options", "distutils.commands"],
)  # fmt: skip
def test_build_entry_points_of_the_commit_stop_the_check(
    tmp_path: Path, folder: str, points: bytes
) -> None:
    more = {
        "setup.py": SETUP_PY,
        "tools/__init__.py": b"",
        "tools/hook.py": HOOK,
        f"{folder}/METADATA": METADATA,
        f"{folder}/entry_points.txt": points,
    }
    repo = _repo(tmp_path, b"", CMAKE, **more)

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert f": {folder}/entry_points.txt names entry points setuptools loads in the build" in said
    assert "code of the project it runs, not read: how the project builds is not known" in said


def test_a_committed_egg_info_of_scripts_leaves_the_check_as_it_was(tmp_path: Path) -> None:
    """``pkg.egg-info`` committed by mistake, its ``console_scripts`` only."""
    more = {
        "setup.py": SETUP_PY,
        "pkg.egg-info/PKG-INFO": METADATA,
        "pkg.egg-info/entry_points.txt": b"[console_scripts]\npkg = pkg.cli:main\n",
    }
    _passes_with(tmp_path / "a", b"", **more)
