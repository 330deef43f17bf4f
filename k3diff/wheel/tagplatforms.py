"""The platforms a platform tag names, and the platform tags packaging lists on each (W630's
`k3diff.wheel.systems`).

A platform is a family, an architecture and the family's version: glibc 2.17 on x86_64 (which
takes `manylinux_2_Y` for Y up to 17, the legacy `manylinux1`/`2010`/`2014` names among them,
and `linux_x86_64`, on the architectures packaging lists manylinux tags for), musl 1.2 on
aarch64, macOS 14 on arm64 (what `mac_platforms` lists), iOS 13.0 on `arm64_iphoneos` and
Android API level 24 on `arm64_v8a` (`ios_platforms`, `android_platforms`: every earlier
release's tags too), a platform tag of its own (`win_amd64`), or one no tag names (`any`). A
base's platform tag names each version of its family from its own up to the newest either side
names (`tops`), which stands for every later one; a `linux_ARCH` tag names each glibc, each musl
and a Linux of neither.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from packaging.tags import android_platforms, ios_platforms, mac_platforms

from k3diff.lazyre import lazy
from k3diff.wheel.targets import version_number

NEWEST = 99
"""The largest version number a system is made for (Python 3.99, glibc 2.99, macOS 99): a tag
naming a larger one (`manylinux_2_999999999`) installs on no system checked, and the work
stays bounded whatever a hostile tag says."""

_GLIBC = lazy(r"manylinux_(\d+)_(\d+)_(.+)")
_LEGACY_GLIBC = {"manylinux1": 5, "manylinux2010": 12, "manylinux2014": 17}
_MUSL = lazy(r"musllinux_(\d+)_(\d+)_(.+)")
_MACOS = lazy(r"macosx_(\d+)_(\d+)_(.+)")
_IOS = lazy(r"ios_(\d+)_(\d+)_(.+)")
_ANDROID = lazy(r"android_(\d+)_(.+)")
_MAC_CPUS = (
    ("arm64", (11, 0), (99, 0)), ("x86_64", (10, 4), (99, 0)), ("i386", (10, 4), (10, 14)),
    ("ppc64", (10, 4), (10, 5)), ("ppc", (10, 0), (10, 6)),
)  # fmt: skip
"""The CPUs macOS ran on, and the releases that ran their programs (arm64 from 11, i386 to
10.14, PowerPC to 10.6 under Rosetta): `mac_platforms` lists tags for any pair it is given."""
_MANYLINUX_ARCHS = frozenset(
    {"x86_64", "i686", "aarch64", "armv7l", "ppc64", "ppc64le", "s390x", "loongarch64", "riscv64"}
)
"""The architectures packaging lists manylinux tags on (`_manylinux._have_compatible_abi`);
on another (`sparc64`, `mips64`) a glibc takes `linux_ARCH` alone. 32-bit Arm on a 64-bit
kernel (`armv8l`) takes the `armv7l` tags too, as `_linux_platforms` lists them."""


class Platform(NamedTuple):
    """One platform a system runs: a family, its architecture and the family's version."""

    family: str
    """`glibc`, `musl`, `macos`, `exact` (the platform tag alone) or `any` (no tag names it)."""
    arch: str
    """The architecture (`x86_64`, `arm64`), or for `exact` the platform tag itself."""
    version: tuple[int, ...] = ()
    """glibc (2, 17), musl (1, 2), macOS (10, 9) or (14, 0); () for the others."""


def number(digits: str) -> int:
    """A version number as a tag writes it, past `NEWEST` as `NEWEST + 1` (never checked)."""
    return min(version_number(digits), NEWEST + 1)


def family_tops(platforms: Iterable[str]) -> dict[tuple[str, str], tuple[int, ...]]:
    """The newest version of each platform family and architecture the tags name."""
    tops: dict[tuple[str, str], tuple[int, ...]] = {}
    linux = set()
    for platform in platforms:
        if platform.startswith("linux_"):  # every glibc and musl: the oldest at least
            linux.add(platform.removeprefix("linux_"))
        found = versioned(platform)
        if found is not None:
            family, arch, version = found
            key = (family, "" if family == "macos" else arch)
            tops[key] = min(max(tops.get(key, version), version), (NEWEST, NEWEST))
    if ("macos", "") in tops:  # arm64 runs macOS 11 on: a Mac of each CPU is checked
        tops[("macos", "")] = max(tops[("macos", "")], (11, 0))
    for arch in linux:
        oldest = (2, _oldest_glibc(arch))
        tops[("glibc", arch)] = max(tops.get(("glibc", arch), oldest), oldest)
        tops.setdefault(("musl", arch), (1, 0))
    return tops


def versioned(platform: str) -> tuple[str, str, tuple[int, ...]] | None:
    """(family, architecture, version) of a glibc, musl or macOS platform tag; None otherwise."""
    head, _, arch = platform.partition("_")
    if head in _LEGACY_GLIBC:
        return "glibc", arch, (2, _LEGACY_GLIBC[head])
    for family, pattern in (("glibc", _GLIBC), ("musl", _MUSL), ("macos", _MACOS), ("ios", _IOS)):
        match = pattern.fullmatch(platform)
        if match is not None:
            major, minor = number(match.group(1)), number(match.group(2))
            version = (major, 0) if family == "macos" and major >= 11 else (major, minor)
            return family, match.group(3), version
    match = _ANDROID.fullmatch(platform)
    if match is not None:
        return "android", match.group(2), (number(match.group(1)),)
    return None


