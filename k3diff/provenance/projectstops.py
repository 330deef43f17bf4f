"""The build setups of every project at or above the package's place, read for what they may
install over the package: a backend k3diff does not read, a CMake it does not read, or the files
scikit-build-core's CMake installs.

The project building the wheel is not always the deepest one holding the place: a root
``setup.py`` with ``package_dir={"": "python"}`` builds ``python/pkg/`` while ``python/`` holds
a ``setup.cfg`` of its own (a linter's settings). review76a: with ``--source-prefix python/``
only ``python/``'s setup was read, and a root ``setup.py`` running CMake, a root backend of its
own (``backend-path``) or a root scikit-build-core's ``install(FILES fixes/auth.py …)`` over
``pkg/sub/auth.py`` was never said: a wheel keeping the old file matched, exit 0 (without the
prefix the root's setup stopped the run, or had the file compared with CMake's copy). So every
project from the root down to the place is read, with or without the prefix.
"""

from __future__ import annotations

from collections.abc import Mapping

from k3diff.errors import SourceError
from k3diff.escape import shortened
from k3diff.provenance.cmakeruns import cmake_installs_of, stop_cmake_runs
from k3diff.provenance.configdocuments import (
    configured_directory,
    pyproject_document,
    scikit_build_document,
)
from k3diff.provenance.configstops import stop_unread_config
from k3diff.provenance.git import GitRepo
from k3diff.provenance.unreadbackends import unread_backend

_ADVICE = "compare a wheel built from the commit with this one (k3diff wheels BUILT RELEASED)"


PROJECTS_CAP = 4
"""Most projects (directories holding a configuration file) read at or above the package's
place: each reads its configuration, CMake files and the modules its ``setup.py`` imports, a
second or two where they are large (review76a: 100 nested projects, each a 256 KiB
``pyproject.toml`` and ``setup.py``, took 9 s; a path may nest 2,000)."""


def projects_above(
    git: GitRepo, tree: Mapping[str, str], links: frozenset[str], project: str
) -> list[str]:
    """The directories strictly above `project` ('' or ending in '/') holding a configuration
    file (`configured_directory`), the root's ('') first; `SourceError` past `PROJECTS_CAP`."""
    parts = project.split("/")[:-1]
    above = ["/".join(parts[:n]) + "/" if n else "" for n in range(len(parts))]
    found = [place for place in above if configured_directory(tree, links, place)]
    if len(found) >= PROJECTS_CAP:
        raise SourceError(
            f"{git.label}: {len(found) + 1:,} projects (directories holding a pyproject.toml, "
            f"setup.cfg or setup.py) hold {shortened(project, 200)}, over {PROJECTS_CAP}: their "
            f"build setups are not read: {_ADVICE}"
        )
    return found


def cmake_placed(
    git: GitRepo, tree: Mapping[str, str], links: frozenset[str], project: str
) -> tuple[tuple[str, str], ...]:
    """(wheel path, repository path) of each file the CMake of a scikit-build-core project at
    or above `project` installs, which stands over the package's file there wherever the
    package lives (src73: with ``--source-prefix`` none was read, and a wheel reverting a file
    CMake installs to the package's old copy matched, exit 0); `SourceError` where they are not
    read, where such a project's backend or CMake is not read, or two projects install one
    wheel path from two files."""
    placed: dict[str, str] = {}
    for directory in (*projects_above(git, tree, links, project), project):
        for wheel, source in _placed_by(git, tree, links, directory):
            if placed.setdefault(wheel, source) != source:
                raise SourceError(
                    f"{git.label}: the CMake of two projects installs {shortened(wheel, 200)}, "
                    f"from {shortened(placed[wheel], 200)} and {shortened(source, 200)}: " + _ADVICE
                )
    return tuple(sorted(placed.items()))


def stop_between(
    git: GitRepo, tree: Mapping[str, str], links: frozenset[str], project: str
) -> None:
    """Stop (`SourceError`) where a project between the root (read on its own) and `project`,
    which may build the wheel as well, builds with a backend k3diff does not read, runs a CMake
    it does not read, or has scikit-build-core's CMake install a file: only `project`'s
    layout is read (review76a: ``a/setup.py`` running CMake over ``a/b/pkg/`` with a stray
    ``a/b/setup.cfg`` was not read, exit 0)."""
    for directory in projects_above(git, tree, links, project):
        if not directory:
            continue  # the root's setup is read on its own (`read_package_dirs`)
        if _placed_by(git, tree, links, directory):
            raise SourceError(
                f"{git.label}: {directory}pyproject.toml builds with scikit-build-core, whose "
                f"CMake installs files into the wheel, and {project} is a project of its own: "
                "which builds the wheel is not known: " + _ADVICE
            )


def _placed_by(
    git: GitRepo, tree: Mapping[str, str], links: frozenset[str], project: str
) -> tuple[tuple[str, str], ...]:
    """`cmake_placed` of the one project in `project`."""
    stop_unread_config(git, tree, links, project)
    unread = unread_backend(project, pyproject_document(git, tree, links, project) or {})
    if unread is not None:  # it may install any file over the package (backend75)
        raise SourceError(f"{git.label}: {unread}")
    stop_cmake_runs(git, tree, links, project)  # vllm76: a setup.py running CMake
    document = scikit_build_document(git, tree, links, project)
    if document is None:
        return ()
    placed = {}
    for wheel, source, shown in cmake_installs_of(git, tree, links, project, document):
        if project + source not in tree:  # a link, a directory or nothing: not followed
            raise SourceError(
                f"{git.label}: {project}pyproject.toml builds with scikit-build-core, whose "
                f"CMake at {shortened(shown, 400)} installs no file of the commit k3diff reads: "
                + _ADVICE
            )
        placed[wheel] = project + source
    return tuple(sorted(placed.items()))
