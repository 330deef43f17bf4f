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
(SGLang's ``python/pyproject.toml``): `project_directory` finds the one at or above the place
detection chose (`lookup` asks where the root's configuration does not place the package), and
its directories are read relative to it.
"""

from __future__ import annotations

import bisect
import functools
import tomllib
from collections.abc import Callable, Collection, Mapping

from k3diff.errors import SourceError
from k3diff.escape import shortened
from k3diff.provenance.cmakebackends import ADVICE, stop_other_cmake
from k3diff.provenance.cmakeinstall import Unreadable, cmake_installs
from k3diff.provenance.flitconfig import from_flit
from k3diff.provenance.git import GitRepo, blob_sizes, iter_blobs
from k3diff.provenance.hatchconfig import from_hatch
from k3diff.provenance.maturinconfig import from_maturin
from k3diff.provenance.packagedirs import PackageDirs, Stated, Unread, one, placed
from k3diff.provenance.pdmconfig import from_pdm
from k3diff.provenance.poetryconfig import from_poetry
from k3diff.provenance.scikitbuildconfig import cmake_layout, from_scikit_build, install_doubt
from k3diff.provenance.setuppylocal import imported_cmake
from k3diff.provenance.setuppyparse import parsed_setup_py
from k3diff.provenance.setuptoolsconfig import from_pyproject, from_setup_cfg, from_setup_py
from k3diff.provenance.unreadbackends import SETUPTOOLS_BACKENDS, unread_backend

CONFIG_CAP = 256 * 1024
"""Largest configuration file read (bytes); a larger one is not read (`ast` on it is slow)."""

DOTS_CAP = 128
"""Most dots a line of a pyproject.toml read may hold: no key needs more parts, and with them
a 256 KiB file of the costliest keys parses in about a second and 120 MB (`toml_document`)."""

_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
HATCH_FILE = "hatch.toml"
"""hatchling's own configuration file, read over ``[tool.hatch]`` where hatchling builds."""
SCIKIT_BUILD = "scikit_build_core.build"
CMAKE_FILES_CAP = 2_000
"""Most CMake files (``CMakeLists.txt``, ``*.cmake``) of a project read for its installs."""
CMAKE_BYTES_CAP = 4 * 1024 * 1024
"""Most bytes of those files read, all together: each costs the reader up to a microsecond
(review72a: a 256 KiB file of ``x(`` took 0.22 s, so 2,000 of them, each within the caps
above, about 7 minutes, all held in memory at once)."""


def read_package_dirs(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str] = (), directory: str = ""
) -> Stated:
    """The mapping the configuration files of the project in `directory` ('' or ending in '/')
    state at the commit whose files are `tree` (path -> blob id; `links`: its symbolic links),
    placed in the repository; `Unread` when one cannot be read, two differ or the backend that
    builds does not read them; None when none states one."""
    names = {directory + name: name for name in _FILES}
    if configured_directory(tree, links, directory):
        stop_cmake_runs(git, tree, links, directory)  # review76a: before a link is said unread
    linked = [path for path in names if path in links]
    if linked:
        return Unread(f"{linked[0]} is a symbolic link, not read")
    present = {names[path]: tree[path] for path in names if path in tree}
    if not present:
        return None
    hatch_file = directory + HATCH_FILE
    if hatch_file in tree:
        present[HATCH_FILE] = tree[hatch_file]
    sizes = blob_sizes(git, present.values())
    found: list[PackageDirs | Unread] = []
    readable = {}
    for name, oid in present.items():
        if sizes[oid] > CONFIG_CAP and name == HATCH_FILE:
            continue  # said by the hatchling reader alone (`hatch_document`)
        if sizes[oid] > CONFIG_CAP:
            found.append(Unread(f"{directory}{name} is over {CONFIG_CAP // 1024} KiB, not read"))
        else:
            readable[oid] = name
    contents = {readable[oid]: data for oid, data in iter_blobs(git, sorted(readable))}
    label = f"{directory}pyproject.toml"
    document: Mapping[str, object] = {}
    for name in _FILES:
        if name not in contents:
            continue
        if name == "pyproject.toml":
            parsed = toml_document(contents[name], label)
            if isinstance(parsed, Unread):
                found.append(parsed)
                continue
            document = parsed
            stated = from_pyproject(document, label)
        else:
            stated = _SETUPTOOLS_READERS[name](contents[name], directory + name)
        if stated is not None:
            found.append(stated)
    setuptools = one(found)
    builder = _builder(document)

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

    hatch = hatch_document(
        document, contents, directory, hatch_file in links, HATCH_FILE in present
    )
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


def cmake_installs_of(
    git: GitRepo,
    tree: Mapping[str, str],
    links: Collection[str],
    directory: str,
    document: Mapping[str, object],
) -> list[tuple[str, str, str]]:
    """The files the CMake of the scikit-build-core project in `directory` installs into the
    wheel (`cmakeinstall`), each read from the commit's CMake files under it; the source check
    stops (`SourceError`) where one is not read: such a file may stand at any wheel path, over
    the package's file there (src72: a fixed ``fixes/auth.py`` CMake installed over the old
    ``src/pkg/sub/auth.py`` had the old one compared, and a wheel keeping it matched, exit 0)."""
    settings = cmake_layout(document)
    if settings is None:
        return []
    stop = f"{git.label}: {directory}pyproject.toml builds with scikit-build-core, whose CMake"
    advice = ADVICE
    if isinstance(settings, str):
        raise SourceError(
            f"{stop} installs under a place k3diff does not read ({settings}): {advice}"
        )
    top, install_dir = settings
    paths = [
        path
        for path in (*tree, *links)
        if path.startswith(directory)
        and (path.rpartition("/")[2] == "CMakeLists.txt" or path.endswith(".cmake"))
    ]
    linked = [path for path in paths if path in links]
    sizes = blob_sizes(git, [tree[path] for path in paths if path in tree])
    total = sum(sizes[tree[path]] for path in paths if path in tree)  # a blob per path read
    large = any(s > CONFIG_CAP for s in sizes.values()) or total > CMAKE_BYTES_CAP
    if linked or len(paths) > CMAKE_FILES_CAP or large:
        why = f"{linked[0]} is a symbolic link" if linked else "its files are too many or large"
        raise SourceError(f"{stop} files are not read ({why}): {advice}")
    contents = dict(iter_blobs(git, sorted({tree[path] for path in paths})))
    files = {path[len(directory) :]: contents[tree[path]] for path in paths}
    entries = frozenset(
        p[len(directory) :].split("/")[0] for p in (*tree, *links) if p.startswith(directory)
    )
    read = cmake_installs(files, top, install_dir, entries, document)
    if isinstance(read, Unreadable):
        raise SourceError(f"{stop} at {shortened(directory + read.reason, 400)}: {advice}")
    if read and (doubt := install_doubt(document)) is not None:
        raise SourceError(f"{stop} installs files, but {doubt}: {advice}")
    return read


def stop_cmake_runs(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str], directory: str
) -> None:
    """Stop (`SourceError`) where the project in `directory` may run CMake (vllm76, review76a):
    another backend than scikit-build-core's own, its ``setup.py`` or a module of its own that
    imports; setuptools building and ``setup.py`` a link, over `CONFIG_CAP` or not Python."""
    document = pyproject_document(git, tree, links, directory) or {}
    builder, path, data = _builder(document), directory + "setup.py", None
    oid = tree.get(path)
    if oid is not None and path not in links and blob_sizes(git, [oid])[oid] <= CONFIG_CAP:
        data = dict(iter_blobs(git, [oid]))[oid]
    held = path in tree or path in links
    if builder is None and held and (data is None or parsed_setup_py(data, path) is None):
        raise SourceError(
            f"{git.label}: {path} is not read (a symbolic link, over {CONFIG_CAP // 1024} KiB "
            f"or not Python), and may run CMake, whose files go into the wheel: {ADVICE}"
        )

    def is_file(name: str) -> bool:
        return directory + name in tree or directory + name in links

    stop_other_cmake(git.label, directory, document, builder, data, is_file)
    module = parsed_setup_py(data, path) if builder is None and data is not None else None
    if module is not None and (what := imported_cmake(git, tree, links, directory, module)):
        raise SourceError(f"{git.label}: {what} installs files into the wheel, not read: {ADVICE}")


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
    return any(place + name in tree or place + name in links for name in _FILES)


def configuration_files(tree: Collection[str], links: Collection[str]) -> list[str]:
    """Every configuration file of the commit (a path of `tree` or `links` named
    ``pyproject.toml``, ``setup.cfg`` or ``setup.py``), sorted: where its projects are."""
    return sorted(p for p in (*tree, *links) if p.rpartition("/")[2] in _FILES)


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


_SETUPTOOLS_READERS = {"setup.cfg": from_setup_cfg, "setup.py": from_setup_py}


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


def _builder(document: Mapping[str, object]) -> str | None:
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
