"""What a build configuration states about where a wheel's packages live in the repository.

Every backend's reader (`setuptoolsconfig`, `hatchconfig`, `maturinconfig`) answers with one of
these, relative to the project's directory (the one holding the configuration file); the caller
(`buildconfig`) places them in the repository.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PackageDirs:
    """The packages' directories the configuration states."""

    dirs: tuple[tuple[str, str], ...]
    """(wheel directory, repository directory), each ``''`` or ending in '/': ``('pkg/',
    'src/realname/')`` ships ``src/realname/auth.py`` as ``pkg/auth.py``; ``''`` as the wheel
    directory names the root of every wheel path no other entry covers; a module file's path
    (``mod.py``, flit's) maps that file alone."""
    origin: str
    """Where it was read: ``pyproject.toml [tool.setuptools.package-dir]`` …"""


@dataclass(frozen=True)
class Unread:
    """A configuration that states a mapping k3diff cannot read."""

    reason: str
    """``setup.py's package_dir is not a literal dict`` …"""
    files: tuple[tuple[str, str], ...] = ()
    """(wheel path, repository path) of each file a ``force-include`` entry read ships over
    whatever detection places there (`forced_files`; review71d: with hatchling's default
    file selection, a fixed ``fixes/auth.py`` forced over the old ``src/pkg/sub/auth.py``
    had the old one compared, exit 0)."""


Stated = PackageDirs | Unread | None
"""A reader's answer: a mapping, why it cannot be read, or None where nothing is stated."""


def one(found: Sequence[PackageDirs | Unread]) -> Stated:
    """The one mapping `found` states: the first `Unread`, if any; `Unread` when two differ."""
    unread = [f for f in found if isinstance(f, Unread)]
    if unread:
        return unread[0]
    stated = [f for f in found if isinstance(f, PackageDirs)]
    if len({s.dirs for s in stated}) > 1:
        return Unread(f"{stated[0].origin} and {stated[1].origin} differ")
    return stated[0] if stated else None


def checked_dirs(value: object, label: str, setting: str) -> PackageDirs | Unread:
    """setuptools' `package_dir` (dotted package name -> directory, ``''`` the root of every
    package no longer name covers) as wheel directories, or why it is not one k3diff can use;
    `label` is the file's repository path, `setting` what in it states the value."""
    name = label
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        return Unread(f"{name}'s package_dir is not a literal dict of strings, not read")
    dirs = []
    for package, target in value.items():
        cleaned = clean_directory(target)
        if cleaned is None:
            return Unread(f"{name} maps {package or 'the root'!r} outside its project")
        wheel = package.strip().replace(".", "/")
        dirs.append((wheel + "/" if wheel else "", cleaned))
    return PackageDirs(tuple(sorted(dirs)), f"{label} {setting}")


def clean_directory(text: str) -> str | None:
    """A directory of the project ('' or ending in '/'); None for one outside it."""
    if text.startswith("/") or "\\" in text or "\0" in text:
        return None
    cleaned = posixpath.normpath(text.strip() or ".")
    if cleaned == ".":
        return ""
    if cleaned == ".." or cleaned.startswith("../"):
        return None
    return cleaned + "/"


def placed(stated: Stated, directory: str) -> Stated:
    """`stated` for a project in repository directory `directory` ('' or ending in '/')."""
    if isinstance(stated, Unread) and directory and stated.files:
        files = tuple((wheel, directory + repo) for wheel, repo in stated.files)
        return Unread(stated.reason, files)
    if not directory or not isinstance(stated, PackageDirs):
        return stated
    dirs = tuple((wheel, directory + repo) for wheel, repo in stated.dirs)
    return PackageDirs(dirs, stated.origin)


def shadowed(dirs: Mapping[str, str], is_dir: Callable[[str], bool]) -> tuple[str, str, str] | None:
    """(wheel directory, outer place, inner place) for the first entry of `dirs` (wheel directory
    -> repository directory) inside another whose own directory there the commit holds too: the
    backend ships both directories' files there, the one copied last winning (scikit-build-core:
    the table's order; poetry-core: by source path), which no one place says (review71a: the
    inner, an old copy, was taken, exit 0). The nearest outer entry is checked: a farther one's
    directory there lies under the nearest's own place, which the nearest's check finds."""
    outer: list[str] = []
    for wheel in sorted(dirs):  # an entry's inner ones follow it, before any other
        while outer and not wheel.startswith(outer[-1]):
            outer.pop()
        if outer:
            place = dirs[outer[-1]] + wheel[len(outer[-1]) :]
            if place != dirs[wheel] and is_dir(place[:-1]):
                return wheel, place, dirs[wheel]
        outer.append(wheel)
    return None


FORCED_CAP = 100_000
"""Most files ``force-include`` entries may ship in all: each forced directory lists the
commit's files under it, and a 256 KiB table of ``"." = "aN"`` entries would list the whole
tree 20,000 times; past it the entries are not read."""


def forced_files(
    forced: Iterable[tuple[str, str | None, str]],
    dirs: Mapping[str, str],
    is_file: Callable[[str], bool],
    files_under: Callable[[str], list[str]],
) -> dict[str, str] | str:
    """Wheel path -> project path for each file `forced` (wheel path, project path, as the
    configuration shows the entry) ships: a backend's ``force-include`` copies its file, or
    each file of its directory, after the packages' files, over any at the same path
    (hatchling, scikit-build-core), so each is compared with its own place (review71d: a
    fixed ``fixes/auth.py`` forced over an old ``src/pkg/sub/auth.py`` was not read, detection
    compared the old one, and a wheel keeping it matched, exit 0). A file the layout `dirs`
    (wheel directory -> project directory) already compares there is left out. Or why not
    read: a source outside the project (None) or not in the commit (a hook's or build's
    output), a wheel path at the root ('') or leaving it, two files at one path, or more
    than `FORCED_CAP` files."""
    files: dict[str, str] = {}
    count = 0
    longest = max(map(len, dirs), default=0)
    for wheel, source, shown in forced:
        if source is None:
            return f"{shown}, from outside the project"
        if not wheel or wheel == ".." or wheel.startswith("../"):
            return f"{shown}, to the wheel's root or a place k3diff does not follow"
        if source != "." and is_file(source):
            shipped = {wheel: source}
        else:
            inside = "" if source == "." else source + "/"
            listed = files_under(inside[:-1])
            shipped = {wheel + "/" + path[len(inside) :]: path for path in listed}
            if not shipped:
                return f"{shown}, whose source the commit holds no file at"
        count += len(shipped)
        if count > FORCED_CAP:
            return f"{shown}, past {FORCED_CAP:,} files forced in all"
        for path, place in shipped.items():
            if _layout_place(dirs, path, longest) == place:
                continue  # the file compared there (``"src/pkg/x.py" = "pkg/x.py"``)
            if files.setdefault(path, place) != place:
                return f"{shown}, a second file to {path}"
    return files


def _layout_place(dirs: Mapping[str, str], path: str, longest: int) -> str:
    """The project path layout `dirs` compares wheel path `path` with: under the deepest
    entry holding it (a module file's own entry first), else under the project's directory;
    only `path`'s directories as long as the longest entry at most are looked up."""
    if (own := dirs.get(path)) is not None:
        return own
    at = min(len(path), longest)
    while (at := path.rfind("/", 0, at)) >= 0:
        if (repo := dirs.get(path[: at + 1])) is not None:
            return repo + path[at + 1 :]
    return dirs.get("", "") + path
