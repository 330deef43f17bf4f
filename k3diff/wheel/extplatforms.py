"""The systems a wheel's tags install it on, as W629 judges extension files on each.

A Python on Windows loads `.pyd` files alone and lowers a name's suffix before it matches it
(`FileFinder._fill_cache`); elsewhere a Python loads `.so` files alone and matches names as
written, on macOS too (`k3diff.wheel.extsuffix`). A suffix's platform (`x86_64-linux-gnu`,
`darwin`, `win_amd64`) names the one system whose Python finds it (a cross-build under the
host's tag is found by none). So a wheel is judged on each system its tags name apart
(abi68: a `manylinux….win_amd64` tag set was judged as one, and a module whose only file was a
`.so`, which no Python on Windows loads, passed): `win_amd64`, `win32`, `win_arm64` each,
`darwin` for every `macosx_…` tag, `ARCH-linux-gnu` for each architecture of the `manylinux`
tags (glibc), `ARCH-linux-musl` of the `musllinux` ones and `ARCH-linux` of the `linux` ones
(either libc), three for `any` (Windows, Linux and macOS, and Cygwin and MSYS2: every
platform of each, so that only a name of no platform counts there; review70b: Cygwin's was not
judged), MSYS2's MinGW build (`mingw_x86_64_ucrt_gnu`, a
Windows build whose suffix names that tag), Android's ABIs (`aarch64-linux-android` for
`android_21_arm64_v8a`) and iOS's SDKs (`iphoneos`, `iphonesimulator`) each (w629c), Cygwin's
and MSYS2's own Python each (`.dll` extensions alone, NTFS: tags70), FreeBSD's (`.so` alone, a
CPython 3.5+ name of no platform: review70b), and one for the rest, whose files are all read,
and a suffix in another case found by none (as before abi68).

A suffix's platform is read as the import system matches it, as written (lowered on Windows):
only the triplet CPython's `configure` writes for the tag's architecture and libc (lower case,
`x86_64-linux-gnu`, `arm-linux-gnueabihf` for `armv7l`, `x86_64-linux-musl`, `darwin`) is a
system's; any other (`x86_64-Linux-gnu`, `Darwin`, `aarch64-linux-android` under a Linux tag,
`x86_64-linux-musl` under a glibc tag, the x32 ABI's `x86_64-linux-gnux32`) is found on none of
the systems named, nor is a CPython 3.5+ name of no platform (`.cpython-313.so`, FreeBSD's),
which no Python on Linux or macOS lists (review68: each was read as the system's, and passed).
A musl system's CPython before 3.13 also finds the glibc triplet's names (it wrote them), 3.13
and later not (`System.until`).

The file system decides too, where Python opens a path it computed rather than a name it
listed: `SourceFileLoader` opens `cache_from_source(path)`, `__pycache__/m.cpython-312.pyc`,
which NTFS and APFS (as macOS formats it) find in any case, so `__PYCACHE__/M.cpython-312.PYC`
is the cache Python reads there (surf68: `CaseRule`).
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import NamedTuple

from k3diff.lazyre import lazy
from k3diff.wheel.extsuffix import SUFFIX
from k3diff.wheel.targets import version_number

_HEAD = lazy(r"cpython-3(\d+)[a-z]*|abi3t?|pypy3\d+-pp\d+|cp3\d+t?|graalpy[^-]*-[^-]*-[^-]*")
"""The ABI before a suffix's platform (`k3diff.wheel.extsuffix`'s tags)."""
_PLATFORMED = 5
"""The first CPython 3 minor version whose SOABI names its platform on Linux and macOS."""
_MUSL_NAMED = 13
"""The first CPython 3 minor version whose every build on musl names its files `-linux-musl`
(3.11 and 3.12 did where `configure` detected musl, gh-95855)."""
NO_PLATFORM = ""
"""`file_system` of a CPython 3.5+ name of no platform, which no Python on Linux or macOS finds."""
_NTFS_POSIX = ("cygwin", "msys")
"""Cygwin's and MSYS2's own Python (`cygwin_…`, `msys_…` tags; MSYS2's runtime is a Cygwin
fork): a POSIX build on NTFS, whose `open` finds a path in any case (Cygwin's default), whose
import system matches names as written (review68c) and loads `.dll` extensions alone
(`dynload_shlib.c` under `__CYGWIN__`; tags70: read as a system of no suffix list, one with
FreeBSD, whose files were all found)."""
_FREEBSD = "freebsd"
"""FreeBSD's CPython (`freebsd_…` tags): `dynload_shlib.c` lists `.cpython-3Y.so` (its SOABI
names no platform: `Misc/platform_triplet.c` writes none there), `.abi3.so` and `.so`
(review70b: read as a system of no suffix list, whose files were all found, a module of a Linux
triplet's `.so` or a `.pyd` alone passed W629)."""
_LINUX_TAG = lazy(r"(?:manylinux_\d+_\d+|musllinux_\d+_\d+|manylinux\d+|linux)_(.+)")
_TRIPLET_ARCH = {
    "i686": "i386",
    "armv7l": "arm",
    "armv6l": "arm",
    "ppc64le": "powerpc64le",
    "ppc64": "powerpc64",
}
"""A platform tag's architecture as CPython's SOABI names it (`configure`'s triplet), where
they differ."""
_LIBC_ABI = {"arm": ("gnueabihf", "musleabihf")}
"""The libc part of the triplet CPython writes on an architecture (`Misc/platform_triplet.c`)
where it is not `gnu` or `musl`: the hard-float ABI the `armv7l` and `armv6l` tags stand for
(`arm-linux-gnueabihf`). Any other (`x86_64-linux-gnux32`, the x32 ABI; `arm-linux-gnueabi`,
soft float; `loongarch64-linux-gnusf`) is another ABI, which no CPython of the tag lists
(w629c: the libc was read by family, so an x32 build spared a module on `manylinux_x86_64`)."""
_ANDROID_TAG = lazy(r"android_\d+_(.+)")
_ANDROID_ABI = {
    "arm64_v8a": "aarch64-linux-android",
    "x86_64": "x86_64-linux-android",
    "armeabi_v7a": "arm-linux-androideabi",
    "x86": "i686-linux-android",
}
"""An Android tag's ABI (PEP 738) and the triplet CPython 3.13's `configure` writes for it
(`Misc/platform_triplet.c`), its SOABI's platform (`.cpython-313-aarch64-linux-android.so`)."""
_IOS_TAG = lazy(r"ios_\d+_\d+_[a-z0-9_]+_(iphoneos|iphonesimulator)")
"""An iOS tag (PEP 730): its SOABI's platform is the SDK alone (`configure`'s
`SOABI_PLATFORM`: `.cpython-313-iphoneos.so`, `.cpython-313-iphonesimulator.so` for either
architecture)."""
_FOREIGN = {
    ".pyd": " (as .so, which no Python on Windows loads)",
    ".so": " (as .pyd, which Python loads on Windows alone)",
    ".dll": " (as .so or .pyd, which Python on Cygwin and MSYS2 does not load: it loads .dll)",
}


class System(NamedTuple):
    """One system a wheel's tags install it on, and how its Python finds extension files."""

    name: str | None
    """`win_amd64`, `darwin`, `x86_64-linux-gnu` (as a suffix names it); `ANY_WINDOWS`,
    `ANY_POSIX` for an `any` tag's (which no suffix names); None for the rest."""
    tags: frozenset[str]
    """The wheel's tags for it."""
    loads: str | None
    """`.pyd` on Windows, `.dll` on Cygwin and MSYS2, `.so` on Linux and macOS, None where
    k3diff does not read it."""
    folds: bool | None
    """True where the import system lowers a name's suffix (Windows), False where it matches
    it as written (Linux, macOS), None where k3diff does not know (read as written)."""

    def keeps(self, path: str) -> bool:
        """True when this system's Python may find the file: its extension the one it loads,
        its suffix's platform (if any) this system."""
        lowered = path.lower()
        if self.loads is not None and not lowered.endswith(self.loads):
            return False
        return self.name is None or self._read(path) in (None, *self.finding())

    def finding(self) -> tuple[str, ...]:
        """The platforms (as `file_system` names them) whose names this system's Python finds:
        its own (a name of no platform on FreeBSD); on Linux the libc's triplet as CPython writes it on the architecture
        (glibc's `x86_64-linux-gnu`, musl's `x86_64-linux-musl` and, before 3.13, the glibc
        one; `arm-linux-gnueabihf` on `armv7l`) and a triplet of none (GraalPy's)."""
        name = str(self.name)
        if name == _FREEBSD:
            return (NO_PLATFORM,)
        arch, libc = _linux(name)
        if arch is None:
            return (name,)
        glibc, musl = _LIBC_ABI.get(arch, ("gnu", "musl"))
        libcs = {glibc: (glibc,), musl: (musl, glibc)}.get(libc or "", (glibc, musl))
        return (f"{arch}-linux", *(f"{arch}-linux-{found}" for found in libcs))

    def until(self, path: str) -> int | None:
        """The first CPython 3 minor version here that does not find a file this system keeps,
        None where each finds it: on musl the glibc triplet is found before 3.13 alone
        (3.13's `configure` names musl's triplet `-linux-musl`; review68: a `cp313` musllinux
        wheel of glibc names passed)."""
        arch, libc = _linux(str(self.name))
        if arch is None or libc is None or not libc.startswith("musl"):
            return None
        glibc = _LIBC_ABI.get(arch, ("gnu", "musl"))[0]
        return _MUSL_NAMED if self._read(path) == f"{arch}-linux-{glibc}" else None

    def _read(self, path: str) -> str | None:
        return file_system(path.lower() if self.folds else path)

    def said(self) -> str:
        """The system as findings name it: its name, else its tags' platforms."""
        return self.name or ", ".join(sorted({tag.rpartition("-")[2] for tag in self.tags}))

    def foreign(self, paths: list[str], several: bool) -> str:
        """Why some of a module's files (`paths`) are found on this system by none (`several`:
        the wheel's tags name other systems too)."""
        if self.loads is not None and not all(p.lower().endswith(self.loads) for p in paths):
            return _FOREIGN[self.loads]
        systems = {self._read(path) for path in paths} - {None, *self.finding()}
        other = ", ".join(sorted(found or "no platform" for found in systems if found is not None))
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
    """Its file system opens a path in any case (Windows, macOS, Cygwin, `any`): a `.pyc` under a
    `__pycache__` in any case is the cache Python opens for its source."""
    each: tuple[CaseRule, ...] = ()
    """Each system's own rule (`AS_WRITTEN`, `PATH_BLIND`, `NTFS_POSIX`, `WINDOWS`), of which
    the two above say whether some system has its way; empty: this rule is one system's. A
    name may mean a thing on one system alone: an `__INIT__.pyc` keeps a package on macOS and
    Windows, not on Linux, where the module file beside it runs (`wheels.shadowing`:
    review69)."""
    dll: bool = False
    """Its Python loads `.dll` extensions alone (Cygwin's, MSYS2's), not `.so`."""
    names: tuple[str, ...] = ()
    """The systems of each rule of `each`, as findings name them (`System.said`)."""

    def systems(self) -> tuple[CaseRule, ...]:
        """Each system's own rule."""
        return self.each or (self,)

    def named(self, rule: CaseRule) -> str:
        """The systems whose rule is `rule` (one of `each`), as findings name them."""
        return self.names[self.each.index(rule)] if rule in self.each[: len(self.names)] else ""


AS_WRITTEN = CaseRule(False, False)
"""Linux's (and every other POSIX system's k3diff reads): names matched and opened as written."""
PATH_BLIND = CaseRule(False, True)
"""macOS's: names listed matched as written, paths opened in any case."""
NTFS_POSIX = CaseRule(False, True, (), True)
"""Cygwin's and MSYS2's: macOS's way with case, `.dll` extensions."""
WINDOWS = CaseRule(True, True)
"""Windows': a name's suffix lowered before it is matched, paths opened in any case."""
EVERY_CASE = CaseRule(True, True, (AS_WRITTEN, PATH_BLIND, WINDOWS))
"""Every system's way: names found in any case, as on Windows, and as written, as on Linux."""


def case_rule(tags: frozenset[str]) -> CaseRule:
    """How the systems `tags` name (`systems`) treat case, each (`CaseRule.each`) and some;
    every system's way when no tag is read."""
    found = systems(tags)
    if not found:
        return EVERY_CASE
    named: dict[CaseRule, dict[str, None]] = {}
    for system in found:
        for rule in system_cases(system):
            named.setdefault(rule, {})[system.said()] = None
    each = tuple(named)
    return CaseRule(
        any(rule.suffix_blind for rule in each),
        any(rule.path_blind for rule in each),
        each,
        names=tuple(", ".join(names) for names in named.values()),
    )


def system_cases(system: System) -> tuple[CaseRule, ...]:
    """One system's rules: Windows' for win*, `mingw_…` (MSYS2's MinGW Python is a Windows
    build, `_WINDOWS_BUILDS`) and `any`'s Windows; Linux's and macOS's for `any`'s POSIX
    systems (a name means a thing there only where it does on both: `versionbound._sourced`);
    macOS's for `darwin`, Cygwin's and MSYS2's for theirs and `any`'s, Linux's for the rest."""
    if system.folds:
        return (WINDOWS,)
    if system.name == ANY_POSIX:
        return (AS_WRITTEN, PATH_BLIND)
    if system.name == "darwin":
        return (PATH_BLIND,)
    ntfs = system.name in _NTFS_POSIX or system.name == ANY_NTFS_POSIX
    return (NTFS_POSIX,) if ntfs else (AS_WRITTEN,)


def systems(tags: frozenset[str]) -> list[System]:
    """The systems the tags install on, each with its tags, in a stable order."""
    grouped: dict[str, set[str]] = defaultdict(set)
    for tag in filter(lambda tag: not abi_any(tag), tags):  # installed nowhere: W616's
        grouped[_system(tag.rpartition("-")[2])].add(tag)
    return [made for key in sorted(grouped) for made in _made(key, frozenset(grouped[key]))]


def abi_any(tag: str) -> bool:
    """A tag pairing an ABI with the platform `any` (`cp313-cp313-any`), which packaging lists
    on no Python (`any` comes beside the ABI `none` alone): pip installs by it nowhere."""
    _, abi, platform = [*tag.split("-"), "", ""][:3]
    return platform == _ANY and abi != "none"


def _made(key: str, tags: frozenset[str]) -> list[System]:
    if key == _ANY:  # every system: a file of one platform's name is found on it alone
        return [
            System(ANY_WINDOWS, tags, ".pyd", True),
            System(ANY_POSIX, tags, ".so", False),
            System(ANY_NTFS_POSIX, tags, ".dll", False),
        ]
    if key == _OTHER:  # others: POSIX systems, matching names as written
        return [System(None, tags, None, False)]
    if key in _NTFS_POSIX:
        return [System(key, tags, ".dll", False)]
    windows = key.startswith(_WINDOWS_BUILDS)  # FreeBSD's loads `.so`, as Linux's
    return [System(key, tags, ".pyd" if windows else ".so", windows)]


_WINDOWS_BUILDS = ("win", "mingw_")
"""The platforms of a Windows build of CPython: MSVC's `win_amd64`, `win32`, `win_arm64`, and
MSYS2's MinGW one (`mingw_x86_64_ucrt_gnu`: `sys.platform` `win32`, `dynload_win.c`, its
suffixes `.cp312-mingw_x86_64_ucrt_gnu.pyd` and `.pyd`, `PYD_PLATFORM_TAG` being the
platform tag: MSYS2's `0011-build-Add-PYD_PLATFORM_TAG.patch`; w629c: judged as a system of
no suffix list, which read every file as found)."""


def _linux(name: str) -> tuple[str | None, str | None]:
    """The architecture and libc ABI of a Linux system's name (`arm`, `gnueabihf`; `x86_64`,
    None for `linux_x86_64`'s either libc), (None, None) for any other (Android's is its
    own)."""
    arch, linux, libc = name.partition("-linux")
    if not linux or (libc and not libc.startswith(("-gnu", "-musl"))):
        return None, None
    return arch, libc.removeprefix("-") or None


_ANY = "any"
_OTHER = "other"
ANY_WINDOWS = "Windows (any)"
ANY_POSIX = "Linux and macOS (any)"
ANY_NTFS_POSIX = "Cygwin and MSYS2 (any)"
"""The systems an `any` tag installs on, each judged as one whose every platform's Python
must find the module: only a name of no platform counts there (review68: the `any` tag was
one system reading every file as found, so a `cp313-cp313-any` wheel holding a Linux build's
`.so` alone passed, though pip installs it on Windows and macOS too)."""


def _system(platform: str) -> str:
    """The system a platform tag names, as `file_system` names it; `cygwin`, `msys` or
    `freebsd`; `any`; or `other` for one k3diff does not read (an Android ABI PEP 738 does not
    name, NetBSD, Solaris)."""
    if platform.startswith(_WINDOWS_BUILDS):
        return platform
    if (head := platform.partition("_")[0]) in (*_NTFS_POSIX, _FREEBSD):
        return head
    if platform.startswith("macosx_"):
        return "darwin"
    if match := _LINUX_TAG.fullmatch(platform):
        arch = _TRIPLET_ARCH.get(match.group(1), match.group(1))
        glibc, musl = _LIBC_ABI.get(arch, ("gnu", "musl"))
        libc = {"manylinux": f"-{glibc}", "musllinux": f"-{musl}"}.get(platform[:9], "")
        return f"{arch}-linux{libc}"
    if match := _ANDROID_TAG.fullmatch(platform):
        return _ANDROID_ABI.get(match.group(1), _OTHER)
    if match := _IOS_TAG.fullmatch(platform):
        return match.group(1)
    return _ANY if platform == _ANY else _OTHER


def file_system(path: str) -> str | None:
    """The system a file's ABI suffix names (`x86_64-linux-gnu`, `darwin`, `win_amd64`), as
    written; None for a suffix of no platform that every system of its ABI lists (`.abi3.so`,
    `.cpython-34m.so`), or of no ABI k3diff reads; `NO_PLATFORM` for a CPython 3.5+ one; any
    other platform as written (`x86_64-Linux-gnu`), which is no system's. CPython's SOABI
    carries its platform (`.cpython-313-x86_64-linux-gnu.so`), and only that system's CPython
    finds it."""
    found = SUFFIX.search(path.rpartition("/")[2])
    return None if found is None else _tag_system(found.group(1))


@cache
def _tag_system(tag: str) -> str | None:
    """`file_system` of a suffix's ABI tag (read once: a wheel's extensions share a few)."""
    head = _HEAD.match(tag)
    if head is None:
        return None
    platform = tag[head.end() :]
    if not platform:
        minor = head.group(1)
        return NO_PLATFORM if minor is not None and version_number(minor) >= _PLATFORMED else None
    platform = platform.removeprefix("-")
    if platform.endswith("-darwin"):  # GraalPy's `aarch64-darwin`
        return "darwin"
    return platform
