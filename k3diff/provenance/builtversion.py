"""The version the commit's build writes into METADATA, read statically, held to the wheel's.

A wheel whose files all match the commit may still not be its build: a 2.4.0 wheel passed
``--source --commit`` against a commit whose ``pyproject.toml`` says ``version = "2.3.0"``
(stop 73). So the version the backend that builds the project (``[build-system]
build-backend``, of `SourceLayout.project`'s configuration) would write is read, as that
backend reads it, and compared with METADATA's by PEP 440 (``1.0`` is ``1.0.0``):

* ``[project] version``, not listed in ``dynamic``, whichever backend builds (unless
  ``requires`` pins one from before it read ``[project]``: `projecttable`);
* setuptools: ``[tool.setuptools.dynamic] version`` (``attr``, ``file``), else ``setup.cfg``'s
  ``[metadata] version`` (``attr:``, ``file:`` or the version);
* hatchling: ``[tool.hatch.version] path`` (hatch.toml's ``[version]`` in its place) by its
  default pattern;
* flit: the module's ``__version__``; pdm-backend: ``[tool.pdm.version]`` ``source = "file"``;
* poetry-core: ``[tool.poetry] version``; maturin: ``Cargo.toml``'s ``[package] version``;
* scikit-build-core: ``[tool.scikit-build.metadata.version]``'s regex provider.

(`versionsources` reads the files.) A version the commit cannot state without running code or
reading history k3diff does not read is `Unchecked`, said in a note: setuptools-scm, hatch-vcs,
pdm's ``scm`` (the distance from a tag), a ``setup.py`` that sets it, a pattern the project
writes, an attribute setuptools would import the module for, another backend, and a hook of the
project's own that may set it over any of these (`versionhooks`: hatchling's metadata hooks,
pdm-backend's ``pdm_build.py``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from packaging.version import Version

from k3diff.escape import shortened
from k3diff.provenance.configdocuments import (
    HATCH_FILE,
    hatch_document,
    toml_document,
)
from k3diff.provenance.git import SHORT_ID_LENGTH, GitRepo
from k3diff.provenance.lookup import Lookup
from k3diff.provenance.packagedirs import Unread
from k3diff.provenance.projectfiles import Built, ProjectFiles
from k3diff.provenance.projecttable import reads_project_table
from k3diff.provenance.revisions import RepoNote
from k3diff.provenance.setupversion import setuptools_version
from k3diff.provenance.unreadbackends import SETUPTOOLS_BACKENDS
from k3diff.provenance.versionconfig import requirement_names
from k3diff.provenance.versionhooks import hatch_hook, pdm_hook
from k3diff.provenance.versionsources import (
    FLIT_FILES,
    HATCH_PATTERN,
    PDM_PATTERN,
    SKBUILD_PATTERN,
    Said,
    cargo_version,
    flit_version,
    pattern_version,
)

VERSION_CODE = "W413"
_CONFIGURATION = ("pyproject.toml", "setup.py", "setup.cfg", HATCH_FILE)
"""The files the layout reader reads too, read together up front."""


@dataclass(frozen=True)
class Unchecked:
    """Why the version the commit builds cannot be stated without running code."""

    reason: str


def version_notes(
    git: GitRepo, lookup: Lookup, commit: str, version: str | None
) -> tuple[RepoNote, ...]:
    """W413 where the patch's METADATA `version` is not the version `commit` builds; a note
    said only where that version is not read (`Unchecked`); none where they agree."""
    if version is None:
        return ()
    project = lookup.layout.project
    files = ProjectFiles(git, lookup.tree, lookup.links, project, lookup.submodules)
    files.prefetch([f"{files.directory}{name}" for name in _CONFIGURATION])
    built = built_version(files, lookup)
    short = commit[:SHORT_ID_LENGTH]
    if isinstance(built, Unchecked) and files.in_submodules:
        return (RepoNote(VERSION_CODE, _in_submodule(files.in_submodules, version, short)),)
    if isinstance(built, Unchecked):
        said = f"the patch wheel's METADATA Version {shortened(version, 200)} is not checked"
        return (RepoNote("", f"{said} against the version commit {short} builds: {built.reason}"),)
    if _same(built.version, version):
        return ()
    message = (
        f"the patch wheel's METADATA Version is {shortened(version, 200)}, but commit {short} "
        f"builds {shortened(built.version, 200)} ({built.origin})"
    )
    return (RepoNote(VERSION_CODE, message),)


def _in_submodule(paths: Mapping[str, str], version: str, short: str) -> str:
    """W413's message where the version the commit builds is read from a file in a submodule:
    the commit pins another repository's commit there, whose files k3diff does not read (no
    fetch), so the version it builds is not proven (source78: said "not checked", exit 0)."""
    path, submodule = next(iter(paths.items()))
    return (
        f"the patch wheel's METADATA Version {shortened(version, 200)} is not proven: commit "
        f"{short} builds the version {path} states, which is in the submodule {submodule} "
        "(another repository, pinned by the commit, whose files k3diff does not read)"
    )


def _same(built: str, version: str) -> bool:
    """PEP 440 equality (``1.0`` is ``1.0.0``); text equality where one is no version."""
    try:
        return Version(built) == Version(version)
    except ValueError:  # InvalidVersion, or a number over int()'s 4,300 digits
        return built.strip() == version.strip()


def built_version(files: ProjectFiles, lookup: Lookup) -> Built | Unchecked:
    """The version the project in `files.directory` builds, by its backend."""
    label = f"{files.directory}pyproject.toml"
    names = [f"{files.directory}{name}" for name in ("pyproject.toml", "setup.py", "setup.cfg")]
    if not any(name in files.tree or name in files.links for name in names):
        where = f"in {files.directory}" if files.directory else "at its root"
        return Unchecked(f"it holds no pyproject.toml, setup.py or setup.cfg {where} to build it")
    data = files.read(label) if label in files.tree or label in files.links else b""
    if isinstance(data, Said):
        return Unchecked(data.reason)
    parsed = toml_document(data, label)
    if isinstance(parsed, Unread):
        return Unchecked(parsed.reason)
    system = parsed.get("build-system")
    system = system if isinstance(system, dict) else {}
    backend = system.get("build-backend", "setuptools")
    if "backend-path" in system or not isinstance(backend, str):
        return Unchecked("the project's own backend (backend-path) builds it")
    project = parsed.get("project")
    project = project if isinstance(project, dict) else None
    if not reads_project_table(backend, system.get("requires")):
        project = None  # a backend pinned before it read [project] (`projecttable`)
    dynamic = project.get("dynamic", []) if project else []
    hooked = _hooked(files, parsed, backend, dynamic)
    if hooked is not None:
        return Unchecked(hooked.reason)
    if project is not None and "version" in project and "version" not in dynamic:
        stated = project["version"]
        if not isinstance(stated, str):
            return Unchecked(f"{label} [project] version is not a string")
        return Built(stated, f"{label} [project] version")
    requires = requirement_names(system.get("requires"))
    if backend == "setuptools" or backend in SETUPTOOLS_BACKENDS:
        return _or_unchecked(setuptools_version(files, lookup, parsed, project, requires))
    reader = _READERS.get(backend)
    if reader is None:
        return Unchecked(f"k3diff does not read how {shortened(backend, 200)} sets it")
    return _or_unchecked(reader(files, parsed, project, requires))


def _or_unchecked(found: Built | Said) -> Built | Unchecked:
    return Unchecked(found.reason) if isinstance(found, Said) else found


Document = Mapping[str, object]


def _tool(document: Document, *keys: str) -> Mapping[str, object]:
    """``[tool.KEY1.KEY2…]`` of `document`, {} where any is no table."""
    table: object = document.get("tool")
    for key in keys:
        table = table.get(key) if isinstance(table, dict) else None
    return table if isinstance(table, dict) else {}


def _from_file(
    files: ProjectFiles, relative: object, setting: str, pattern: re.Pattern[str]
) -> Built | Said:
    """The version `pattern` finds in the project file `relative` names."""
    named = files.named(relative, setting)
    if isinstance(named, Said):
        return named
    path, data = named
    found = pattern_version(data, pattern)
    if isinstance(found, Said):
        return Said(f"{path} ({setting}): {found.reason}")
    return Built(str(found), f"{path} ({setting})")


def _hooked(files: ProjectFiles, document: Document, backend: str, dynamic: object) -> Said | None:
    """Why a hook of the project's own may set the version the configuration states."""
    if backend == "pdm.backend":
        return pdm_hook(files, document)
    if backend != "hatchling.build":
        return None
    merged = _hatch_settings(files, document)
    return merged if isinstance(merged, Said) else hatch_hook(*merged, dynamic)


