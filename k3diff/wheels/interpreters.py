"""The interpreters one project's wheels tell apart, each with the tags pip accepts there, best
first, as packaging lists them: `wheels.competing` asks which wheel pip installs on each.

pip ranks the tags an interpreter accepts Python-and-ABI group first, platform second (every
platform of one group before the next group, the platform-`any` tags last: packaging's
`cpython_tags` then `compatible_tags`), so an interpreter here is a `Python` (its groups, read
from packaging with one stand-in platform) and a `Machine` (its platform values, best first).
Which of a project's wheels install, and in which order, changes only at a version some filename
names: a Python of each named minor and of the one after it, a CPython of each ABI (GIL,
free-threaded, a named debug one), and a machine of each named architecture at each named glibc,
musl, macOS, Android or iOS version, and one that takes no platform wheel, stand for every other
(stop 76: reasoning wheel against wheel missed a third wheel; each fix left another shape).
Versions past `MAX_VERSION` stand for no real system (a machine takes such a value alone).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.tags import (
    Tag,
    android_platforms,
    compatible_tags,
    cpython_tags,
    generic_tags,
    ios_platforms,
    mac_platforms,
)
from packaging.version import InvalidVersion, Version

from k3diff.wheel.tagsharing import Parts

MAX_VERSION = 99
"""The highest minor (Python, glibc, musl, macOS 10.x), major (macOS, iOS) or Android API level
read as a version; a larger one names no system that exists (and packaging lists every older
version below it)."""

_STAND_IN = "k3diff-platform"
"""A platform value no filename holds (its tag set is split at hyphens)."""
_VERSION = re.compile(r"^([a-z]+?)(\d)(\d*)")
_GENERIC_ABIS = frozenset({"none", "abi3", "abi3t"})
_CP_ABI = re.compile(r"^cp(\d+)[a-z]*$")


@dataclass(frozen=True)
class Python:
    """A Python interpreter, as packaging's tag functions take it."""

    name: str
    """What it is, for a message (`CPython 3.12`, `free-threaded CPython 3.13`)."""
    version: tuple[int, ...]
    """(major, minor), or (major,) for an implementation named by its major only."""
    interpreter: str | None
    """`cp312`, `pp310`; None for a Python of no named implementation (its `py` tags only)."""
    abis: tuple[str, ...]
    """The ABI values it takes besides `none` and the stable ABI packaging adds."""
    micro: int = 0
    """Its micro release, as a wheel's Requires-Python reads it (`admits`)."""


@dataclass(frozen=True)
class TagRanks:
    """A Python's tag groups, best first."""

    groups: Mapping[str, Mapping[str, int]]
    """Python value -> ABI value -> rank of its platform-specific tags' group, best 0."""
    pure: Mapping[str, int]
    """Python value of its `-none-any` tags -> rank, best 0 (all below any group)."""


@dataclass(frozen=True)
class Machine:
    """A system's platform values pip accepts, best first."""

    name: str
    """What it is, for a message (`glibc 2.28 x86_64 Linux`)."""
    platforms: Mapping[str, int]
    """Platform value -> rank, best 0; only values the project's filenames name."""


@cache
def tag_ranks(python: Python) -> TagRanks:
    """The Python's tags as packaging lists them (`cpython_tags` or `generic_tags`, then
    `compatible_tags`), for one stand-in platform: each group's rank."""
    version, interpreter, abis = python.version, python.interpreter, list(python.abis)
    tags: list[Tag] = []
    if interpreter is not None and interpreter.startswith("cp"):
        tags += cpython_tags(version, abis, [_STAND_IN])
    elif interpreter is not None:
        tags += generic_tags(interpreter, abis, [_STAND_IN])
    tags += compatible_tags(version, interpreter, [_STAND_IN])
    groups: dict[str, dict[str, int]] = {}
    pure: dict[str, int] = {}
    for rank, tag in enumerate(tags):
        if tag.platform == _STAND_IN:
            groups.setdefault(tag.interpreter, {}).setdefault(tag.abi, rank)
        elif tag.platform == "any":
            pure.setdefault(tag.interpreter, rank)
    return TagRanks(groups, pure)


def _versions(values: Iterable[str]) -> Iterator[tuple[str, int, int | None]]:
    for value in values:
        if (found := _VERSION.match(value)) is not None:
            name, major, minor = found.groups()
            if not minor:
                yield name, int(major), None
            elif int(minor) <= MAX_VERSION:
                yield name, int(major), int(minor)


