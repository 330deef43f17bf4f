"""`wheels --source`: a build backend whose layout k3diff does not read stops (backend75).

Such a project was read as a setuptools layout and detection by paths chose the package's
directory: meson-python (numpy, scipy, pandas, scikit-learn) ships what ``meson.build``'s
``py.install_sources`` names, so with ``fixes/auth.py`` installed as ``pkg/sub/auth.py`` the old
``src/pkg/sub/auth.py`` was compared and a wheel reverting to it passed, exit 0. So did every
backend k3diff does not read (``cmeel.build``, ``enscons``, ``sipbuild.api``, ``uv_build``…)
and the project's own (``backend-path``), whatever it wraps. Each now stops, exit 2, one line
naming the pyproject.toml and the backend, with the advice to compare a built wheel.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from provenance.repokit import make_repo

from .test_provenance_backend_places import FILES, REVERTED, SAFE
from .test_provenance_cmake_install import _stopped_at

MESON_BUILD = (
    b"project('pkg', version: '1.0')\npy = import('python').find_installation()\n"
    b"py.install_sources(['src/pkg/__init__.py', 'src/pkg/util.py'], subdir: 'pkg')\n"
    b"py.install_sources(['fixes/auth.py'], subdir: 'pkg/sub')\n"
)
PROJECT = b'\n[project]\nname = "pkg"\nversion = "1.0"\n'


def _pyproject(backend: str, requires: str, more: str = "") -> bytes:
    system = f'[build-system]\nrequires = ["{requires}"]\nbuild-backend = "{backend}"\n{more}'
    return system.encode() + PROJECT


def _repo(
    tmp_path: Path, pyproject: bytes, more: Mapping[str, bytes] | None = None, under: str = ""
) -> Path:
    tree: dict[str, bytes | None] = {
        under + "src/pkg/" + path.removeprefix("pkg/"): data for path, data in REVERTED.items()
    }
    tree |= {under + "fixes/auth.py": SAFE, under + "pyproject.toml": pyproject}
    tree |= {under + path: data for path, data in (more or {}).items()}
    make_repo(tmp_path / "repo", [tree])
    return tmp_path / "repo"


UNREAD = {
    "meson-python": (_pyproject("mesonpy", "meson-python"), {"meson.build": MESON_BUILD}),
    "cmeel": (_pyproject("cmeel.build", "cmeel[build]"), {"CMakeLists.txt": b"project(pkg)\n"}),
    "enscons": (_pyproject("enscons.api", "enscons"), {"SConstruct": b"import enscons\n"}),
    "sip": (_pyproject("sipbuild.api", "sip"), {}),
    "uv_build": (_pyproject("uv_build", "uv_build"), {}),
    "old flit": (_pyproject("flit.buildapi", "flit"), {}),
    "old poetry": (_pyproject("poetry.masonry.api", "poetry"), {}),
    "hatchling's bootstrap": (_pyproject("hatchling.ouroboros", "hatchling"), {}),
}


@pytest.mark.parametrize("case", sorted(UNREAD))
def test_a_backend_k3diff_does_not_read_stops(tmp_path: Path, case: str) -> None:
    pyproject, more = UNREAD[case]
    backend = pyproject.split(b'build-backend = "')[1].split(b'"')[0].decode()
    repo = _repo(tmp_path, pyproject, more)

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert (
        f"pyproject.toml builds with {backend!r}, a backend whose layout k3diff does not " in said
    )
    assert str(repo) in said


IN_TREE = {
    "wrapping setuptools": ("backend", 'backend-path = ["_build"]\n'),
    "setuptools from its own tree": ("setuptools.build_meta", 'backend-path = ["."]\n'),
}


@pytest.mark.parametrize("case", sorted(IN_TREE))
def test_the_projects_own_backend_stops(tmp_path: Path, case: str) -> None:
    """The backend is the project's code at the commit (Pillow's ``_custom_build``, PyYAML's
    ``packaging/_pyyaml_pep517.py``): it may wrap setuptools, or ship any file anywhere, and
    none of it runs here."""
    backend, path = IN_TREE[case]
    wrapper = b"from setuptools.build_meta import *\n"
    setup_cfg = b"[options]\npackage_dir =\n    =src\npackages = find:\n"
    repo = _repo(
        tmp_path,
        _pyproject(backend, "setuptools", path),
        {"_build/backend.py": wrapper, "setup.cfg": setup_cfg},
    )

    said = _stopped_at(tmp_path, repo, REVERTED)

    shown = path.partition(" = ")[2].strip().replace('"', "'")
    assert f"builds with its own backend {backend!r} (backend-path {shown}): code of" in said
    assert "the build imports and runs, and which may write or change any file" in said


def test_a_project_in_a_subdirectory_is_named(tmp_path: Path) -> None:
    repo = _repo(tmp_path, _pyproject("mesonpy", "meson-python"), under="python/")

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert "python/pyproject.toml builds with 'mesonpy', a backend" in said


READ = {
    "setuptools' legacy backend": _pyproject("setuptools.build_meta:__legacy__", "setuptools"),
    "no build-backend": b'[build-system]\nrequires = ["setuptools"]\n' + PROJECT,
    "no build-system": PROJECT,
}


@pytest.mark.parametrize("case", sorted(READ))
def test_setuptools_by_any_of_its_names_is_still_read(tmp_path: Path, case: str) -> None:
    setup_cfg = b"[options]\npackage_dir =\n    =src\n"
    repo = _repo(tmp_path, READ[case], {"setup.cfg": setup_cfg})
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)

    code, report = run_json("wheels", base, patch, "--source", repo, "--commit", "HEAD")

    assert code == 0
    assert report["provenance"]["prefix_from"] == "setup.cfg [options] package_dir"


def test_with_source_prefix_a_backend_k3diff_does_not_read_still_stops(tmp_path: Path) -> None:
    """``--source-prefix`` names the package's directory, not what the build installs over
    it: meson-python still ships ``fixes/auth.py`` as ``pkg/sub/auth.py`` (as src73 for
    scikit-build-core's CMake)."""
    repo = _repo(tmp_path, *UNREAD["meson-python"])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)

    result = run_k3diff(
        "wheels", base, patch, "--source", repo, "--commit", "HEAD", "--source-prefix", "src/"
    )

    assert result.exit_code == 2, result.stdout
    assert len(result.stderr.splitlines()) == 1
    assert "pyproject.toml builds with 'mesonpy', a backend whose layout" in result.stderr