def _hatch_settings(files: ProjectFiles, document: Document) -> tuple[Document, str] | Said:
    """pyproject.toml with hatch.toml's tables in ``[tool.hatch]``'s place, and its label."""
    directory = files.directory
    contents: dict[str, bytes] = {}
    hatch_path = f"{directory}{HATCH_FILE}"
    if hatch_path in files.tree:
        read = files.read(hatch_path)
        if not isinstance(read, Said):
            contents[HATCH_FILE] = read
    held = hatch_path in files.tree
    merged = hatch_document(document, contents, directory, hatch_path in files.links, held)
    return Said(merged.reason) if isinstance(merged, Unread) else merged


def _hatch(files: ProjectFiles, document: Document, _project: object, _req: object) -> Built | Said:
    """``[tool.hatch.version]``: the ``regex`` source's file, by hatchling's pattern."""
    merged = _hatch_settings(files, document)
    if isinstance(merged, Said):
        return merged
    settings, label = merged
    version = _tool(settings, "hatch", "version")
    source = version.get("source", "regex")
    if source == "vcs":
        return Said(f"hatch-vcs derives it from git tags and the commits since ({label})")
    if source != "regex":
        return Said(f"hatchling's {shortened(str(source), 80)!r} version source runs code")
    if version.get("pattern") not in (None, True, ""):
        return Said(f"{label} [tool.hatch.version] pattern is the project's own, not run")
    setting = f"{label} [tool.hatch.version] path"
    return _from_file(files, version.get("path"), setting, HATCH_PATTERN)