def _debug(abi: str) -> tuple[str, ...]:
    """The ABI values a CPython of `abi` takes: a debug build (`cp312d`, 3.8 and later) the
    release build's too, as packaging's `_cpython_abis` lists them."""
    flags = abi[2:].lstrip("0123456789")
    digits = abi[2 : len(abi) - len(flags)]
    if "d" not in flags or len(digits) < 2 or (int(digits[0]), int(digits[1:])) < (3, 8):
        return (abi,)
    return abi, abi.replace("d", "")


def pythons(parts: Iterable[Parts], requires: Iterable[str] = ()) -> Iterator[Python]:
    """The Pythons the tag sets and Requires-Python values tell apart: CPython (GIL,
    free-threaded, each named ABI of its version), a Python of no named implementation, at each
    named minor, the minor after it and minor 0 of each named major, and at each release where
    a Requires-Python may change its answer (`release_points`), and each other named
    implementation at its named version (and those releases of it), with each ABI value named
    for no CPython; made one at a time, as asked for (review76d: 60 empty files a side naming
    1,560 implementations and 1,560 ABIs made 2.4 million, 2.2 GB, before any was weighed)."""
    python_values = {value for part in parts for value in part[0]}
    abi_values = {value for part in parts for value in part[1]}
    named = list(_versions(python_values | abi_values))
    minors = {(major, minor) for _, major, minor in named if minor is not None}
    points = release_points(requires, {major for _, major, _ in named})
    versions = sorted(
        {(*each, 0) for each in minors}
        | {(major, minor + 1, 0) for major, minor in minors}
        | {(major, 0, 0) for _, major, _ in named}
        | points
    )
    cp_abis: dict[str, set[str]] = {}
    for value in abi_values:
        if (cp := _CP_ABI.match(value)) is not None:
            cp_abis.setdefault(cp.group(1), set()).add(value)
    for major, minor, micro in versions:
        nodot, version = f"{major}{minor}", (major, minor)
        said = f"{major}.{minor}" + (f".{micro}" if micro else "")
        abis = {f"cp{nodot}m" if version < (3, 8) else f"cp{nodot}": f"CPython {said}"}
        if version >= (3, 13):
            abis[f"cp{nodot}t"] = f"free-threaded CPython {said}"
        for abi in sorted(cp_abis.get(nodot, ())):
            abis.setdefault(abi, f"CPython {said} ({abi})")
        for abi, name in abis.items():
            yield Python(name, version, f"cp{nodot}", _debug(abi), micro)
        yield Python(f"Python {said} of another implementation", version, None, (), micro)
    own_abis = sorted(abi_values - _GENERIC_ABIS - set().union(*cp_abis.values()))
    others = {item for item in _versions(python_values) if item[0] not in ("cp", "py")}
    for implementation, its_major, its_minor in sorted(others, key=str):
        interpreter = f"{implementation}{its_major}{'' if its_minor is None else its_minor}"
        its_version = (its_major,) if its_minor is None else (its_major, its_minor)
        micros = sorted({0, *(p[2] for p in points if p[:2] == its_version)})
        for own in ((), *((abi,) for abi in own_abis)):
            for micro in micros:
                release = f" (Python {its_major}.{its_minor}.{micro})" if micro else ""
                name = " ".join([interpreter + release, *own])
                yield Python(name, its_version, interpreter, own, micro)


def release_points(requires: Iterable[str], majors: set[int]) -> set[tuple[int, int, int]]:
    """The Python releases (of the majors named) at which a Requires-Python may change its
    answer: each clause's release, the micro either side of it, and the next minor and major
    (where a wildcard or `~=` ends); a specifier packaging cannot read is none (pip warns and
    installs the wheel)."""
    points: set[tuple[int, int, int]] = set()
    for text in set(requires):
        if (specifier := _specifier(text)) is None:
            continue
        for clause in specifier:
            try:
                release = Version(clause.version.removesuffix(".*")).release
            except InvalidVersion:  # `===` takes any string
                continue
            major, minor, micro = (*release, 0, 0)[:3]
            near = ((minor, micro), (minor, micro + 1), (minor, max(0, micro - 1)), (minor + 1, 0))
            points.update((major, *each) for each in near if each[0] <= MAX_VERSION)
            points.add((major + 1, 0, 0))
    return {point for point in points if point[0] in majors}


@lru_cache(maxsize=256)
def _specifier(text: str) -> SpecifierSet | None:
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        return None


