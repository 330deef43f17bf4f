"""Where pdm-backend takes a project's packages from, read from a parsed pyproject.toml.

pdm-backend ships each file its ``includes`` select at its project path less the
``package-dir`` prefix (``[tool.pdm.build]``; ``pdm.backend.wheel``): with ``package-dir =
"src"``, ``src/pkg/auth.py`` ships as ``pkg/auth.py``. Without ``package-dir`` the prefix is
``src`` where an ``includes`` entry lies under ``src/`` (and ``excludes`` does not name ``src``),
else none (``_get_default_package_dir``). So every wheel path is looked up under the prefix; an
``includes`` entry outside it ships at its own path, which one prefix cannot say: `Unread`.
Without ``package-dir`` and ``includes`` (an empty ``includes`` is none, as pdm-backend takes it:
review71a, the root was taken for ``src/``) pdm-backend finds the packages itself (under
``src/`` where the project has one): detection by paths decides.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from k3diff.provenance.hatchconfig import PATH_CAP
from k3diff.provenance.packagedirs import PackageDirs, Stated, Unread, clean_directory


def from_pdm(document: Mapping[str, object], label: str) -> Stated:
    """`[tool.pdm.build]`'s `package-dir` (stated or implied by `includes`) as the directory of
    every wheel path."""
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
    else:
        under_src = any(_under(path, "src/") for path in includes)
        directory = "src/" if under_src and not {"src", "src/"} & set(excludes) else ""
    outside = [path for path in includes if not _under(path, directory)]
    if outside:
        return Unread(
            f"{origin}: includes {outside[0]!r} outside package-dir {directory or '.'!r}, "
            "which ships at its own path: not read"
        )
    return PackageDirs((("", directory),), origin)


def _paths(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, str) and v and len(v) <= PATH_CAP for v in value
    )


def _under(path: str, directory: str) -> bool:
    """Whether project path `path` (normalised) lies under `directory` ('' or ending in '/')."""
    cleaned = posixpath.normpath(path)
    return not directory or (cleaned + "/").startswith(directory)
