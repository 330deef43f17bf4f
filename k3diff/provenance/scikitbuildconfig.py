"""Where scikit-build-core takes a project's Python packages from, read from a parsed
pyproject.toml.

``[tool.scikit-build] wheel.packages`` lists package directories, each shipped under its last
name (``["src/pkg"]``: ``src/pkg/`` as ``pkg/``), or maps wheel package paths to directories
(``{"pkg" = "python/pkg"}``; scikit-build-core's ``get_packages``). A module file (``hello.py``,
1.0 on), two directories shipped as one (the same, or one inside the other where the outer's
place holds that directory too: `packagedirs.shadowed`), or an
``[[tool.scikit-build.overrides]]`` entry setting ``wheel.packages`` (in place of the table's
where its ``if`` holds: a platform, a Python version, an environment variable), or a
``wheel.force-include`` entry whose files are not the commit's (outside the project, or the
build's output) is `Unread`; the files it copies last, over the packages', are compared with
their own places. Without ``wheel.packages``
scikit-build-core takes the first of ``src/NAME``, ``python/NAME`` and ``NAME`` by the
project's name: detection by paths decides, and the files CMake installs or
``wheel.force-include`` copies still stand over its place. CMake installs before the packages'
files are copied, each only where CMake left no file, so a file CMake installs wins over the
package's (`cmakeinstall`), under ``wheel.install-dir``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence

from k3diff.escape import shortened
from k3diff.provenance.hatchconfig import PATH_CAP
from k3diff.provenance.packagedirs import (
    PackageDirs,
    Stated,
    Unread,
    clean_directory,
    forced_files,
    shadowed,
)


def from_scikit_build(
    document: Mapping[str, object],
    label: str,
    is_file: Callable[[str], bool],
    is_dir: Callable[[str], bool],
    files_under: Callable[[str], list[str]],
    installs: Sequence[tuple[str, str, str]] = (),
) -> Stated:
    """`wheel.packages` as wheel directory -> project directory, and each file CMake
    `installs` (`cmakeinstall`: wheel path, project path, as shown) or ``wheel.force-include``
    copies over them, in that order, from its own place (`is_file`, `is_dir`: whether a
    project path is a file, or a directory, of the commit; `files_under`: the commit's files
    under a project directory)."""
    tool = document.get("tool")
    skbuild = tool.get("scikit-build") if isinstance(tool, dict) else None
    skbuild = skbuild if isinstance(skbuild, dict) else {}
    wheel = skbuild.get("wheel")
    origin = f"{label} [tool.scikit-build] wheel.packages"
    if _overridden(skbuild.get("overrides")):
        return Unread(
            f"{origin}: [[tool.scikit-build.overrides]] sets it where its if holds, not read"
        )
    if not isinstance(wheel, dict) or "packages" not in wheel:
        return _over_default(wheel, label, installs, is_file, files_under)
    packages = wheel["packages"]
    if isinstance(packages, list) and all(isinstance(p, str) for p in packages):
        pairs = [(posixpath.basename(posixpath.normpath(p)), p) for p in packages]
    elif isinstance(packages, dict) and all(isinstance(v, str) for v in packages.values()):
        pairs = [(str(k), v) for k, v in packages.items()]
    else:
        return Unread(f"{origin} is not a list or table of paths, not read")
    entries: dict[str, str] = {}
    for name, path in pairs:
        if len(name) > PATH_CAP or len(path) > PATH_CAP:
            return Unread(f"{origin} names a path over {PATH_CAP:,} characters")
        shipped, repo = clean_directory(name), clean_directory(path)
        if not shipped or not repo:
            return Unread(f"{origin}: {path!r} is not a directory in the project, not read")
        if is_file(repo[:-1]):
            return Unread(f"{origin} selects the file {repo[:-1]}, not read")
        if entries.setdefault(shipped, repo) != repo:
            return Unread(f"{origin} ships both {entries[shipped]} and {repo} as {shipped}")
    if both := shadowed(entries, is_dir):
        return Unread(f"{origin} ships both {both[1]} and {both[2]} as {both[0]}, not read")
    installed = forced_files(installs, entries, is_file, files_under)
    if isinstance(installed, str):
        return Unread(f"{origin}: CMake installs {installed}: not read")
    forced = _forced(wheel.get("force-include"), entries, is_file, files_under)
    if isinstance(forced, str):
        return Unread(f"{origin}: wheel.force-include copies {forced}: not read")
    dirs = entries | installed | forced
    if installed:
        origin += " and CMakeLists.txt install()"
    return PackageDirs(tuple(sorted(dirs.items())), origin) if entries else None


def _over_default(
    wheel: object,
    label: str,
    installs: Sequence[tuple[str, str, str]],
    is_file: Callable[[str], bool],
    files_under: Callable[[str], list[str]],
) -> Stated:
    """Without ``wheel.packages`` scikit-build-core takes the package by the project's name
    (not read: detection decides), and the files CMake installs or ``wheel.force-include``
    copies still stand over it (`Unread.files`; src72: the force-include table was read only
    beside ``wheel.packages``)."""
    if not installs and not (isinstance(wheel, dict) and wheel.get("force-include")):
        return None
    installed = forced_files(installs, {}, is_file, files_under)
    table = wheel.get("force-include") if isinstance(wheel, dict) else None
    forced = _forced(table, {}, is_file, files_under)
    reason = (
        f"{label} [tool.scikit-build] states no wheel.packages: scikit-build-core takes the "
        "package by the project's name, which is not read"
    )
    if isinstance(installed, str) or isinstance(forced, str):
        return Unread(f"{reason}, nor the files it installs or copies over it")
    return Unread(reason, tuple(sorted((installed | forced).items())))


def cmake_layout(document: Mapping[str, object]) -> tuple[str, str] | str | None:
    """(the top ``CMakeLists.txt``'s project path, ``wheel.install-dir`` as '' or a directory
    ending in '/') of a build that runs CMake; None where ``wheel.cmake`` is false; or why not
    read (not a literal relative path)."""
    tool = document.get("tool")
    skbuild = tool.get("scikit-build") if isinstance(tool, dict) else None
    skbuild = skbuild if isinstance(skbuild, dict) else {}
    wheel, cmake = skbuild.get("wheel"), skbuild.get("cmake")
    wheel = wheel if isinstance(wheel, dict) else {}
    if wheel.get("cmake") is False:
        return None
    source = cmake.get("source-dir", ".") if isinstance(cmake, dict) else "."
    install = wheel.get("install-dir", "")
    if not isinstance(source, str) or not isinstance(install, str) or "$" in install:
        return "cmake.source-dir or wheel.install-dir is not a literal path"
    if source != source.strip() or install != install.strip():
        return "cmake.source-dir or wheel.install-dir is not a literal path"
    top, place = clean_directory(source), clean_directory(install or ".")
    if top is None or place is None or len(source) + len(install) > PATH_CAP:
        return "cmake.source-dir or wheel.install-dir is outside the project or the wheel"
    return top + "CMakeLists.txt", place


_CHOOSING: tuple[tuple[str, str], ...] = (("wheel", "install-dir"), ("wheel", "cmake"))
_CHOOSING += (("cmake", "source-dir"), ("install", "components"))


def install_doubt(document: Mapping[str, object]) -> str | None:
    """Why the files read from the project's ``install()`` may not be what the build installs,
    or None: ``install.components`` runs only the installs of those components (a file's
    default one too, ``Unspecified``, unless the CMake renames it), and an
    ``[[tool.scikit-build.overrides]]`` entry may set it, ``wheel.install-dir``,
    ``wheel.cmake`` or ``cmake.source-dir`` where its ``if`` holds (review72a: one setting
    ``wheel.install-dir = "pkg"`` on Linux placed the fix at ``pkg/sub/auth.py`` while k3diff
    read ``sub/auth.py`` and compared the package's old file, exit 0)."""
    tool = document.get("tool")
    skbuild = tool.get("scikit-build") if isinstance(tool, dict) else None
    skbuild = skbuild if isinstance(skbuild, dict) else {}
    install = skbuild.get("install")
    if isinstance(install, dict) and install.get("components"):
        return "install.components chooses which of them run"
    if _overridden(skbuild.get("overrides"), *_CHOOSING):
        return (
            "[[tool.scikit-build.overrides]] may set install.components, wheel.install-dir, "
            "wheel.cmake or cmake.source-dir where its if holds"
        )
    return None


_PLATLIB = ("${SKBUILD_PLATLIB_DIR}", "${SKBUILD_PURELIB_DIR}")


def _forced(
    table: object,
    entries: Mapping[str, str],
    is_file: Callable[[str], bool],
    files_under: Callable[[str], list[str]],
) -> dict[str, str] | str:
    """Each file ``wheel.force-include`` (project path -> wheel path, relative to the package
    area or under ``${SKBUILD_PLATLIB_DIR}``) copies into the package area after the packages'
    files, over any there, from its own place (`packagedirs.forced_files`; review71a: a fixed
    ``src/pkg/auth.py`` forced over ``legacy/pkg/`` had the legacy copy compared, exit 0), or
    why it is not read; a destination in another wheel tree (data, scripts, headers) is not
    compared."""
    if not isinstance(table, dict):
        return {}
    places = []
    for source, dest in table.items():
        if not isinstance(dest, str):
            return f"{shortened(repr(dest), 200)}, not a path"
        head, _, rest = dest.partition("/")
        place = rest if head in _PLATLIB else dest
        if place.startswith(("${", "/")):
            continue
        wheel = posixpath.normpath(place or ".")
        origin = posixpath.normpath(source or ".")
        outside = origin.startswith("/") or origin == ".." or origin.startswith("../")
        shown = f"{shortened(source, 200)!r} to {shortened(dest, 200)!r}"
        places.append(("" if wheel == "." else wheel, None if outside else origin, shown))
    return forced_files(places, entries, is_file, files_under)


def _overridden(overrides: object, *settings: tuple[str, str]) -> bool:
    """Whether an entry of `overrides` (a list of tables, each an ``if`` and settings) may set
    one of `settings` (table, key; ``wheel.packages`` where none is given): one setting it, or
    one that is not a table."""
    if not isinstance(overrides, list):
        return False  # not what scikit-build-core takes: it refuses to build
    return any(
        not isinstance(entry, dict)
        or any(
            isinstance(table := entry.get(name), dict) and key in table
            for name, key in settings or (("wheel", "packages"),)
        )
        for entry in overrides
    )