def platforms(platform: str, tops: dict[tuple[str, str], tuple[int, ...]]) -> list[Platform]:
    """The platforms a base platform tag names: each version of its family from its own up to
    the newest either side names (`tops`); macOS on each CPU that may take it."""
    if platform == "any":
        return [Platform("any", "")]
    found = versioned(platform)
    if found is None and platform.startswith("linux_"):
        return _any_linux(platform.removeprefix("linux_"), tops)
    if found is None:
        return [Platform("exact", platform)]
    family, arch, version = found
    if max(version) > NEWEST:
        return []
    top = tops.get((family, arch), version)
    if family == "android":  # an API level takes every lower one's tags
        return [Platform(family, arch, (level,)) for level in range(version[0], top[0] + 1)]
    if family == "ios":  # iOS X.Y takes X.0 to X.Y and every earlier X's .0 to .9
        return [Platform(family, arch, v) for v in _ios_versions(version, top)]
    if family != "macos":
        return [Platform(family, arch, (version[0], m)) for m in range(version[1], top[1] + 1)]
    versions = _mac_versions(version, tops.get(("macos", ""), version))
    return [
        Platform("macos", cpu, v)
        for v in versions
        for cpu, low, high in _MAC_CPUS
        if low <= v <= high
    ]


def _any_linux(arch: str, tops: dict[tuple[str, str], tuple[int, ...]]) -> list[Platform]:
    """Every Linux of the architecture `linux_ARCH` installs on: each glibc from the oldest
    packaging lists a manylinux tag for, each musl, up to the newest either side names, and a
    Linux of neither (which takes `linux_ARCH` alone)."""
    oldest, glibc, musl = _oldest_glibc(arch), tops[("glibc", arch)], tops[("musl", arch)]
    return [
        *(Platform("glibc", arch, (2, minor)) for minor in range(oldest, glibc[1] + 1)),
        *(Platform("musl", arch, (1, minor)) for minor in range(musl[1] + 1)),
        Platform("exact", f"linux_{arch}"),
    ]


def _oldest_glibc(arch: str) -> int:
    """The oldest glibc minor packaging lists manylinux tags for (2.5 on x86, else 2.17)."""
    return 5 if arch in ("x86_64", "i686") else 17


IOS_UNRELEASED = range(19, 26)
"""iOS majors Apple never released: after iOS 18 came iOS 26 (named for the year, as macOS 26
after 15). `ios_platforms` lists `ios_19_0` to `ios_25_9` tags on iOS 26; no device runs them."""


def _ios_versions(start: tuple[int, ...], top: tuple[int, ...]) -> list[tuple[int, ...]]:
    """iOS releases from `start` to `top`: X.0 to X.9 in each X, as `ios_platforms` lists,
    but for the majors never released (left67: an 18 → 26 bump said `iOS 18.0-25.9`)."""
    every = {(major, minor) for major in range(start[0], top[0] + 1) for minor in range(10)}
    named = {start, top, *(v for v in every if start <= v <= top)}
    return sorted(v for v in named if v[0] not in IOS_UNRELEASED)


def next_ios_release(version: tuple[int, ...]) -> tuple[int, ...]:
    """The iOS release after `version`: 17.9 → 18.0, 18.9 → 26.0 (`_ios_versions`)."""
    if version[1] < 9:
        return (version[0], version[1] + 1)
    return (26, 0) if version[0] + 1 in IOS_UNRELEASED else (version[0] + 1, 0)


def _mac_versions(start: tuple[int, ...], top: tuple[int, ...]) -> list[tuple[int, ...]]:
    """macOS releases from `start` to `top` (`mac_releases`)."""
    return [v for v in mac_releases(top) if start <= v]


def mac_releases(top: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The macOS releases up to `top`: 10.0 to 10.15, then 11 to 15, then 26 on (Apple named
    the 2025 release for the year). packaging's `mac_platforms` lists a tag for every major
    version between (`macosx_20_0` on macOS 26), which no Mac runs: none is a system."""
    tenths = [(10, minor) for minor in range(16)]
    majors = [(major, 0) for major in (*range(11, 16), *range(26, NEWEST + 1))]
    return [v for v in (*tenths, *majors) if v <= top]


def next_mac_release(version: tuple[int, ...]) -> tuple[int, ...]:
    """The macOS release after `version`: 10.15 → 11, 15 → 26 (`mac_releases`)."""
    if version[0] == 10:
        return (10, version[1] + 1) if version[1] < 15 else (11, 0)
    return (version[0] + 1, 0) if version[0] != 15 else (26, 0)


def platform_tags(platform: Platform) -> frozenset[str]:
    """The platform tags packaging lists on this platform."""
    family, arch, version = platform
    if family == "exact":  # a Linux of neither glibc nor musl on 32-bit Arm takes armv7l's too
        return frozenset({arch, "linux_armv7l"} if arch == "linux_armv8l" else {arch})
    if family == "macos":
        return frozenset(mac_platforms((version[0], version[1]), arch))
    if family == "ios":
        return frozenset(ios_platforms((version[0], version[1]), arch))
    if family == "android":
        return frozenset(android_platforms(version[0], arch))
    archs = (arch, "armv7l") if arch == "armv8l" else (arch,)  # 32-bit Arm on a 64-bit kernel
    names = {f"linux_{a}" for a in archs}
    if family == "glibc" and not _MANYLINUX_ARCHS.isdisjoint(archs):
        oldest = _oldest_glibc(arch)
        for a in archs:
            names |= {f"manylinux_{version[0]}_{m}_{a}" for m in range(version[1], oldest - 1, -1)}
            names |= {
                f"{legacy}_{a}" for legacy, m in _LEGACY_GLIBC.items() if oldest <= m <= version[1]
            }
    if family == "musl":
        names |= {
            f"musllinux_{version[0]}_{m}_{a}" for a in archs for m in range(version[1], -1, -1)
        }
    return frozenset(names) if family in ("glibc", "musl") else frozenset()
