"""`wheels --source`: a project's configuration k3diff cannot read, and the command classes
it names, stop the check (cmake77).

A ``pyproject.toml`` that is a symbolic link, over 256 KiB, holds a line of over 128 dots or is
not TOML was "not read" and detection decided: where it named py-build-cmake running CMake,
scikit-build-core or a backend of the project's own, whose build installs ``fixes/auth.py`` over
the package's old ``src/pkg/sub/auth.py``, a wheel keeping the old file matched, exit 0. A
command class ``setup.cfg``'s ``[options] cmdclass`` or ``[tool.setuptools] cmdclass`` names,
from a module of the project running ``cmake --install``, was not read either, exit 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff
from provenance.repokit import commit

from .test_provenance_backend_places import FILES, REVERTED
from .test_provenance_cmake_install import PACKAGES, SKBUILD, _repo, _stopped_at
from .test_provenance_cmake_unread import PY_BUILD_CMAKE, SETUP_PY, _passes_with
from .test_provenance_setuppy_cmake import CMAKE, SETUPTOOLS

BACKENDS = {
    "py-build-cmake": PY_BUILD_CMAKE + b'[tool.py-build-cmake.cmake]\nsource_path = "."\n',
    "scikit-build-core": SKBUILD + PACKAGES,
    "its own backend": (
        b'[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["_build"]\n'
    ),
}
UNREAD = {
    "a symbolic link": (b"", "pyproject.toml is a symbolic link, not read"),
    "over 256 KiB": (b"#" * (257 * 1024) + b"\n", "pyproject.toml is over 256 KiB, not read"),
    "a line of 130 dots": (
        b"x" + b".x" * 130 + b" = 1\n",
        "pyproject.toml has a line of over 128 dots, not read",
    ),
    "not TOML": (b"[build-system\n", "pyproject.toml is not valid TOML"),
}


def _unread_repo(tmp_path: Path, backend: bytes, tail: bytes, place: str = "") -> Path:
    """The package's old ``src/pkg/sub/auth.py``, CMake installing the fix over it, and the
    ``pyproject.toml`` of the project in `place` naming `backend`, made unreadable by `tail`
    (none: a link to it)."""
    named = place + ("pyproject.toml" if tail else "build.toml")
    repo = _repo(tmp_path, b"", CMAKE, **{named: backend + tail})
    if not tail:
        if not place:
            (repo / "pyproject.toml").unlink()
        (repo / place / "pyproject.toml").symlink_to("build.toml")
        commit(repo, {}, "link")
    return repo


@pytest.mark.parametrize("backend", list(BACKENDS.values()), ids=list(BACKENDS))
@pytest.mark.parametrize("unread", list(UNREAD.values()), ids=list(UNREAD))
def test_a_pyproject_not_read_stops_the_check(
    tmp_path: Path, backend: bytes, unread: tuple[bytes, str]
) -> None:
    """Detection found ``src/`` and the old file matched, exit 0: which backend builds, and so
    what it installs over the package, is not known; the run stops, naming the file and why."""
    tail, reason = unread
    repo = _unread_repo(tmp_path, backend, tail)

    said = _stopped_at(tmp_path, repo, REVERTED)

    assert f": {reason}: how the project builds is not known" in said


@pytest.mark.parametrize("unread", list(UNREAD.values()), ids=list(UNREAD))
@pytest.mark.parametrize(
    "place, given",
    [("", ("--source-prefix", "src/")), ("a/", ()), ("a/", ("--source-prefix", "a/b/src/"))],
    ids=["the root, a prefix", "a project above", "a project above, a prefix"],
)
def test_a_pyproject_not_read_on_the_way_to_the_package_stops_the_check(
    tmp_path: Path, unread: tuple[bytes, str], place: str, given: tuple[str, ...]
) -> None:
    """With ``--source-prefix``, or in a project between the root and the package's own
    (``a/`` over ``a/b/`` holding ``setup.cfg`` and ``src/pkg/``), as at the root."""
    tail, reason = unread
    repo = _unread_repo(tmp_path, BACKENDS["py-build-cmake"], tail, place)
    if place:
        moved = {"a/b/" + path: (repo / path).read_bytes() for path in ("fixes/auth.py",)}
        package = {f"a/b/src/pkg/{p.removeprefix('pkg/')}": d for p, d in REVERTED.items()}
        gone = {f"src/pkg/{p.removeprefix('pkg/')}": None for p in REVERTED}
        cfg = {"a/b/setup.cfg": b"[metadata]\nname = pkg\n"}
        commit(repo, {**moved, **package, **gone, **cfg, "fixes/auth.py": None}, "move")
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD", *given)

    assert (result.exit_code, result.stdout) == (2, ""), result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert f": {place}{reason}: how the project builds is not known" in result.stderr


def test_a_pyproject_read_leaves_the_check_as_it_was(tmp_path: Path) -> None:
    """The same project with its ``pyproject.toml`` read: py-build-cmake without a ``cmake``
    table ships its module's directory, and a wheel of the commit's files passes."""
    _passes_with(tmp_path / "a", PY_BUILD_CMAKE)


CM = b"""import subprocess

