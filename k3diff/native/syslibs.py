"""What a manylinux tag promises of the other libraries whose versioned symbols auditwheel's
policy judges: libgcc_s (`GCC_`), libatomic (`LIBATOMIC_`) and zlib (`ZLIB_`), each on the
manylinux whitelist, so a wheel links the system's copy and needs the version its tag's oldest
distribution ships (CentOS 7, the `manylinux2014` one, has zlib 1.2.7 and libgcc_s of GCC 4.8:
an ELF needing `ZLIB_1.2.9` or `GCC_7.0.0` is refused there by the loader, "version
`ZLIB_1.2.9' not found", and by `auditwheel show` as too-recent versioned symbols).

The figures are auditwheel's policy table (`manylinux-policy.json`: the highest numeric version
of each family it allows, per policy and architecture), read as `libstdcxx` reads it: a tag
between two policies is held to the older one, a tag older than every policy to the oldest, a
tag newer than every policy to the newest; a family a policy does not list is not judged under
it (as auditwheel judges only the families the policy names).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from k3diff.native.libstdcxx import glibc_of, policy_minor

Version = tuple[int, ...]
_NUMBERED = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9}){0,15}")

_LIBRARIES = {"GCC": "libgcc_s", "LIBATOMIC": "libatomic", "ZLIB": "zlib"}
_LIMITS: dict[str, tuple[tuple[int, Version | None], ...]] = {
    "GCC": ((5, (4, 2, 0)), (12, (4, 3, 0)), (17, (4, 7, 0)), (26, (7, 0, 0)), (39, (14, 0, 0))),
    "LIBATOMIC": ((5, None), (17, (1, 0)), (24, (1, 2))),
    "ZLIB": ((5, None), (12, (1, 2, 2, 4)), (17, (1, 2, 5, 2)), (26, (1, 2, 9)), (37, (1, 2, 12))),
}
"""Family → (first policy's glibc minor, limit from it on) on most architectures; None: the
policies from there list no version of the family."""
_EXCEPTIONS: dict[tuple[str, int, str], Version | None] = {
    ("GCC", 12, "i686"): (4, 5, 0),
    **{("GCC", 17, arch): (4, 8, 0) for arch in ("i686", "x86_64", "ppc64")},
    **{("GCC", 24, arch): (4, 8, 0) for arch in ("i686", "x86_64")},
    ("GCC", 26, "x86_64"): (4, 8, 0),
    ("GCC", 34, "aarch64"): (11, 0),
    **{("GCC", minor, "aarch64"): (11, 0) for minor in (35, 36, 37, 38)},
    **{
        ("GCC", minor, arch): (12, 0, 0)
        for minor in (35, 36, 37, 38)
        for arch in ("i686", "x86_64")
    },
    **{("LIBATOMIC", 17, arch): None for arch in ("x86_64", "s390x")},
    **{("ZLIB", 26, arch): (1, 2, 5, 2) for arch in ("x86_64", "aarch64")},
    ("ZLIB", 36, "i686"): (1, 2, 12),
}
"""(family, policy's glibc minor, architecture) where the policy's limit differs from the rest."""


def _limit(family: str, minor: int, arch: str) -> Version | None:
    if (family, minor, arch) in _EXCEPTIONS:
        return _EXCEPTIONS[(family, minor, arch)]
    return [limit for first, limit in _LIMITS[family] if first <= minor][-1]


def _parse(version: str) -> Version | None:
    """`1.2.9` as (1, 2, 9); None for anything else (an input's name: `²`, or 5,000 digits,
    which `int` refuses, is no version any library defines)."""
    if not _NUMBERED.fullmatch(version):
        return None
    return tuple(int(part) for part in version.split("."))


def _highest(names: Iterable[str]) -> dict[str, Version]:
    """Family → the highest version among `names`, for the families judged here (one that is
    no version number is above every version, as no library is known to define it)."""
    highest: dict[str, Version] = {}
    for name in names:
        family, _, version = name.partition("_")
        if family in _LIBRARIES:
            parsed = _parse(version) or (10**9,)
            highest[family] = max(highest.get(family, ()), parsed)
    return highest


def raised_syslibs(old: Iterable[str], new: Iterable[str]) -> list[str]:
    """The families (`GCC`, `LIBATOMIC`, `ZLIB`) whose highest version `new` raises over
    `old` (each an ELF's version needs): a patch that now needs a newer libgcc_s or zlib."""
    before, after = _highest(old), _highest(new)
    return [family for family in _LIBRARIES if after.get(family, ()) > before.get(family, ())]


def syslib_reasons(names: Iterable[str], platform_tags: Iterable[str]) -> list[str]:
    """Why each `GCC_`, `LIBATOMIC_` or `ZLIB_` version among `names` (an ELF's version needs)
    is past what the manylinux tags promise: for each family the lowest limit over the tags
    (an installer may pick any of them)."""
    parsed = [found for tag in platform_tags if (found := glibc_of(tag))]
    policies = [(policy_minor(major, minor), arch) for major, minor, arch in parsed]
    reasons = []
    for name in sorted(names):
        family, _, version = name.partition("_")
        if family not in _LIBRARIES or not policies:
            continue
        limits = [x for minor, arch in policies if (x := _limit(family, minor, arch)) is not None]
        if not limits:
            continue
        allowed, needed = min(limits), _parse(version)
        if needed is None or needed > allowed:
            shown = ".".join(map(str, allowed))
            reasons.append(
                f"needs {name}, newer than the {_LIBRARIES[family]} ({family}_{shown}) "
                "its manylinux tag promises"
            )
    return reasons
