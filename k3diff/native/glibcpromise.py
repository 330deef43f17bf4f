"""What glibc a wheel's platform tags promise, and the glibc an ELF's `GLIBC_` needs call for.

Most `GLIBC_` version names carry the glibc release that first defined them (`GLIBC_2.34`), and
the loader of an older glibc refuses them. A few carry none: `GLIBC_ABI_DT_RELR`, which the link
editor adds to an ELF linked with packed relative relocations (`ld -z pack-relative-relocs`,
DT_RELR) and which glibc defines from 2.36 on (an older loader: "version `GLIBC_ABI_DT_RELR' not
found"), and `GLIBC_PRIVATE`, glibc's internal interface, whose symbols change between any two
releases. auditwheel's policy table (`manylinux-policy.json`) allows `GLIBC_ABI_DT_RELR` from
`manylinux_2_36` on and `GLIBC_PRIVATE` (or any other name) under no tag: the same here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_LEGACY_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
_MANYLINUX = re.compile(r"^manylinux_(\d+)_(\d+)_")

NAMED_GLIBC = {"GLIBC_ABI_DT_RELR": (2, 36)}
"""`GLIBC_` names without a version number, and the first glibc release that defines each."""


LOADER_PRIVATE = "GLIBC_PRIVATE"
"""The version auditwheel does not judge when the dynamic loader is asked for it (it skips the
loader's entries: old sanitizer runtimes call `_dl_get_tls_static_info@GLIBC_PRIVATE`); libc's
`GLIBC_PRIVATE` stays promised by no tag, and the loader's numbered versions are judged as any
(`__rseq_offset@GLIBC_2.35` needs glibc 2.35). The readers skip it (`is_loader`)."""


GLIBC_LIBRARIES = frozenset(
    {
        *("libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1"),
        *("libutil.so.1", "libresolv.so.2", "libanl.so.1", "libnsl.so.1", "libmvec.so.1"),
    }
)
"""glibc's own libraries (with its loader: `is_loader`), which no musl system has."""


def is_loader(file: str) -> bool:
    """`file` (a version need's library) names glibc's dynamic loader (`ld-linux-x86-64.so.2`,
    `ld-linux-aarch64.so.1`, `ld64.so.2` of ppc64le, `ld64.so.1` of s390x)."""
    return file.startswith(("ld-linux", "ld64.so."))


def promised_glibc(platform_tags: Iterable[str]) -> tuple[int, ...] | None:
    """The glibc a wheel's platform tags promise to need at most: the lowest of its manylinux
    tags; () for a musllinux tag (no glibc at all); None when no tag promises anything."""
    promises: list[tuple[int, ...]] = []
    for tag in platform_tags:
        if tag.startswith("musllinux_"):
            promises.append(())
        legacy = next((v for k, v in _LEGACY_MANYLINUX.items() if tag.startswith(k + "_")), None)
        if legacy is not None:
            promises.append(legacy)
        match = _MANYLINUX.match(tag)
        if match:
            promises.append((int(match[1]), int(match[2])))
    return min(promises) if promises else None


def named_glibc_reasons(names: Iterable[str], promise: tuple[int, ...]) -> list[str]:
    """Why each numberless `GLIBC_` name among the versions an ELF needs (`names`; the others are
    not glibc's) breaks the glibc `promise` (a manylinux tag's (2, X); () for musllinux, which
    promises no glibc at all)."""
    reasons = []
    for name in (name for name in names if name.startswith("GLIBC_")):
        first = NAMED_GLIBC.get(name)
        if promise == ():
            reasons.append(f"needs {name} but the wheel is tagged musllinux")
        elif first is None:
            reasons.append(
                f"needs {name}, a glibc version no manylinux tag promises (glibc's own "
                "interface, or one k3diff does not know)"
            )
        elif first > promise:
            claimed, release = ".".join(map(str, promise)), ".".join(map(str, first))
            reasons.append(
                f"needs {name} (glibc {release} and later), newer than the glibc {claimed} "
                "its tag promises"
            )
    return reasons


def glibc_floor(numbered: tuple[int, ...], names: Iterable[str]) -> tuple[int, ...]:
    """The oldest glibc that defines every version an ELF needs: its highest numbered one, or
    a named one's first release where later; a name no release is known to define is above
    every release."""
    floor = numbered
    for name in (name for name in names if name.startswith("GLIBC_")):
        floor = max(floor, NAMED_GLIBC.get(name, (10**9,)))
    return floor
