"""The configuration files of a commit's projects, read as documents: where they are (a project
is the repository's root, or a directory holding a ``pyproject.toml``, ``setup.cfg`` or
``setup.py`` of its own), the ``pyproject.toml`` parsed (capped: `CONFIG_CAP`, `DOTS_CAP`), as
hatchling reads it with a ``hatch.toml`` beside it, and which backend builds the project.

Read statically from the commit's own blobs: nothing of the repository runs. A file that is a
symbolic link, past `CONFIG_CAP` or not TOML is not read; the layout's readers (`buildconfig`)
say so.

A project's files are read, and its ``pyproject.toml`` and ``setup.cfg`` parsed, once for every
reader (`project_config`: the stops of `configstops` and `cmakeruns`, the layout of
`buildconfig`, scikit-build-core's of `projectstops`): each read them again before holds78,
some eight git calls a project where two do."""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from k3diff.escape import shortened
from k3diff.provenance.git import GitRepo, blob_sizes, iter_blobs
from k3diff.provenance.packagedirs import Unread
from k3diff.provenance.setupcfg import SCAN_CAP, SetupCfg, names_read_sections, read_setup_cfg
from k3diff.provenance.unreadbackends import SETUPTOOLS_BACKENDS

CONFIG_CAP = 256 * 1024
"""Largest configuration file read (bytes); a larger one is not read (`ast` on it is slow)."""

DOTS_CAP = 128
"""Most dots a line of a pyproject.toml read may hold: no key needs more parts, and with them
a 256 KiB file of the costliest keys parses in about a second and 120 MB (`toml_document`)."""

CONFIG_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
"""The files a project's configuration is read from; a directory holding one is a project."""
HATCH_FILE = "hatch.toml"
"""hatchling's own configuration file, read over ``[tool.hatch]`` where hatchling builds."""
SCIKIT_BUILD = "scikit_build_core.build"
"""scikit-build-core's ``build-backend``."""


@dataclass(frozen=True)
class ProjectConfig:
    """The configuration files of one project at a commit, read and parsed once."""

    files: Mapping[str, bytes | str | None]
    """Per name of `CONFIG_FILES` and `HATCH_FILE`: its bytes; None where the commit holds
    none; why it is not read where it is a symbolic link or over `CONFIG_CAP` (a sentence
    naming its repository path)."""
    pyproject: Mapping[str, object] | Unread | None
    """The ``pyproject.toml`` parsed (`toml_document`); None where it is not read as bytes."""
    setup_cfg: SetupCfg | str | None
    """The ``setup.cfg`` read as setuptools reads it (`read_setup_cfg`), or why it is not;
    one over `CONFIG_CAP` (up to `SCAN_CAP`) holding no section k3diff reads as none
    (`names_read_sections`); None where it is not read."""


def project_config(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str], directory: str
) -> ProjectConfig:
    """The configuration files of the project in `directory` ('' or ending in '/') at the
    commit whose files are `tree` (`links`: its symbolic links): one size check and one read
    for all, kept for the next reader of the same blobs (a blob's bytes are its id's)."""
    entries = tuple(
        (name, tree.get(directory + name), directory + name in links)
        for name in (*CONFIG_FILES, HATCH_FILE)
    )
    return _project_config(git, directory, entries)


@functools.lru_cache(maxsize=8)
def _project_config(
    git: GitRepo, directory: str, entries: tuple[tuple[str, str | None, bool], ...]
) -> ProjectConfig:
    """`project_config` of the files `entries` (name, blob id or None, whether a link)."""
    held = {name: oid for name, oid, linked in entries if oid is not None and not linked}
    sizes = blob_sizes(git, held.values())
    cfg = held.get("setup.cfg")
    scanned = cfg if cfg is not None and CONFIG_CAP < sizes[cfg] <= SCAN_CAP else None
    small = {oid for oid in held.values() if sizes[oid] <= CONFIG_CAP}
    blobs = dict(iter_blobs(git, sorted(small | ({scanned} if scanned else set()))))
    files: dict[str, bytes | str | None] = {}
    for name, _oid, linked in entries:
        path = directory + name
        if linked:
            files[name] = f"{path} is a symbolic link, not read"
        elif name not in held:
            files[name] = None
        elif held[name] not in small:
            files[name] = f"{path} is over {CONFIG_CAP // 1024} KiB, not read"
        else:
            files[name] = blobs[held[name]]
    pyproject, setup_cfg = files["pyproject.toml"], files["setup.cfg"]
    config: SetupCfg | str | None = None
    if isinstance(setup_cfg, bytes):
        config = read_setup_cfg(setup_cfg, directory + "setup.cfg")
    elif scanned is not None and not names_read_sections(blobs[scanned]):
        config = SetupCfg({})  # other tools' sections (flake8's …): nothing k3diff reads
    document = None
    if isinstance(pyproject, bytes):
        document = toml_document(pyproject, directory + "pyproject.toml")
    return ProjectConfig(MappingProxyType(files), document, config)


