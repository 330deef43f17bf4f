"""Unpaired wheels pip may install where a compared wheel, or the other release's wheel,
installs: no one-sided wheel for `--allow-unpaired` to accept.

`--allow-unpaired` accepts a wheel on one side only: a platform or a Python a release added or
dropped. A wheel of a paired project that shares no tag with the other side, yet pip on one
interpreter chooses it over a paired wheel of its side (`solo-1.1-cp312-none-any` beside
`solo-1.1-py3-none-any`; `manylinux_2_28_x86_64` beside `manylinux_2_17_x86_64`), is not that:
its contents were never compared (hunt75b: such a patch wheel passed, exit 0). Nor is one
installed where an unpaired wheel of the other release was (`py3-none-any` dropped,
`cp312-none-any` added). The interpreters are judged from the tag set's parts, as `setpairing`
reads them: a machine both platforms install on (`any`, a platform family, `linux_ARCH` on a
glibc or musl Linux, each architecture of a fat macOS wheel), a Python of one implementation
and version (a major-only `py3` matches any of its major; a `py38` value, as an `abi3` wheel,
its version and later: packaging's compatible tags; `abi3t` too), an ABI both may hold (`none`
fits any, `abi3` any but a free-threaded `cp313t`). A platform-`any` wheel of the same version is never chosen over a platform one
(packaging's tag order): a pure fallback added is one-sided; pip weighs a wheel's version
before its tags, so one of another version is not (review75h: `1.2-py3-none-any` beside the
compared `1.1` platform wheel passed).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache

from k3diff.errors import InputError, UsageError
from k3diff.wheel.filename import same_version
from k3diff.wheel.tagsharing import Parts, tag_parts
from k3diff.wheels.setpairing import Pairing, SetWheel, platform_family

_PYTHON = re.compile(r"^([a-z]+?)(\d)(\d*)$")
_FREE_THREADED = re.compile(r"^cp\d+td?$")
_LATER_ABIS = frozenset({"abi3", "abi3t"})


@cache
def _python_value(value: str) -> tuple[str, int, int | None]:
    """(implementation, major, minor or None) of a Python value; an unread value stands as an
    implementation of its own."""
    found = _PYTHON.match(value)
    if found is None:
        return value, 0, None
    name, major, minor = found.groups()
    return name, int(major), int(minor) if minor else None


def _python_values(parts: Parts) -> Iterator[tuple[str, int, int | None, bool]]:
    """(implementation, major, minor or None, minor or later) for each Python value read."""
    python, abi, _ = parts
    later = bool(abi & _LATER_ABIS)
    for value in python:
        name, major, minor = _python_value(value)
        # Every interpreter accepts `py3Y` of each minor Y up to its own (review75h: a `py310`
        # wheel beside the compared `py38` one passed, though pip on 3.10 installs it).
        yield name, major, minor, later or name == "py"


def _one_python(left: Parts, right: Parts) -> bool:
    """Whether one interpreter accepts a Python value of each."""
    for name, major, minor, later in _python_values(left):
        for other, other_major, other_minor, other_later in _python_values(right):
            if major != other_major or (name != other and "py" not in (name, other)):
                continue
            if minor is None or other_minor is None or minor == other_minor:
                return True
            if (later and other_minor > minor) or (other_later and minor > other_minor):
                return True
    return False


_LINUX = re.compile(r"^(manylinux|musllinux|linux)(?:_\d+_\d+|1|2010|2014)?_(.+)$")
_MACOS = re.compile(r"^macosx_\d+_\d+_(.+)$")
_VERSIONED = re.compile(r"^(android|ios)_\d+(?:_\d+)?_(.+)$")
"""Android's API level and iOS's version (PEP 738, PEP 730): a newer system takes older ones."""
_MAC_FAT = {
    "universal2": ("arm64", "x86_64"),
    "universal": ("x86_64", "i386", "ppc64", "ppc"),
    "intel": ("x86_64", "i386"),
    "fat3": ("x86_64", "i386", "ppc"),
    "fat64": ("x86_64", "ppc64"),
    "fat32": ("i386", "ppc"),
}


@cache
def _machines(platform: str) -> frozenset[str]:
    """The machines a platform value installs on, as far as its name tells: a glibc or musl
    Linux of its architecture (`linux_ARCH` either), a macOS of each architecture a fat binary
    holds, an Android or iOS of its architecture, else its own family."""
    if (linux := _LINUX.match(platform)) is not None:
        libc, arch = linux.groups()
        libcs = {"manylinux": ("glibc",), "musllinux": ("musl",)}.get(libc, ("glibc", "musl"))
        return frozenset(f"{name}_{arch}" for name in libcs)
    if (macos := _MACOS.match(platform)) is not None:
        arch = macos.group(1)
        return frozenset(f"macos_{a}" for a in _MAC_FAT.get(arch, (arch,)))
    if (versioned := _VERSIONED.match(platform)) is not None:
        return frozenset({"_".join(versioned.groups())})
    return frozenset({platform_family(platform)})


@cache
def _machine_set(platforms: frozenset[str]) -> frozenset[str]:
    """The machines any of a tag set's platform values installs on."""
    return frozenset().union(*map(_machines, platforms))