from setuptools.command.build_ext import build_ext


class CMakeBuild(build_ext):
    def run(self):
        subprocess.check_call(["cmake", "--install", ".", "--prefix", self.build_lib])
"""
SETUP_CFG = b"[metadata]\nname = pkg\n\n[options]\npackage_dir =\n    =src\npackages = find:\n"
TOOL = b'[tool.setuptools.cmdclass]\nbuild_ext = "tools.cm.CMakeBuild"\n'
CMDCLASS = {  # where setuptools loads the module from, as a real build did (cmake77)
    "setup.cfg": (
        {"setup.cfg": SETUP_CFG + b"cmdclass =\n    build_py = tools.cm.CMakeBuild\n"},
        "src/tools/cm.py",
        "setup.cfg [options] cmdclass",
    ),
    "setup.cfg, a package's own directory": (
        {
            "setup.cfg": SETUP_CFG.replace(b"=src\n", b"=src\n    helpers = build/helpers\n")
            + b"cmdclass = build_ext = helpers.cm.CMakeBuild\n"
        },
        "build/helpers/cm.py",
        "setup.cfg [options] cmdclass",
    ),
    "[tool.setuptools] cmdclass": (
        {"pyproject.toml": SETUPTOOLS + TOOL},
        "src/tools/cm.py",
        "pyproject.toml [tool.setuptools] cmdclass",
    ),
}


@pytest.mark.parametrize("case", list(CMDCLASS), ids=list(CMDCLASS))
@pytest.mark.parametrize("given", [(), ("--source-prefix", "src/")], ids=["", "prefix"])
def test_a_command_class_running_cmake_stops_the_check(
    tmp_path: Path, case: str, given: tuple[str, ...]
) -> None:
    """setuptools loads the module from under ``package_dir``'s directory (``=src``: a real
    build, setuptools from build isolation and CMake 3.25.1, of ``build_py = tools.cm.CMakeBuild``
    running ``cmake --install`` into ``build_lib`` shipped the fix from ``src/tools/cm.py``)
    and runs the command: CMake's fix went over the package's old file, which k3diff compared,
    and the wheel keeping it matched, exit 0."""
    files, module, setting = CMDCLASS[case]
    more = {module: CM, "setup.py": b"from setuptools import setup\n" + SETUP_PY}
    repo = _repo(tmp_path, SETUPTOOLS, CMAKE, **more, **files)
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", REVERTED)

    result = run_k3diff("wheels", base, patch, "--source", repo, "--commit", "HEAD", *given)

    assert (result.exit_code, result.stdout) == (2, ""), result.stderr
    said = f"{module}, which {setting} names, runs CMake (line 8), whose CMake installs files"
    assert said in result.stderr


def test_a_command_class_not_read_stops_the_check(tmp_path: Path) -> None:
    """A module that is a link, as one ``setup.py`` imports; a setup.cfg that is a link, which
    setuptools follows, may name one."""
    cfg = SETUP_CFG + b"cmdclass =\n    build_ext = tools.cm.CMakeBuild\n"
    repo = _repo(tmp_path / "a", SETUPTOOLS, CMAKE, **{"setup.cfg": cfg, "src/tools/real.py": CM})
    (repo / "src" / "tools" / "cm.py").symlink_to("real.py")
    commit(repo, {}, "link")

    said = _stopped_at(tmp_path / "a", repo, REVERTED)

    assert (
        "src/tools/cm.py, which setup.cfg [options] cmdclass names, is a symbolic link or submodule"
        in said
    )
    repo = _repo(tmp_path / "b", SETUPTOOLS, CMAKE, **{"real.cfg": cfg, "tools/cm.py": CM})
    (repo / "setup.cfg").symlink_to("real.cfg")
    commit(repo, {}, "link")

    said = _stopped_at(tmp_path / "b", repo, REVERTED)

    assert ": setup.cfg is a symbolic link, not read: how the project builds is not known" in said


def test_a_command_class_running_no_cmake_leaves_the_check_as_it_was(tmp_path: Path) -> None:
    """A command class of the project naming no CMake, one of an installed package known to
    run none (setuptools'; source78: one of another installed package stops,
    test_provenance_setuppy_nested_imports), and a cmdclass under another backend, which never
    reads it, change nothing."""
    quiet = CM.replace(b'"cmake"', b'"ninja"')
    cfg = SETUP_CFG + b"cmdclass =\n    build_ext = tools.cm.CMakeBuild\n"
    cfg += b"    sdist = setuptools.command.sdist.sdist\n"
    _passes_with(tmp_path / "a", SETUPTOOLS, **{"setup.cfg": cfg, "src/tools/cm.py": quiet})
    hatch = b'[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
    hatch += b'[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n'
    _passes_with(tmp_path / "b", hatch, **{"setup.cfg": cfg, "src/tools/cm.py": CM})
