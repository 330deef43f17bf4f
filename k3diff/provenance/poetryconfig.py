"""Where poetry-core takes a project's packages from, read from a parsed pyproject.toml.

``[tool.poetry] packages`` lists each package as ``{include = "pkg", from = "src", to =
"target"}``: the directory ``src/pkg/`` ships as ``target/pkg/`` (``from`` and ``to`` optional;
poetry-core's ``PackageInclude``), in the wheel where its ``format`` (a string or a list) is
absent or names ``wheel``. An ``include`` holding a glob, naming a file (``mod.py``), or two
entries shipping different directories as one (the same, or one inside the other where the
outer's place holds that directory too: `packagedirs.shadowed`), is `Unread`. Without ``packages`` poetry-core
finds the package by the project's name: detection by paths decides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from k3diff.provenance.hatchconfig import PATH_CAP
from k3diff.provenance.packagedirs import (
    PackageDirs,
    Stated,
    Unread,
    clean_directory,
    shadowed,
)

_GLOB = frozenset("*?[")


def from_poetry(
    document: Mapping[str, object],
    label: str,
    is_file: Callable[[str], bool],
    is_dir: Callable[[str], bool],
) -> Stated:
    """Each wheel entry of `[tool.poetry] packages` as wheel directory -> project directory
    (`is_file`, `is_dir`: whether a project path is a file, or a directory, of the commit)."""
    tool = document.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    if not isinstance(poetry, dict) or "packages" not in poetry:
        return None
    origin = f"{label} [tool.poetry] packages"
    packages = poetry["packages"]
    if not isinstance(packages, list) or not all(isinstance(p, dict) for p in packages):
        return Unread(f"{origin} is not a list of tables, not read")
    entries: dict[str, str] = {}
    for package in packages:
        if not _in_wheel(package.get("format")):
            continue
        values = [package.get("include"), package.get("from", ""), package.get("to", "")]
        if not all(isinstance(v, str) and len(v) <= PATH_CAP for v in values):
            return Unread(f"{origin}: an entry's include, from or to is not a path, not read")
        include, source, target = (str(v) for v in values)
        if _GLOB & set(include):
            return Unread(f"{origin}: include {include!r} is a pattern, not read")
        included = clean_directory(include)
        repo, wheel = clean_directory(source), clean_directory(target)
        if not included or repo is None or wheel is None:
            return Unread(f"{origin}: {include!r} is not a directory in the project, not read")
        if is_file(repo + included[:-1]):
            return Unread(f"{origin} selects the file {repo}{included[:-1]}, not read")
        shipped = wheel + included
        if entries.setdefault(shipped, repo + included) != repo + included:
            return Unread(
                f"{origin} ships both {entries[shipped]} and {repo}{included} as {shipped}"
            )
    if both := shadowed(entries, is_dir):
        return Unread(f"{origin} ships both {both[1]} and {both[2]} as {both[0]}, not read")
    return PackageDirs(tuple(sorted(entries.items())), origin) if entries else None


def _in_wheel(formats: object) -> bool:
    """Whether an entry with this `format` ships in the wheel (absent: in every format)."""
    if formats is None:
        return True
    listed = formats if isinstance(formats, list) else [formats]
    return "wheel" in listed