def admits(requires: str | None, python: Python) -> bool:
    """Whether a wheel's Requires-Python admits the Python (pip's `check_requires_python`:
    its X.Y.Z in the specifier; pip goes on to the next version otherwise). A
    Python known by its major alone is admitted (its minor is not named)."""
    if requires is None or len(python.version) < 2:
        return True
    return _contains(requires, (*python.version[:2], python.micro))


@lru_cache(maxsize=4096)
def _contains(requires: str, release: tuple[int, ...]) -> bool:
    specifier = _specifier(requires)
    return specifier is None or Version(".".join(map(str, release))) in specifier


_GLIBC = re.compile(r"^manylinux_2_(\d+)_(.+)$")
_LEGACY = {"manylinux1": 5, "manylinux2010": 12, "manylinux2014": 17}
_LEGACY_GLIBC = re.compile(r"^(manylinux1|manylinux2010|manylinux2014)_(.+)$")
_MUSL = re.compile(r"^musllinux_1_(\d+)_(.+)$")
_LINUX = re.compile(r"^linux_(.+)$")
_MACOS = re.compile(r"^macosx_(\d+)_(\d+)_(.+)$")
_ANDROID = re.compile(r"^android_(\d+)_(.+)$")
_IOS = re.compile(r"^ios_(\d+)_(\d+)_(.+)$")
_MAC_FAT = {
    "universal2": ("arm64", "x86_64"),
    "universal": ("x86_64", "i386", "ppc64", "ppc"),
    "intel": ("x86_64", "i386"),
    "fat3": ("x86_64", "i386", "ppc"),
    "fat64": ("x86_64", "ppc64"),
    "fat32": ("i386", "ppc"),
    "fat": ("i386", "ppc"),
}


@dataclass
class _Systems:
    """The system versions named per architecture (a version of None: below every named one)."""

    glibc: dict[str, set[int | None]]
    musl: dict[str, set[int | None]]
    macos: dict[str, set[tuple[int, int]]]
    android: dict[str, set[int]]
    ios: dict[str, set[tuple[int, int]]]


def _named(value: str, systems: _Systems) -> None:
    """Record what system a platform value names."""
    if (found := _GLIBC.match(value) or _LEGACY_GLIBC.match(value)) is not None:
        minor, arch = found.groups()
        _linux(systems, arch).glibc[arch].add(_LEGACY.get(minor) or int(minor))
    elif (found := _MUSL.match(value)) is not None:
        minor, arch = found.groups()
        _linux(systems, arch).musl[arch].add(int(minor))
    elif (found := _LINUX.match(value)) is not None:
        _linux(systems, found.group(1))
    elif (found := _MACOS.match(value)) is not None:
        major, minor, form = found.groups()
        for arch in _MAC_FAT.get(form, (form,)):
            systems.macos.setdefault(arch, set()).add((int(major), int(minor)))
    elif (found := _ANDROID.match(value)) is not None:
        systems.android.setdefault(found.group(2), set()).add(int(found.group(1)))
    elif (found := _IOS.match(value)) is not None:
        major, minor, multiarch = found.groups()
        systems.ios.setdefault(multiarch, set()).add((int(major), int(minor)))


def _linux(systems: _Systems, arch: str) -> _Systems:
    """A Linux of the architecture, glibc and musl, with none of their versions."""
    systems.glibc.setdefault(arch, {None})
    systems.musl.setdefault(arch, {None})
    return systems


_ARCHS = {"armv8l": ("armv8l", "armv7l")}
"""packaging's `_linux_platforms`: a 32-bit Python on 64-bit Arm takes `armv7l` wheels after
its own `armv8l` ones (review76d: an `armv8l` wheel added beside compared `armv7l` ones was
taken as one-sided, exit 0)."""


def _glibc_platforms(arch: str, minor: int | None) -> Iterator[str]:
    """packaging's `_linux_platforms` on a glibc `2.minor` (it reads the running system's):
    `linux_ARCH`, then each `manylinux_2_Y` from the newest, its legacy alias after it."""
    archs = _ARCHS.get(arch, (arch,))
    yield from (f"linux_{each}" for each in archs)
    oldest = 5 if arch in ("x86_64", "i686") else 17
    aliases = {version: name for name, version in _LEGACY.items()}
    for each in archs:
        for glibc in range(minor if minor is not None else -1, oldest - 1, -1):
            yield f"manylinux_2_{glibc}_{each}"
            if glibc in aliases:
                yield f"{aliases[glibc]}_{each}"


