"""Which version module the build writes, read statically from the project's configuration.

setuptools-scm, hatch-vcs and versioneer write the package's ``_version.py`` while building: in
no commit (setuptools-scm's and hatch-vcs', ignored by git), or, versioneer's, in a short form
that replaces the long one committed. The source check cannot compare such a file with the
commit, so where the configuration at the commit names it for the tool that builds, it is held
to what that tool writes instead (`k3diff.provenance.versiontemplate`). Read, by tool, only
where that tool builds:

* setuptools-scm: ``pyproject.toml`` ``[tool.setuptools_scm]`` ``version_file`` (relative to
  the project's directory) and ``write_to`` (relative to its ``root``, ``..`` in SGLang's
  ``python/pyproject.toml``), where setuptools builds (``build-backend`` setuptools' or none)
  and ``[build-system] requires`` names setuptools-scm;
* hatch-vcs: the wheel target's ``hooks.vcs``, else ``[tool.hatch.build.hooks.vcs]``,
  ``version-file`` (none where its ``enable-by-default`` is false), ``hatch.toml``'s tables in
  place of ``[tool.hatch]``'s as hatchling reads them, where ``hatchling.build`` builds and
  ``requires`` names hatch-vcs;
* versioneer: ``[tool.versioneer]`` of ``pyproject.toml``, else ``setup.cfg``'s
  ``[versioneer]``, ``VCS = git`` and ``versionfile_build`` (a path in the build, so in the
  wheel), where setuptools builds and the project holds ``versioneer.py`` or ``requires`` names
  versioneer.

* setuptools-scm, by ``setup.py``: a ``get_version(write_to=…)`` (or ``version_file=…``) call
  with literal arguments (`setuppyscm`: vLLM's), where setuptools builds; METADATA's version may
  extend the one the module states by local segments (`WrittenFile.extended`).

Not read: ``setup.py``'s ``use_scm_version=``, other backends' settings (scikit-build-core's
setuptools-scm provider, pdm, poetry plugins). Nothing here is run: TOML by `tomllib`, setup.cfg
by `setupcfg` (as setuptools reads it; versioneer's names in lower case, as its own
`configparser` reads them), setup.py by `ast`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from k3diff.provenance.configdocuments import (
    CONFIG_CAP,
    HATCH_FILE,
    hatch_document,
    toml_document,
)
from k3diff.provenance.git import GitRepo, blob_sizes, iter_blobs
from k3diff.provenance.hatchconfig import PATH_CAP
from k3diff.provenance.packagedirs import Unread
from k3diff.provenance.setupcfg import read_setup_cfg
from k3diff.provenance.setuppyscm import scm_calls
from k3diff.provenance.unreadbackends import SETUPTOOLS_BACKENDS

SETUPTOOLS_SCM, HATCH_VCS, VERSIONEER = "setuptools-scm", "hatch-vcs", "versioneer"


@dataclass(frozen=True)
class WrittenFile:
    """A module the build writes, by the configuration at the commit."""

    path: str
    """Its repository path; for versioneer, its path in the wheel (`in_wheel`)."""
    tool: str
    """``setuptools-scm``, ``hatch-vcs`` or ``versioneer``: whose template it is held to."""
    origin: str
    """Where the configuration names it: ``pyproject.toml [tool.setuptools_scm] version_file``."""
    in_wheel: bool = False
    """`path` is the wheel path (versioneer's ``versionfile_build``, relative to the build)."""
    extended: bool = False
    """The build script may append local segments to the version the module states before
    METADATA states it (vLLM's ``setup.py``: ``+cu128``, ``.precompiled``)."""
    replaces: bool = False
    """The build writes it over any copy the commit holds there, which is never what ships
    (scikit-build-core's ``generate``): a wheel shipping that copy does not match."""

    def describe(self) -> str:
        """``setuptools-scm (pyproject.toml [tool.setuptools_scm] version_file)``."""
        return f"{self.tool} ({self.origin})"


def written_files(
    git: GitRepo, tree: Mapping[str, str], links: Collection[str], directory: str
) -> tuple[WrittenFile, ...]:
    """The modules the project in `directory` ('' or ending in '/') writes while building, by
    its `pyproject.toml`, `setup.cfg` and `setup.py` at the commit whose files are `tree` (a
    file that is a symbolic link, or over `CONFIG_CAP`, is not read)."""
    files = ("pyproject.toml", "setup.cfg", "setup.py", HATCH_FILE)
    names = {f"{directory}{name}": name for name in files}
    present = {names[p]: tree[p] for p in names if p in tree and p not in links}
    sizes = blob_sizes(git, present.values())
    readable = {oid: name for name, oid in present.items() if sizes[oid] <= CONFIG_CAP}
    contents = {readable[oid]: data for oid, data in iter_blobs(git, sorted(readable))}
    label = f"{directory}pyproject.toml"
    # Capped as the layout's reader caps it (src72: uncapped here, a 16,000-part dotted key
    # made `wheels --source` take 1.5 GB and 5 s).
    parsed = toml_document(contents.get("pyproject.toml", b""), label)
    document = parsed if not isinstance(parsed, Unread) else {}
    system = document.get("build-system")
    system = system if isinstance(system, dict) else {}
    backend = None if "backend-path" in system else system.get("build-backend", "setuptools")
    backend = backend if isinstance(backend, str) else None  # a list is no backend (fuzz70)
    requires = requirement_names(system.get("requires"))
    tool = document.get("tool")
    tool = tool if isinstance(tool, dict) else {}
    found: list[WrittenFile] = []
    if backend == "setuptools" or backend in SETUPTOOLS_BACKENDS:
        scm = tool.get("setuptools_scm")
        if isinstance(scm, dict) and SETUPTOOLS_SCM in requires:
            found += _setuptools_scm(scm, label, directory)
        if (setup_py := contents.get("setup.py")) is not None:
            found += _setup_py(setup_py, directory)
        has_script = f"{directory}versioneer.py" in tree
        if has_script or VERSIONEER in requires:
            found += _versioneer(tool.get("versioneer"), contents.get("setup.cfg"), directory)
    elif backend == "hatchling.build" and HATCH_VCS in requires:
        linked, held = f"{directory}{HATCH_FILE}" in links, HATCH_FILE in present
        hatch = hatch_document(document, contents, directory, linked, held)
        if not isinstance(hatch, Unread):  # hatchling's settings not read: none named
            found += _hatch_vcs(hatch[0], hatch[1], directory)
    return tuple(found)


def _setuptools_scm(scm: Mapping[str, object], label: str, directory: str) -> list[WrittenFile]:
    """`version_file` under the project's directory, `write_to` under its `root`."""
    found = []
    origin = f"{label} [tool.setuptools_scm]"
    if (path := _path(directory, scm.get("version_file"))) is not None:
        found.append(WrittenFile(path, SETUPTOOLS_SCM, f"{origin} version_file"))
    root = scm.get("root", ".")
    root_dir = _path(directory, root) if isinstance(root, str) else None
    if root_dir:
        root_dir += "/"
    if root_dir is not None and (path := _path(root_dir, scm.get("write_to"))) is not None:
        found.append(WrittenFile(path, SETUPTOOLS_SCM, f"{origin} write_to"))
    return found


def _setup_py(data: bytes, directory: str) -> list[WrittenFile]:
    """Each module a ``get_version(…)`` call of setup.py names: ``write_to`` under the call's
    ``root``, ``version_file`` under setup.py's directory (`setuppyscm`)."""
    label = f"{directory}setup.py"
    found = []
    for call in scm_calls(data, label):
        root_dir = _path(directory, call.root)
        if root_dir is None:
            continue
        base = (root_dir + "/" if root_dir else "") if call.setting == "write_to" else directory
        if path := _path(base, call.path):
            origin = f"{label} get_version({call.setting}=…)"
            found.append(WrittenFile(path, SETUPTOOLS_SCM, origin, extended=True))
    return found


def _hatch_vcs(document: Mapping[str, object], label: str, directory: str) -> list[WrittenFile]:
    """The build hook's `version-file`, as hatchling configures the wheel's hooks: the wheel
    target's `hooks.vcs` where it has one, in place of the build's (not beside it), and none
    where `enable-by-default` is false (the hook runs only where the build's environment asks
    for it: review70c, both were read as written); `document` is pyproject.toml's with
    ``hatch.toml``'s tables in place of ``[tool.hatch]``'s (`configdocuments.hatch_document`;
    src72: a ``[build.hooks.vcs]`` of ``hatch.toml`` was not read, and the module it writes
    failed W402)."""
    tool = document.get("tool")
    hatch = tool.get("hatch") if isinstance(tool, dict) else None
    build = hatch.get("build") if isinstance(hatch, dict) else None
    build = build if isinstance(build, dict) else {}
    targets = build.get("targets")
    wheel = targets.get("wheel") if isinstance(targets, dict) else None
    tables = [
        ("tool.hatch.build.targets.wheel.hooks.vcs", wheel.get("hooks") if wheel else None),
        ("tool.hatch.build.hooks.vcs", build.get("hooks")),
    ]
    for name, hooks in tables:
        vcs = hooks.get("vcs") if isinstance(hooks, dict) else None
        if not isinstance(vcs, dict):
            continue
        path = _path(directory, vcs.get("version-file"))
        if not path or not vcs.get("enable-by-default", True):
            return []
        return [WrittenFile(path, HATCH_VCS, f"{label} [{name}] version-file")]
    return []


def _versioneer(table: object, setup_cfg: bytes | None, directory: str) -> list[WrittenFile]:
    """`versionfile_build`, from `[tool.versioneer]` where pyproject.toml has one (versioneer
    reads it first), else from setup.cfg's `[versioneer]`; only for `VCS = git`."""
    if isinstance(table, dict):
        settings, origin = table, f"{directory}pyproject.toml [tool.versioneer]"
    elif setup_cfg is not None:
        config = read_setup_cfg(setup_cfg, f"{directory}setup.cfg")
        if isinstance(config, str) or "versioneer" not in config.sections:
            return []
        written = config.sections["versioneer"]
        settings = {name.lower(): value for name, value in written.items()}
        if len(settings) < len(written):  # versioneer's own configparser fails on it
            return []
        origin = f"{directory}setup.cfg [versioneer]"
    else:
        return []
    vcs = settings.get("VCS", settings.get("vcs"))
    path = _path("", settings.get("versionfile_build"))
    if vcs != "git" or not path:
        return []
    return [WrittenFile(path, VERSIONEER, f"{origin} versionfile_build", in_wheel=True)]


def _path(directory: str, value: object) -> str | None:
    """`value` as a path under `directory` ('' or ending in '/'), normalised; None for no
    string, or a path that leaves the repository."""
    if not isinstance(value, str) or not value.strip() or len(value) > PATH_CAP:
        return None
    if value.startswith(("/", "~")) or "\\" in value or "\0" in value:
        return None
    joined = posixpath.normpath(directory + value.strip())
    if joined == ".." or joined.startswith("../"):
        return None
    return "" if joined == "." else joined


def requirement_names(requires: object) -> frozenset[str]:
    """The canonical names of `[build-system] requires` (a string that is no requirement is
    none)."""
    if not isinstance(requires, list):
        return frozenset()
    names = set()
    for text in requires:
        try:
            names.add(canonicalize_name(Requirement(text).name))
        except (InvalidRequirement, TypeError):
            continue
    return frozenset(names)
