"""Where pdm-backend takes a project's packages from, read from a parsed pyproject.toml.

pdm-backend ships each file its ``includes`` select at its project path less the
``package-dir`` prefix (``[tool.pdm.build]``; ``pdm.backend.wheel``): with ``package-dir =
"src"``, ``src/pkg/auth.py`` ships as ``pkg/auth.py``; the prefix is ``package-dir`` as
written and ``/``, so one not written as the normalised path (``"src/"``, ``"./src"``) strips
nothing, and ``src/pkg/auth.py`` ships as itself. Without ``package-dir`` the prefix is
``src`` where an ``includes`` entry lies under ``src/`` (and ``excludes`` does not name ``src``),
else none (``_get_default_package_dir``). So each ``includes`` entry is mapped from its place
(``src/tool`` ships as ``tool/``), and with a pattern among them, or ``package-dir`` alone (every
package under it ships), every wheel path is looked up under the prefix; an ``includes`` entry
outside it ships at its own path, which one prefix cannot say: `Unread`.
Without ``package-dir`` and ``includes`` (an empty ``includes`` is none, as pdm-backend takes it:
review71a, the root was taken for ``src/``) pdm-backend finds the packages itself (under
``src/`` where the project has one): detection by paths decides.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping

from k3diff.provenance.hatchconfig import PATH_CAP
from k3diff.provenance.packagedirs import PackageDirs, Stated, Unread, clean_directory

_GLOB = frozenset("*?[")


def from_pdm(document: Mapping[str, object], label: str, is_file: Callable[[str], bool]) -> Stated:
    """`[tool.pdm.build]`'s `includes`, each from its place under `package-dir` (stated or
    implied by them), or `package-dir` as the directory of every wheel path (`is_file`: whether
    a project path is a file of the commit)."""
    tool = document.get("tool")
    pdm = tool.get("pdm") if isinstance(tool, dict) else None
    build = pdm.get("build") if isinstance(pdm, dict) else None
    if not isinstance(build, dict) or not ("package-dir" in build or build.get("includes")):
        return None
    keys = " and ".join(key for key in ("package-dir", "includes") if key in build)
    origin = f"{label} [tool.pdm.build] {keys}"
    includes = build.get("includes", [])
    excludes = build.get("excludes", [])
    if not _paths(includes) or not _paths(excludes):
        return Unread(f"{origin}: includes or excludes is not a list of paths, not read")
    if "package-dir" in build:
        stated = build["package-dir"]
        if not isinstance(stated, str) or len(stated) > PATH_CAP:
            return Unread(f"{origin}: package-dir is not a path, not read")
        directory = clean_directory(stated)
        if directory is None:
            return Unread(f"{origin}: package-dir names a directory outside its project")
        if directory != stated + "/":  # "src/", "./src": no file's path starts with it
            directory = ""
    else:
        under_src = any(_under(path, "src/") for path in includes)
        directory = "src/" if under_src and not {"src", "src/"} & set(excludes) else ""
    outside = [path for path in includes if not _under(path, directory)]
    if outside:
        return Unread(
            f"{origin}: includes {outside[0]!r} outside package-dir {directory or '.'!r}, "
            "which ships at its own path: not read"
        )
    return _included(includes, directory, origin, is_file)


def _included(
    includes: list[str], directory: str, origin: str, is_file: Callable[[str], bool]
) -> Stated:
    """Each of `includes` (under `directory`) mapped from its place, a file alone; `directory`
    for every wheel path where there are none or one is a pattern (review71a: ``includes =
    ["src/tool"]`` placed every wheel path under ``src/``, so a root pdm project claimed the
    package a subproject builds, and an old ``src/pkg/`` matched, exit 0)."""
    if not includes:  # every package under package-dir ships
        return PackageDirs((("", directory),), origin)
    entries: dict[str, str] = {}
    for path in includes:
        cleaned = posixpath.normpath(path)
        shipped = (cleaned + "/")[len(directory) :]
        if _GLOB & set(cleaned) or shipped in ("", "./"):
            return PackageDirs((("", directory),), origin)
        if cleaned.startswith(("../", "/")) or cleaned == "..":
            return Unread(f"{origin}: includes {path!r} names a path outside its project")
        if is_file(cleaned):
            entries[shipped[:-1]] = cleaned
        else:
            entries[shipped] = cleaned + "/"
    return PackageDirs(tuple(sorted(entries.items())), origin)


def _paths(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, str) and v and len(v) <= PATH_CAP for v in value
    )


def _under(path: str, directory: str) -> bool:
    """Whether project path `path` (normalised) lies under `directory` ('' or ending in '/')."""
    cleaned = posixpath.normpath(path)
    return not directory or (cleaned + "/").startswith(directory)