def _one_platform(left: Parts, right: Parts) -> bool:
    """Whether one machine accepts a platform value of each."""
    if "any" in left[2] or "any" in right[2]:
        return True
    return bool(_machine_set(left[2]) & _machine_set(right[2]))


@cache
def _free_threaded(abis: frozenset[str]) -> bool:
    """Whether every ABI value is a free-threaded CPython's (`cp313t`), which takes no `abi3`
    wheel (packaging's `_abi3_applies`)."""
    return all(_FREE_THREADED.match(abi) for abi in abis)


def _fits(generic: frozenset[str], abis: frozenset[str]) -> bool:
    """Whether a generic ABI value of `generic` fits an interpreter of one of `abis`: `none`
    any, `abi3t` taken as any, `abi3` any but a free-threaded one (review75h: `cp313t` added
    beside compared `cp39-abi3` wheels was refused, though no interpreter takes both)."""
    return bool(generic & {"none", "abi3t"}) or ("abi3" in generic and not _free_threaded(abis))


def _one_abi(left: Parts, right: Parts) -> bool:
    """Whether one interpreter accepts an ABI value of each."""
    return bool(left[1] & right[1]) or _fits(left[1], right[1]) or _fits(right[1], left[1])


def _together(a: Parts, b: Parts) -> bool:
    """Whether one interpreter installs a wheel of either tag set."""
    return _one_platform(a, b) and _one_abi(a, b) and _one_python(a, b)


_BASELINE = re.compile(r"^(?:manylinux|musllinux|macosx)_(\d+)_(\d+)_")
_LEGACY = {"manylinux1_": (2, 5), "manylinux2010_": (2, 12), "manylinux2014_": (2, 17)}
_FEW_PLATFORMS = 16
"""Platform value pairs weighed by `_older_baseline` (a real wheel names one to three); more
are taken as ranking either way."""


@cache
def _baseline(platform: str) -> tuple[int, int] | None:
    """The glibc, musl or macOS version a platform value needs; None where the name tells no
    order (`linux_ARCH`, which packaging lists first on a Linux)."""
    if (found := _BASELINE.match(platform)) is not None:
        return int(found.group(1)), int(found.group(2))
    for prefix, version in _LEGACY.items():
        if platform.startswith(prefix):
            return version
    return None


def _older_baseline(wheel: Parts, over: Parts) -> bool:
    """Whether, their Pythons and ABIs the same, each platform value of `wheel` needs an older
    system than each of `over`'s on a machine both install on: packaging lists a machine's
    platform values newest system first, so pip chooses `over` wherever both install
    (review75h: a `manylinux_2_17` wheel dropped beside a compared `manylinux_2_28` one was
    refused, though only systems the patch no longer serves installed it)."""
    if wheel[:2] != over[:2] or len(wheel[2]) * len(over[2]) > _FEW_PLATFORMS:
        return False
    shared = False
    for mine in wheel[2]:
        for theirs in over[2]:
            if not _machines(mine) & _machines(theirs):
                continue
            shared = True
            low, high = _baseline(mine), _baseline(theirs)
            if low is None or high is None or low >= high:
                return False
    return shared


def _preferred(wheel: SetWheel, over: SetWheel) -> bool:
    """Whether pip, on an interpreter that installs both, may choose `wheel` over `over`: of
    one version, a platform-specific wheel always ranks above one for `any` platform
    (packaging's tag order), so a platform-`any` wheel beside a compared platform wheel is
    installed only where that one is not (a pure fallback added: one-sided), as is one for an
    older glibc, musl or macOS (`_older_baseline`); pip ranks versions
    before tags, so of two versions either may be chosen."""
    parts, over_parts = tag_parts(wheel.tag_set), tag_parts(over.tag_set)
    fallback = "any" in parts[2] and "any" not in over_parts[2]
    ranked_below = fallback or _older_baseline(parts, over_parts)
    return _together(parts, over_parts) and not (
        ranked_below and same_version(wheel.version, over.version)
    )


