"""The configuration files of a commit's projects, read as documents: where they are (a project
is the repository's root, or a directory holding a ``pyproject.toml``, ``setup.cfg`` or
``setup.py`` of its own), the ``pyproject.toml`` parsed (capped: `CONFIG_CAP`, `DOTS_CAP`), as
hatchling reads it with a ``hatch.toml`` beside it, and which backend builds the project.

Read statically from the commit's own blobs: nothing of the repository runs. A file that is a
symbolic link, past `CONFIG_CAP` or not TOML is not read; the layout's readers (`buildconfig`)
say so."""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Mapping

from k3diff.escape import shortened
from k3diff.provenance.git import GitRepo, blob_sizes, iter_blobs
from k3diff.provenance.packagedirs import Unread
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


def pyproject_document(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str], directory: str
) -> Mapping[str, object] | None:
    """The pyproject.toml of the project in `directory`, parsed; None where there is none, or
    it is a link, over `CONFIG_CAP` or not TOML (the layout's reader says so)."""
    label = f"{directory}pyproject.toml"
    oid = tree.get(label)
    if oid is None or label in links or blob_sizes(git, [oid])[oid] > CONFIG_CAP:
        return None
    document = toml_document(dict(iter_blobs(git, [oid]))[oid], label)
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