def pyproject_document(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str], directory: str
) -> Mapping[str, object] | None:
    """The pyproject.toml of the project in `directory`, parsed; None where there is none, or
    it is a link, over `CONFIG_CAP` or not TOML (the layout's reader says so)."""
    document = project_config(git, tree, links, directory).pyproject
    return None if isinstance(document, Unread) else document


def scikit_build_document(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str], directory: str
) -> Mapping[str, object] | None:
    """The pyproject.toml of the project in `directory` where scikit-build-core builds it
    (its ``build-backend``, no ``backend-path``), parsed (`pyproject_document`); None for
    another backend, or none read."""
    document = pyproject_document(git, tree, links, directory)
    if document is None:
        return None
    system = document.get("build-system")
    if not isinstance(system, dict) or "backend-path" in system:
        return None
    return document if system.get("build-backend") == SCIKIT_BUILD else None


def project_directory(tree: Mapping[str, str], links: Collection[str], place: str) -> str:
    """The deepest directory at or above `place` (detection's choice, '' or ending in '/'),
    below the repository's root, that holds a configuration file; '' when none does."""
    while place:
        if configured_directory(tree, links, place):
            return place
        place = place[:-1].rpartition("/")[0]
        place = place + "/" if place else ""
    return ""


def configured_directory(tree: Mapping[str, str], links: Collection[str], place: str) -> bool:
    """Whether directory `place` ('' or ending in '/') holds a configuration file."""
    return any(place + name in tree or place + name in links for name in CONFIG_FILES)


def configuration_files(tree: Collection[str], links: Collection[str]) -> list[str]:
    """Every configuration file of the commit (a path of `tree` or `links` named
    ``pyproject.toml``, ``setup.cfg`` or ``setup.py``), sorted: where its projects are."""
    return sorted(p for p in (*tree, *links) if p.rpartition("/")[2] in CONFIG_FILES)


def hatch_document(
    document: Mapping[str, object],
    contents: Mapping[str, bytes],
    directory: str,
    linked: bool,
    present: bool,
) -> tuple[Mapping[str, object], str] | Unread:
    """The pyproject.toml `document` as hatchling reads it, and its label: a ``hatch.toml``
    beside it replaces ``[tool.hatch]``'s tables of the same name with its own
    (``hatch_config.update(hatch.toml)``, its ``[build]`` for ``[tool.hatch.build]``;
    review71d: it was not read, and a ``pyproject.toml`` naming a legacy copy as the package
    had it compared while hatchling built from ``hatch.toml``'s ``src/pkg``, exit 0)."""
    label = f"{directory}pyproject.toml"
    shown = f"{directory}{HATCH_FILE}"
    if linked:
        return Unread(f"{shown} is a symbolic link, not read")
    if not present:
        return document, label
    if HATCH_FILE not in contents:
        return Unread(f"{shown} is over {CONFIG_CAP // 1024} KiB, not read")
    parsed = toml_document(contents[HATCH_FILE], shown)
    if isinstance(parsed, Unread):
        return parsed
    tool = document.get("tool")
    tool = tool if isinstance(tool, dict) else {}
    hatch = tool.get("hatch")
    merged = {**(hatch if isinstance(hatch, dict) else {}), **parsed}
    return {**document, "tool": {**tool, "hatch": merged}}, f"{label} and {shown}"


def toml_document(data: bytes, label: str) -> Mapping[str, object] | Unread:
    """The parsed document, or why it is not read: not TOML, or a line holding more than
    `DOTS_CAP` dots. A dotted key of n parts costs `tomllib` n²/2 references, held until the
    next table header (review70a: a 32 KiB line ``x.x.x…y = 1`` took 1 GB and 3 s, a 256 KiB
    one would take some 64 GB); a key lies on one line, so the cap bounds it."""
    if data.count(b".") > DOTS_CAP and any(
        line.count(b".") > DOTS_CAP for line in data.split(b"\n")
    ):
        return Unread(f"{label} has a line of over {DOTS_CAP} dots, not read")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return Unread(f"{label} is not valid TOML")


def builder_of(document: Mapping[str, object]) -> str | None:
    """What builds the project if not setuptools (``'hatchling.build'``, ``its own backend
    (backend-path)``), None for setuptools."""
    system = document.get("build-system", {})
    if not isinstance(system, dict):
        return "a [build-system] that is not a table"
    backend = system.get("build-backend")
    if not isinstance(backend, str | None):  # fuzz70: a list was hashed, an internal error
        return "a build-backend that is not a string"
    if "backend-path" in system:
        return f"its own backend {shortened(repr(backend), 200)} (backend-path)"
    if backend is None or backend in SETUPTOOLS_BACKENDS:
        return None
    return shortened(repr(backend), 200)