Pair = tuple[SetWheel, SetWheel]
"""(own side's wheel, its counterpart)."""


def refuse_competing(pairing: Pairing) -> None:
    """UsageError (exit 2) naming the first unpaired wheel that pip may install where a paired
    wheel of its side installs, or where an unpaired wheel of the other side installs (the
    project's wheel for that interpreter changed and nothing compared it): `--allow-unpaired`
    cannot accept it as one-sided."""
    sides = (("base", pairing.only_base, pairing.only_patch), ("patch", pairing.only_patch, ()))
    for index, (side, unpaired, others) in enumerate(sides):
        paired = [(pair[index], pair[1 - index]) for pair in pairing.pairs]
        _refuse_side(side, unpaired, paired, others)


def _by_name(wheels: Sequence[SetWheel]) -> dict[str, list[tuple[SetWheel, Parts]]]:
    found: dict[str, list[tuple[SetWheel, Parts]]] = {}
    for wheel in wheels:
        found.setdefault(wheel.key_name, []).append((wheel, tag_parts(wheel.tag_set)))
    return found


def _refuse_side(
    side: str, unpaired: Sequence[SetWheel], paired: Sequence[Pair], others: Sequence[SetWheel]
) -> None:
    """The refusal for one side's unpaired wheels: against its paired wheels, then against the
    other side's unpaired ones (`others`, given once: for the base side)."""
    own_paired = _by_name([own for own, _ in paired])
    counterparts = {id(own): counterpart for own, counterpart in paired}
    other_unpaired = _by_name(others)
    _refuse_work(unpaired, own_paired, other_unpaired)
    for wheel in unpaired:
        parts = tag_parts(wheel.tag_set)
        for own, _ in own_paired.get(wheel.key_name, []):
            if _preferred(wheel, own):
                counterpart = counterparts[id(own)]
                _refuse(
                    side,
                    wheel,
                    counterpart,
                    f"instead of {own.path} (compared with {counterpart.path})",
                )
        for other, other_parts in other_unpaired.get(wheel.key_name, []):
            if _together(parts, other_parts):
                _refuse(
                    side,
                    wheel,
                    other,
                    f"where the other release installs {other.path}, unpaired too,",
                )


MAX_CHECKS = 250_000
"""Python values one run may weigh against each other under `--allow-unpaired` (k3diff's cap,
exit 2 past it): the unpaired wheels of one project, times the wheels they are checked against,
by their Python values (stop 75: 1,000 against 1,000 took 3 s; a release drops or adds a few
dozen wheels of one project)."""


def _refuse_work(
    unpaired: Sequence[SetWheel], *checked: dict[str, list[tuple[SetWheel, Parts]]]
) -> None:
    """InputError naming the project whose unpaired wheels would take over `MAX_CHECKS`."""
    weights: dict[str, tuple[SetWheel, int]] = {}
    for wheel in unpaired:
        first, weight = weights.get(wheel.key_name, (wheel, 0))
        weights[wheel.key_name] = first, weight + len(tag_parts(wheel.tag_set)[0])
    for name, (first, weight) in weights.items():
        against = sum(len(parts[0]) for found in checked for _, parts in found.get(name, []))
        if weight * against > MAX_CHECKS:
            raise InputError(
                f"{first.path.parent}: --allow-unpaired: project {name}: its unpaired wheels' "
                f"{weight:,} Python values would be checked "
                f"against {against:,} of its other wheels', over k3diff's cap of "
                f"{MAX_CHECKS:,} checks: compare the wheels with --base/--patch, or without "
                "--allow-unpaired"
            )


def _refuse(side: str, wheel: SetWheel, counterpart: SetWheel, where: str) -> None:
    base, patch = (wheel, counterpart) if side == "base" else (counterpart, wheel)
    raise UsageError(
        f"--allow-unpaired: {side} wheel {wheel.path} is not one-sided: pip may install it "
        f"{where} on one interpreter, and it was compared with nothing; compare it: "
        f"--base {base.path} --patch {patch.path}"
    )
