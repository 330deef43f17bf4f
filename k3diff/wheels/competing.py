"""Unpaired wheels pip may install instead of a compared one: no one-sided wheel for
`--allow-unpaired` to accept.

`--allow-unpaired` accepts a wheel on one side only: a platform or a Python a release added or
dropped. A wheel of a paired project that shares no tag with the other side, yet one
interpreter installs either it or a paired wheel of its side (`solo-1.1-cp312-none-any` beside
`solo-1.1-py3-none-any`; `manylinux_2_28_x86_64` beside `manylinux_2_17_x86_64`), is not that:
pip picks it by tag priority on that interpreter, and its contents were never compared (hunt75b:
such a patch wheel passed, exit 0). The interpreters are judged from the tag set's parts, as
`setpairing` reads them: a platform of the same family (or `any`), a Python of the same
implementation and version (a major-only `py3` matches any of its major; an `abi3` wheel its
version and later), an ABI both may hold (`none` and `abi3` fit any).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from k3diff.errors import UsageError
from k3diff.wheel.tagsharing import Parts, tag_parts
from k3diff.wheels.setpairing import Pairing, SetWheel, platform_family

_PYTHON = re.compile(r"^([a-z]+?)(\d)(\d*)$")
_GENERIC_ABIS = frozenset({"none", "abi3"})


def _python_values(parts: Parts) -> Iterator[tuple[str, int, int | None, bool]]:
    """(implementation, major, minor or None, minor or later) for each Python value read; an
    unread value stands as an implementation of its own."""
    python, abi, _ = parts
    later = "abi3" in abi
    for value in python:
        found = _PYTHON.match(value)
        if found is None:
            yield value, 0, None, False
            continue
        name, major, minor = found.groups()
        yield name, int(major), int(minor) if minor else None, later


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


_LINUX = re.compile(r"^(manylinux|musllinux|linux)_(?:\d+_\d+_|1_|2010_|2014_)?(.+)$")
_MACOS = re.compile(r"^macosx_\d+_\d+_(.+)$")
_MAC_FAT = {
    "universal2": ("arm64", "x86_64"),
    "universal": ("x86_64", "i386", "ppc64", "ppc"),
    "intel": ("x86_64", "i386"),
    "fat3": ("x86_64", "i386", "ppc"),
    "fat64": ("x86_64", "ppc64"),
    "fat32": ("i386", "ppc"),
}


def _machines(platform: str) -> frozenset[str]:
    """The machines a platform value installs on, as far as its name tells: a glibc or musl
    Linux of its architecture (`linux_ARCH` either), a macOS of each architecture a fat binary
    holds, else its own family."""
    if (linux := _LINUX.match(platform)) is not None:
        libc, arch = linux.groups()
        libcs = {"manylinux": ("glibc",), "musllinux": ("musl",)}.get(libc, ("glibc", "musl"))
        return frozenset(f"{name}_{arch}" for name in libcs)
    if (macos := _MACOS.match(platform)) is not None:
        arch = macos.group(1)
        return frozenset(f"macos_{a}" for a in _MAC_FAT.get(arch, (arch,)))
    return frozenset({platform_family(platform)})


def _one_platform(left: Parts, right: Parts) -> bool:
    """Whether one machine accepts a platform value of each."""
    if "any" in left[2] or "any" in right[2]:
        return True
    machines = frozenset().union(*map(_machines, left[2]))
    return any(_machines(p) & machines for p in right[2])


def _one_abi(left: Parts, right: Parts) -> bool:
    """Whether one interpreter accepts an ABI value of each."""
    return bool(left[1] & right[1]) or bool((left[1] | right[1]) & _GENERIC_ABIS)


def competes(left: SetWheel, right: SetWheel) -> bool:
    """Whether pip, on some interpreter, chooses between the two wheels (one project)."""
    if left.key_name != right.key_name:
        return False
    a, b = tag_parts(left.tag_set), tag_parts(right.tag_set)
    return _one_platform(a, b) and _one_abi(a, b) and _one_python(a, b)


def refuse_competing(pairing: Pairing) -> None:
    """UsageError (exit 2) naming the first unpaired wheel that competes with a paired wheel of
    its side: `--allow-unpaired` cannot accept it as one-sided."""
    for side, unpaired, index in (
        ("base", pairing.only_base, 0),
        ("patch", pairing.only_patch, 1),
    ):
        _refuse_side(side, unpaired, [(pair[index], pair[1 - index]) for pair in pairing.pairs])


def _refuse_side(
    side: str, unpaired: Sequence[SetWheel], paired: Sequence[tuple[SetWheel, SetWheel]]
) -> None:
    """The refusal for one side's unpaired wheels against its paired wheels (own, counterpart)."""
    by_name: dict[str, list[tuple[SetWheel, SetWheel]]] = {}
    for own, counterpart in paired:
        by_name.setdefault(own.key_name, []).append((own, counterpart))
    for wheel in unpaired:
        for own, counterpart in by_name.get(wheel.key_name, []):
            if not competes(wheel, own):
                continue
            base, patch = (wheel, counterpart) if side == "base" else (counterpart, wheel)
            raise UsageError(
                f"--allow-unpaired: {side} wheel {wheel.path} is not one-sided: pip may install "
                f"it instead of {own.path} (compared with {counterpart.path}) on one "
                f"interpreter, and it was compared with nothing; compare it: "
                f"--base {base.path} --patch {patch.path}"
            )
