"""The systems a wheel's tags install it on, as W629 judges extension files on each.

A Python on Windows loads `.pyd` files alone and lowers a name's suffix before it matches it
(`FileFinder._fill_cache`); elsewhere a Python loads `.so` files alone and matches names as
written, on macOS too (`k3diff.wheel.extsuffix`). A suffix's platform (`x86_64-linux-gnu`,
`darwin`, `win_amd64`) names the one system whose Python finds it (a cross-build under the
host's tag is found by none). So a wheel is judged on each system its tags name apart
(abi68: a `manylinux….win_amd64` tag set was judged as one, and a module whose only file was a
`.so`, which no Python on Windows loads, passed): `win_amd64`, `win32`, `win_arm64` each,
`darwin` for every `macosx_…` tag, `ARCH-linux` for each architecture of the `manylinux`,
`musllinux` and `linux` tags (the libc is not read: CPython before 3.13 on musl named its files
`-linux-gnu`), one for `any`, whose files are all read as written, and one for the rest (iOS,
Android, MSYS2's `mingw_…`), whose files are all read, and a suffix in another case found by
none (as before abi68).

The file system decides too, where Python opens a path it computed rather than a name it
listed: `SourceFileLoader` opens `cache_from_source(path)`, `__pycache__/m.cpython-312.pyc`,
which NTFS and APFS (as macOS formats it) find in any case, so `__PYCACHE__/M.cpython-312.PYC`
is the cache Python reads there (surf68: `CaseRule`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

from k3diff.lazyre import lazy
from k3diff.wheel.extsuffix import SUFFIX

_MINGW = lazy(r"-mingw_[^-]*$")
_TRIPLET = lazy(r"-([^-]+)-linux(?:-[^-]*)?$")
_LINUX_TAG = lazy(r"(?:manylinux_\d+_\d+|musllinux_\d+_\d+|manylinux\d+|linux)_(.+)")
_TRIPLET_ARCH = {"i686": "i386", "armv7l": "arm", "armv6l": "arm", "ppc64le": "powerpc64le"}
"""A platform tag's architecture as CPython's SOABI names it (`configure`'s triplet), where
they differ."""
_FOREIGN = {
    ".pyd": " (as .so, which no Python on Windows loads)",
    ".so": " (as .pyd, which Python loads on Windows alone)",
}


class System(NamedTuple):
    """One system a wheel's tags install it on, and how its Python finds extension files."""

    name: str | None
    """`win_amd64`, `darwin`, `x86_64-linux` (as a suffix names it); None for the rest."""
    tags: frozenset[str]
    """The wheel's tags for it."""
    loads: str | None
    """`.pyd` on Windows, `.so` on Linux and macOS, None where k3diff does not read it."""
    folds: bool | None
    """True where the import system lowers a name's suffix (Windows), False where it matches
    it as written (Linux, macOS), None where k3diff does not know (read as written)."""

    def keeps(self, path: str) -> bool:
        """True when this system's Python may find the file: its extension the one it loads,
        its suffix's platform (if any) this system."""
        lowered = path.lower()
        if self.loads is not None and not lowered.endswith(self.loads):
            return False
        return self.name is None or file_system(lowered if self.folds else path) in (
            None,
            self.name,
        )

    def foreign(self, paths: list[str], several: bool) -> str:
        """Why some of a module's files (`paths`) are found on this system by none (`several`:
        the wheel's tags name other systems too)."""
        if self.loads is not None and not all(p.lower().endswith(self.loads) for p in paths):
            return _FOREIGN[self.loads]
        systems = {file_system(path) for path in paths}
        other = ", ".join(sorted(str(found) for found in systems - {None, self.name}))
        return (
            f" (for {other})"
            if several
            else f" (for {other}, while its tags install it on {self.name} alone)"
        )


class CaseRule(NamedTuple):
    """Where some system a wheel's tags install it on finds a name in another case."""

    suffix_blind: bool
    """Its import system lowers a name's suffix (Windows, and `any`, which installs there): a
    sourceless `pkg/m.PYC` is module `m`'s bytecode."""
    path_blind: bool
    """Its file system opens a path in any case (Windows, macOS, `any`): a `.pyc` under a
    `__pycache__` in any case is the cache Python opens for its source."""


EVERY_CASE = CaseRule(True, True)
"""Names found in any case, as on Windows."""


def case_rule(tags: frozenset[str]) -> CaseRule:
    """How the systems `tags` name (`systems`) treat case; every system's way when no tag is
    read."""
    found = systems(tags)
    if not found:
        return EVERY_CASE
    suffix = any(  # win*, `any`, and `mingw_…`: MSYS2's MinGW Python is a Windows build
        system.folds or system.folds is None or any(map(_MINGW.search, system.tags))
        for system in found
    )
    return CaseRule(suffix, suffix or any(system.name == "darwin" for system in found))


def systems(tags: frozenset[str]) -> list[System]:
    """The systems the tags install on, each with its tags, in a stable order."""
    grouped: dict[str, set[str]] = defaultdict(set)
    for tag in tags:
        grouped[_system(tag.rpartition("-")[2])].add(tag)
    return [_made(key, frozenset(grouped[key])) for key in sorted(grouped)]


def _made(key: str, tags: frozenset[str]) -> System:
    if key == _ANY:
        return System(None, tags, None, None)
    if key == _OTHER:  # iOS, Android, FreeBSD: POSIX systems, matching names as written
        return System(None, tags, None, False)
    windows = key.startswith("win")
    return System(key, tags, ".pyd" if windows else ".so", windows)


_ANY = "any"
_OTHER = "other"


def _system(platform: str) -> str:
    """The system a platform tag names, as `file_system` names it; `any`; or `other` for one
    k3diff does not read (iOS, Android, `mingw_…`)."""
    if platform.startswith("win"):
        return platform
    if platform.startswith("macosx_"):
        return "darwin"
    if match := _LINUX_TAG.fullmatch(platform):
        return f"{_TRIPLET_ARCH.get(match.group(1), match.group(1))}-linux"
    return _ANY if platform == _ANY else _OTHER


def file_system(path: str) -> str | None:
    """The system a file's ABI suffix names (`x86_64-linux`, `darwin`, `win_amd64`), None for
    a suffix of none: CPython's SOABI carries its platform (`.cpython-313-x86_64-linux-gnu.so`),
    and only that system's CPython finds it."""
    found = SUFFIX.search(path.rpartition("/")[2])
    tag = "" if found is None else found.group(1)
    if (platform := tag.rpartition("-")[2]).startswith("win"):
        return platform
    if tag.endswith("-darwin"):
        return "darwin"
    match = _TRIPLET.search(tag)
    return None if match is None else f"{match.group(1)}-linux"
