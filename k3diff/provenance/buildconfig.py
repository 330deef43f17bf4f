"""Where the build configuration at a commit says the packages live.

A wheel ships `pkg/auth.py` from wherever the configuration maps package `pkg`: with setuptools'
``package_dir = {"pkg": "src/realname"}``, or hatchling's ``sources = {"src/realname" = "pkg"}``,
from ``src/realname/auth.py``. Detection by paths cannot see that mapping, and took a complete
old copy kept as ``legacy/pkg/`` for the package (prov69: a patch reverting a file to the legacy
copy matched). So the configuration of a project is read, statically, from the commit's own
blobs (nothing of the repository runs, no build backend is called), by the backend that builds
it, as ``pyproject.toml``'s ``[build-system] build-backend`` names it:

* setuptools (named, or none named: PEP 517's legacy path): `setuptoolsconfig`, from
  ``pyproject.toml``, ``setup.cfg`` and ``setup.py``, which must agree;
* ``hatchling.build``: `hatchconfig` (``packages``, ``only-include``, ``sources``);
* ``maturin``: `maturinconfig` (``python-source``);
* ``flit_core.buildapi``: `flitconfig` (``[tool.flit.module] name``);
* ``pdm.backend``: `pdmconfig` (``[tool.pdm.build] package-dir``, ``includes``);
* ``poetry.core.masonry.api``: `poetryconfig` (``[tool.poetry] packages``);
* ``scikit_build_core.build``: `scikitbuildconfig` (``[tool.scikit-build] wheel.packages``).

Another backend (one of the project's own by ``backend-path``, or one not listed) stops the
run (`unreadbackends`). One of these without its own statement never reads setuptools'
settings, nor another listed backend's, so one found there is `Unread`, said as not read (review69b:
a ``[tool.setuptools.package-dir]`` or ``setup.py`` left beside hatchling's ``packages`` chose a
legacy copy, which matched, exit 0; small70: ``[tool.hatch.build]`` under ``pdm.backend`` was
passed over silently). So is a configuration file that is a
symbolic link or past `CONFIG_CAP`. No statement at all is None: detection decides.

A project is the repository's root, or a directory holding a configuration file of its own
(SGLang's ``python/pyproject.toml``): `configdocuments.project_directory` finds the one at or
above the place detection chose (`lookup` asks where the root's configuration does not place the
package), and its directories are read relative to it. The files a scikit-build-core project's
CMake installs, and where CMake runs unread, are `cmakeruns`'.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Collection, Mapping

from k3diff.errors import SourceError
from k3diff.provenance.cmakeruns import cmake_installs_of, stop_cmake_runs
from k3diff.provenance.configdocuments import (
    CONFIG_FILES,
    HATCH_FILE,
    SCIKIT_BUILD,
    builder_of,
    configured_directory,
    hatch_document,
    project_config,
)
from k3diff.provenance.flitconfig import from_flit
from k3diff.provenance.git import GitRepo
from k3diff.provenance.hatchconfig import from_hatch
from k3diff.provenance.maturinconfig import from_maturin
from k3diff.provenance.packagedirs import PackageDirs, Stated, Unread, one, placed
from k3diff.provenance.pdmconfig import from_pdm
from k3diff.provenance.poetryconfig import from_poetry
from k3diff.provenance.scikitbuildconfig import from_scikit_build
from k3diff.provenance.setupcfg import SetupCfg
from k3diff.provenance.setuptoolsconfig import from_pyproject, from_setup_config, from_setup_py
from k3diff.provenance.unreadbackends import unread_backend


def read_package_dirs(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str] = (), directory: str = ""
) -> Stated:
    """The mapping the configuration files of the project in `directory` ('' or ending in '/')
    state at the commit whose files are `tree` (path -> blob id; `links`: its symbolic links),
    placed in the repository; `Unread` when one cannot be read, two differ or the backend that
    builds does not read them; None when none states one."""
    names = {directory + name: name for name in CONFIG_FILES}
    if configured_directory(tree, links, directory):
        stop_cmake_runs(git, tree, links, directory)  # review76a: before a link is said unread
    linked = [path for path in names if path in links]
    if linked:
        return Unread(f"{linked[0]} is a symbolic link, not read")
    if not any(path in tree for path in names):
        return None
    read = project_config(git, tree, links, directory)
    found: list[Stated] = [
        Unread(held)
        for name, held in read.files.items()
        if isinstance(held, str)
        and name in CONFIG_FILES
        and not (name == "setup.cfg" and isinstance(read.setup_cfg, SetupCfg))
    ]
    contents = {name: held for name, held in read.files.items() if isinstance(held, bytes)}
    label = f"{directory}pyproject.toml"
    document: Mapping[str, object] = {}
    if isinstance(read.pyproject, Unread):
        found.append(read.pyproject)
    elif read.pyproject is not None:
        document = read.pyproject
        found.append(from_pyproject(document, label))
    if read.setup_cfg is not None:
        found.append(from_setup_config(read.setup_cfg, directory + "setup.cfg"))
    if "setup.py" in contents:
        found.append(from_setup_py(contents["setup.py"], directory + "setup.py"))
    setuptools = one([stated for stated in found if stated is not None])
    builder = builder_of(document)

    def is_file(path: str) -> bool:
        return directory + path in tree or directory + path in links

    if (unread := unread_backend(directory, document)) is not None:
        raise SourceError(f"{git.label}: {unread}")
    if builder is None:
        return placed(setuptools, directory)

    @functools.cache
    def ordered() -> list[str]:
        return sorted((*tree, *links))

    def is_dir(path: str) -> bool:
        """Whether the commit holds a file under `path`, or a link at it (which may lead to a
        directory): looked up in the sorted paths, sorted once if asked (review71a: a scan of
        the tree for each of a configuration's entries)."""
        under = f"{directory}{path}/"
        paths = ordered()
        at = bisect.bisect_left(paths, under)
        return directory + path in links or (at < len(paths) and paths[at].startswith(under))

    def files_under(path: str) -> list[str]:
        """The project paths of the commit's files (and links) under project directory
        `path` ('' the project's root), from the sorted paths."""
        under = f"{directory}{path}/" if path else directory
        paths = ordered()
        at = bisect.bisect_left(paths, under)
        found = []
        while at < len(paths) and paths[at].startswith(under):
            found.append(paths[at][len(directory) :])
            at += 1
        return found

    hatch_file = directory + HATCH_FILE
    hatch = hatch_document(document, contents, directory, hatch_file in links, hatch_file in tree)
    system = document.get("build-system")
    own_backend = system.get("build-backend") if isinstance(system, dict) else None
    installs = []
    if own_backend == SCIKIT_BUILD:
        installs = cmake_installs_of(git, tree, links, directory, document)
    readers = _readers(document, label, is_file, is_dir, hatch, files_under, installs)
    if isinstance(own_backend, str) and own_backend in readers:
        own = readers[own_backend][1]()
        if own is not None:
            return placed(own, directory)
    dead = [("setuptools'", setuptools)]
    dead += [(owner, read()) for name, (owner, read) in readers.items() if name != own_backend]
    for owner, stated in dead:
        if isinstance(stated, PackageDirs):
            return Unread(
                f"{stated.origin} is {owner}, but {label} builds with {builder}: not read"
            )
    return setuptools


def _readers(
    document: Mapping[str, object],
    label: str,
    is_file: Callable[[str], bool],
    is_dir: Callable[[str], bool],
    hatch: tuple[Mapping[str, object], str] | Unread,
    files_under: Callable[[str], list[str]],
    installs: list[tuple[str, str, str]],
) -> dict[str, tuple[str, Callable[[], Stated]]]:
    """Each backend read but setuptools, by its `build-backend`: (whose settings, the reader);
    `hatch`: the document and its label as hatchling reads them (`hatch_document`);
    `installs`: the files a scikit-build-core build's CMake installs (`cmakeinstall`)."""

    def hatchling() -> Stated:
        return hatch if isinstance(hatch, Unread) else from_hatch(*hatch, is_file, files_under)

    return {
        "hatchling.build": ("hatchling's", hatchling),
        "maturin": ("maturin's", lambda: from_maturin(document, label)),
        "flit_core.buildapi": ("flit's", lambda: from_flit(document, label, is_file, is_dir)),
        "pdm.backend": ("pdm-backend's", lambda: from_pdm(document, label, is_file)),
        "poetry.core.masonry.api": (
            "poetry-core's",
            lambda: from_poetry(document, label, is_file, is_dir),
        ),
        SCIKIT_BUILD: (
            "scikit-build-core's",
            lambda: from_scikit_build(document, label, is_file, is_dir, files_under, installs),
        ),
    }
