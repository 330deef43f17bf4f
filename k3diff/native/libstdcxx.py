"""What libstdc++ a manylinux tag promises: the newest `GLIBCXX_` and `CXXABI_` symbol versions a
native may require and still load on every system the tag names.

A `manylinux_2_X` tag names a glibc; the libstdc++ it promises is the one of the distribution the
tag's policy was defined on (CentOS 7 for `manylinux2014`, AlmaLinux 8 for `manylinux_2_28`, …).
The figures are auditwheel's policy table (`manylinux-policy.json`: the highest numeric version of
each family it allows, per policy and architecture), the same limits `auditwheel repair` enforces.
A tag between two policies is held to the older one (no distribution promises more); a tag older
than every policy to the oldest; a tag newer than every policy to the newest this table knows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

Version = tuple[int, ...]
Promise = tuple[Version, Version]
"""(newest GLIBCXX_, newest CXXABI_) a tag allows."""

_POLICIES: dict[int, Promise] = {
    5: ((3, 4, 8), (1, 3, 1)),
    12: ((3, 4, 13), (1, 3, 3)),
    17: ((3, 4, 19), (1, 3, 7)),
    24: ((3, 4, 22), (1, 3, 10)),
    26: ((3, 4, 24), (1, 3, 11)),
    27: ((3, 4, 24), (1, 3, 11)),
    28: ((3, 4, 24), (1, 3, 11)),
    31: ((3, 4, 28), (1, 3, 12)),
    34: ((3, 4, 29), (1, 3, 13)),
    35: ((3, 4, 30), (1, 3, 13)),
    36: ((3, 4, 30), (1, 3, 13)),
    37: ((3, 4, 30), (1, 3, 13)),
    38: ((3, 4, 30), (1, 3, 13)),
    39: ((3, 4, 33), (1, 3, 15)),
    40: ((3, 4, 33), (1, 3, 15)),
    41: ((3, 4, 33), (1, 3, 15)),
}
"""glibc 2.X policy → its limits on most architectures."""
_EXCEPTIONS: dict[tuple[int, str], Promise] = {
    (26, "x86_64"): ((3, 4, 22), (1, 3, 10)),
    (39, "loongarch64"): ((3, 4, 32), (1, 3, 15)),
}
"""(glibc minor, architecture) where the policy's limits differ from the rest."""
_LEGACY = {"manylinux1": 5, "manylinux2010": 12, "manylinux2014": 17}
_TAG = re.compile(r"^manylinux_(\d+)_(\d+)_(.+)$")


def glibc_of(tag: str) -> tuple[int, int, str] | None:
    """(glibc major, minor, architecture) of a manylinux platform tag; None for any other."""
    for legacy, minor in _LEGACY.items():
        if tag.startswith(legacy + "_"):
            return 2, minor, tag[len(legacy) + 1 :]
    match = _TAG.match(tag)
    return (int(match[1]), int(match[2]), match[3]) if match else None


def policy_minor(major: int, minor: int) -> int:
    """The glibc minor of the newest policy a glibc `major.minor` tag can rely on (also for
    `native/syslibs.py`: the policies are auditwheel's, one per glibc)."""
    known = sorted(_POLICIES)
    older = [m for m in known if m <= minor]
    return known[-1] if major > 2 else (older[-1] if older else known[0])


def _policy(major: int, minor: int, arch: str) -> Promise:
    """The limits of the newest policy a glibc 2.X tag can rely on."""
    chosen = policy_minor(major, minor)
    return _EXCEPTIONS.get((chosen, arch), _POLICIES[chosen])


def promised_libstdcxx(platform_tags: Iterable[str]) -> Promise | None:
    """The libstdc++ a wheel's platform tags promise at most: for each family the lowest over
    its manylinux tags (an installer may pick any of them); None when no manylinux tag."""
    promises = [_policy(*parsed) for tag in platform_tags if (parsed := glibc_of(tag))]
    if not promises:
        return None
    return min(p[0] for p in promises), min(p[1] for p in promises)