def _musl_platforms(arch: str, minor: int | None) -> Iterator[str]:
    """packaging's `_linux_platforms` on a musl `1.minor`."""
    archs = _ARCHS.get(arch, (arch,))
    yield from (f"linux_{each}" for each in archs)
    for each in archs:
        for musl in range(minor if minor is not None else -1, -1, -1):
            yield f"musllinux_1_{musl}_{each}"


def _linux_versions(named: dict[str, set[int | None]], arch: str) -> list[int | None]:
    """The libc versions named for the architecture and those it takes wheels of, oldest
    first (None: below every named one)."""
    versions = set().union(*(named.get(each, set()) for each in _ARCHS.get(arch, (arch,))))
    return sorted(versions, key=lambda v: -1 if v is None else v)


def _readable(version: tuple[int, ...]) -> bool:
    return all(part <= MAX_VERSION for part in version)


def _machine_lists(systems: _Systems) -> Iterator[tuple[str, Iterable[str]]]:
    for arch in sorted(systems.glibc):
        for glibc in _linux_versions(systems.glibc, arch):
            if glibc is None or glibc <= MAX_VERSION:
                name = f"{arch} Linux, glibc " + ("older" if glibc is None else f"2.{glibc}")
                yield name, _glibc_platforms(arch, glibc)
    for arch in sorted(systems.musl):
        for musl in _linux_versions(systems.musl, arch):
            if musl is None or musl <= MAX_VERSION:
                name = f"{arch} Linux, musl " + ("older" if musl is None else f"1.{musl}")
                yield name, _musl_platforms(arch, musl)
    for arch, versions in sorted(systems.macos.items()):
        for version in sorted(versions):
            version = max(version, (11, 0)) if arch == "arm64" else version
            if _readable(version):
                yield f"macOS {version[0]}.{version[1]} {arch}", mac_platforms(version, arch)
    for abi, levels in sorted(systems.android.items()):
        for level in sorted(levels):
            if level <= MAX_VERSION:
                yield f"Android API {level} {abi}", android_platforms(level, abi)
    for multiarch, versions in sorted(systems.ios.items()):
        for version in sorted(versions):
            if _readable(version):
                yield (
                    f"iOS {version[0]}.{version[1]} {multiarch}",
                    ios_platforms(version, multiarch),
                )


def machines(parts: Iterable[Parts]) -> Iterator[Machine]:
    """The machines the tag sets' platform values tell apart: each named architecture at each
    named system version and below all of them, a machine for each value read as no such
    system (`win_amd64`, a version past `MAX_VERSION`: it takes that value alone), and one that
    takes no platform value named (`any` only); made one at a time, as asked for (review76d:
    440 empty files naming 8,800 iOS versions made 8,801 machines ranking 4.3 million values,
    466 MB and 6 s, before any was weighed)."""
    named = {value for part in parts for value in part[2]} - {"any"}
    systems = _Systems({}, {}, {}, {}, {})
    for value in sorted(named):
        _named(value, systems)
    yield Machine("a system none of the project's platform wheels installs on", {})
    listed: set[str] = set()
    for name, platforms in _machine_lists(systems):
        ranks: dict[str, int] = {}
        for platform in platforms:
            if platform in named:
                ranks.setdefault(platform, len(ranks))
        listed.update(ranks)
        yield Machine(name, ranks)
    yield from _pyodides(named)
    yield from (Machine(value, {value: 0}) for value in sorted(named - listed))


_PYEMSCRIPTEN = re.compile(r"^pyemscripten_\d+_\d+_wasm32$")
_EMSCRIPTEN = re.compile(r"^emscripten_\d+_\d+_\d+_wasm32$")


def _pyodides(named: set[str]) -> Iterator[Machine]:
    """Pyodide: packaging's `_emscripten_platforms` lists its `pyemscripten_ABI_wasm32` value,
    then its Emscripten one (`sysconfig.get_platform()`). Which Emscripten each Pyodide ABI is
    built with is Pyodide's own table, not read here, so each pair of values named is weighed
    as one machine, beside each value alone (release77: two machines, so a pyemscripten wheel
    added beside a compared emscripten one was one-sided, exit 0, where such a Pyodide
    installs the added one first)."""
    abis = sorted(value for value in named if _PYEMSCRIPTEN.match(value))
    systems = sorted(value for value in named if _EMSCRIPTEN.match(value))
    for abi in abis:
        for system in systems:
            yield Machine(f"Pyodide of {abi} on {system}", {abi: 0, system: 1})