def _pdm(files: ProjectFiles, document: Document, _project: object, _req: object) -> Built | Said:
    """``[tool.pdm.version]`` ``source = "file"``, by pdm-backend's pattern."""
    label = f"{files.directory}pyproject.toml [tool.pdm.version]"
    version = _tool(document, "pdm", "version")
    source = version.get("source")
    if source == "scm":
        return Said(f"pdm-backend derives it from git tags and the commits since ({label})")
    if source != "file":
        return Said(f"{label} source is {shortened(repr(source), 80)}, which k3diff does not read")
    if version.get("pattern") is not None:
        return Said(f"{label} pattern is the project's own, not run")
    return _from_file(files, version.get("path"), f"{label} path", PDM_PATTERN)


def _poetry(
    files: ProjectFiles, document: Document, _project: object, requires: Collection[str]
) -> Built | Said:
    """``[tool.poetry] version`` (poetry-dynamic-versioning replaces it: not read)."""
    if "poetry-dynamic-versioning" in requires:
        return Said("poetry-dynamic-versioning derives it from git tags")
    version = _tool(document, "poetry").get("version")
    if not isinstance(version, str):
        return Said(f"{files.directory}pyproject.toml states no [tool.poetry] version")
    return Built(version, f"{files.directory}pyproject.toml [tool.poetry] version")


def _flit(files: ProjectFiles, document: Document, project: object, _req: object) -> Built | Said:
    """The module's ``__version__``, as flit reads it (`versionsources.flit_version`)."""
    name = _tool(document, "flit", "module").get("name")
    if name is None and isinstance(project, dict):
        name = project.get("name")
        name = name.replace("-", "_") if isinstance(name, str) else None
    if not isinstance(name, str) or not all(p.isidentifier() for p in name.split(".")):
        return Said("flit's module is not named")
    module = name.replace(".", "/")
    found_at: list[list[str]] = []
    for base in ("", "src/"):
        package = f"{files.directory}{base}{module}/"
        if f"{package}__init__.py" in files.tree:
            found_at.append([package + f for f in FLIT_FILES if package + f in files.tree])
        if f"{files.directory}{base}{module}.py" in files.tree:
            found_at.append([f"{files.directory}{base}{module}.py"])
    if len(found_at) != 1:  # flit needs exactly one (`flitconfig`)
        said = "no" if not found_at else f"{len(found_at)} places of the"
        return Said(f"the commit holds {said} module {module} for flit to read __version__ from")
    (paths,) = found_at
    modules = [files.read(path) for path in paths]
    unread = [m for m in modules if isinstance(m, Said)]
    if unread:
        return unread[0]
    found = flit_version([m for m in modules if isinstance(m, bytes)])
    if isinstance(found, Said):
        return Said(f"{paths[-1]}: {found.reason}")
    return Built(found, f"{', '.join(paths)} __version__ (flit)")


def _maturin(
    files: ProjectFiles, document: Document, _project: object, _req: object
) -> Built | Said:
    """``Cargo.toml``'s ``[package] version`` (``[tool.maturin] manifest-path``'s)."""
    manifest = _tool(document, "maturin").get("manifest-path", "Cargo.toml")
    named = files.named(manifest, f"{files.directory}pyproject.toml [tool.maturin] manifest-path")
    if isinstance(named, Said):
        return named
    path, data = named
    cargo = toml_document(data, path)
    if isinstance(cargo, Unread):
        return Said(cargo.reason)
    found = cargo_version(cargo)
    if isinstance(found, Said):
        return Said(f"{path}: {found.reason}")
    return Built(found, f"{path} [package] version (maturin)")


_REGEX_PROVIDER = "scikit_build_core.metadata.regex"


def _scikit_build(
    files: ProjectFiles, document: Document, _project: object, _req: object
) -> Built | Said:
    """``[tool.scikit-build.metadata.version]``: the regex provider's ``input``, by its
    default pattern and result."""
    label = f"{files.directory}pyproject.toml [tool.scikit-build.metadata.version]"
    settings = _tool(document, "scikit-build", "metadata", "version")
    provider = settings.get("provider")
    if provider != _REGEX_PROVIDER:
        return Said(
            f"{label} provider is {shortened(repr(provider), 80)}, which k3diff does not read"
        )
    if any(key in settings for key in ("regex", "result", "remove")):
        return Said(f"{label} sets its own regex, result or remove, not run")
    return _from_file(files, settings.get("input"), f"{label} input", SKBUILD_PATTERN)


_READERS = {
    "hatchling.build": _hatch,
    "pdm.backend": _pdm,
    "poetry.core.masonry.api": _poetry,
    "flit_core.buildapi": _flit,
    "maturin": _maturin,
    "scikit_build_core.build": _scikit_build,
}
