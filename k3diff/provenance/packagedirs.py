"""What a build configuration states about where a wheel's packages live in the repository.

Every backend's reader (`setuptoolsconfig`, `hatchconfig`, `maturinconfig`) answers with one of
these, relative to the project's directory (the one holding the configuration file); the caller
(`buildconfig`) places them in the repository.
"""

from __future__ import annotations

import bisect
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


def forced_elsewhere(
    forced: Iterable[tuple[str, str | None, str]], dirs: Mapping[str, str]
) -> str | None:
    """The first of `forced` (wheel path, project path, as the configuration shows it) whose
    files, copied into the wheel last by a backend's ``force-include``, are not those the check
    compares there: the wheel path (normalised, no trailing '/', '' the wheel's root) is the
    root or leaves it, lies around a directory `dirs` ships (wheel directory -> project
    directory, each ending in '/'), or its place is not the project path (normalised, no
    trailing '/'; None outside the project). The place is under the deepest entry holding the
    wheel path, else the wheel path itself: one no entry covers is compared under the project's
    directory. review71a, prov71b: a fixed ``src/pkg/auth.py`` forced over ``legacy/pkg/``'s
    files, the legacy copy was compared and a patch reverting to it passed, exit 0. Entries are
    looked up by the wheel path's directories and bisected, never scanned (a 256 KiB file may
    list 20,000 of each)."""
    shipped = sorted(dirs)
    longest = max(map(len, shipped), default=0)
    for wheel, source, shown in forced:
        if not wheel or wheel == ".." or wheel.startswith("../"):
            return shown
        inside = wheel + "/"
        at = bisect.bisect_right(shipped, inside)
        if at < len(shipped) and shipped[at].startswith(inside):
            return shown  # around an entry: a directory copied over its files
        place = dirs.get("", "") + wheel
        cut = inside.rfind("/", 0, longest)
        while cut >= 0:
            if (repo := dirs.get(inside[: cut + 1])) is not None:
                place = repo + inside[cut + 1 : -1]
                break
            cut = inside.rfind("/", 0, cut)
        if source is None or posixpath.normpath(place or ".") != source:
            return shown
    return None
