"""Where flit takes a project's one module from, read from a parsed pyproject.toml.

flit ships one module, named by ``[tool.flit.module] name`` (dots for a namespace package:
``a.b`` is ``a/b``), from whichever of ``NAME/``, ``NAME.py``, ``src/NAME/`` and
``src/NAME.py`` the project holds: exactly one, or flit refuses to build (``flit_core.common.
Module``). The wheel ships it at ``NAME/`` (``NAME.py``), mapped from its directory (its
file): a module file is mapped alone, not as ``src/`` for every wheel path (review71a: a root
flit project's ``src/mod.py`` made an old ``src/pkg/`` the package a subproject builds, exit
0). Without
``[tool.flit.module]`` flit takes the project's name: detection by paths decides, as for the
other backends' defaults.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from k3diff.provenance.hatchconfig import PATH_CAP
from k3diff.provenance.packagedirs import PackageDirs, Stated, Unread


def from_flit(
    document: Mapping[str, object],
    label: str,
    is_file: Callable[[str], bool],
    is_dir: Callable[[str], bool],
) -> Stated:
    """`[tool.flit.module] name`'s place (`is_file`, `is_dir`: whether a project path is a
    file, or a directory, of the commit)."""
    tool = document.get("tool")
    flit = tool.get("flit") if isinstance(tool, dict) else None
    module = flit.get("module") if isinstance(flit, dict) else None
    if not isinstance(module, dict) or "name" not in module:
        return None
    origin = f"{label} [tool.flit.module] name"
    name = module["name"]
    parts = name.split(".") if isinstance(name, str) and len(name) <= PATH_CAP else []
    if not parts or not all(part.isidentifier() for part in parts):
        return Unread(f"{origin} is not a module name, not read")
    path = "/".join(parts)
    found = []
    for prefix in ("", "src/"):
        if is_dir(prefix + path):
            found.append((f"{path}/", f"{prefix}{path}/"))
        if is_file(f"{prefix}{path}.py"):
            found.append((f"{path}.py", f"{prefix}{path}.py"))
    if len(found) != 1:
        places = f"{path}/, {path}.py, src/{path}/ or src/{path}.py"
        said = "none" if not found else f"{len(found)}"
        return Unread(f"{origin}: the commit holds {said} of {places} (flit needs one), not read")
    return PackageDirs((found[0],), origin)
