"""Which file of a project pip installs on one interpreter, each release's: the highest version
(a pre-release only where no final release fits, unless `--pre`), then the file whose best tag
ranks first in packaging's list for the interpreter (platform wheels, then `any` ones, then a
source archive), then the highest build tag; one file a version, so where that file's
Requires-Python excludes the Python, pip goes on to the next version (`wheels.competing`
weighs the choices against what the run compared).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from k3diff.wheel.tagsharing import Parts, tag_parts
from k3diff.wheels.interpreters import Machine, Python, tag_ranks
from k3diff.wheels.setpairing import SetWheel

_BUILD = re.compile(r"^(\d+)(.*)$")


@dataclass(frozen=True)
class Candidate:
    """A wheel or source archive as pip weighs it."""

    wheel: SetWheel | None
    """None for a source archive."""
    path: Path
    side: int
    """0 base, 1 patch."""
    parts: Parts | None
    """The wheel's tag set; None for a source archive (it fits every interpreter, below every
    wheel of its version)."""
    version: Version
    build: tuple[int, str] | tuple[()]
    requires: str | None = None
    """The wheel's Requires-Python, once read (a source archive's is what pip builds from
    it, unknown here: `competing.source_scenarios` weighs it admitting and excluding)."""

    @property
    def what(self) -> str:
        side = ("base", "patch")[self.side]
        return f"{side} {'wheel' if self.wheel is not None else 'source archive'} {self.path}"


def wheel_candidate(wheel: SetWheel, side: int) -> Candidate | None:
    """The wheel, or None where pip reads no version or build tag in its name (it skips it)."""
    parts = wheel.path.name[: -len(".whl")].split("-")
    build: tuple[int, str] | tuple[()] = ()
    if len(parts) == 6:
        if (found := _BUILD.match(parts[2])) is None:
            return None
        build = int(found.group(1)), found.group(2)
    try:
        version = Version(wheel.version)
    except (InvalidVersion, ValueError):
        return None
    return Candidate(wheel, wheel.path, side, tag_parts(wheel.tag_set), version, build)


def python_rank(python: Python, parts: Parts | None) -> tuple[int | None, int | None]:
    """The best group of the interpreter the wheel's platform tags hold, and of its `any`
    tags (neither for a source archive)."""
    if parts is None:
        return None, None
    pys, abis, platforms = parts
    ranks = tag_ranks(python)
    group = min(
        (rank for py in pys for abi, rank in ranks.groups.get(py, {}).items() if abi in abis),
        default=None,
    )
    pure = None
    if "any" in platforms and "none" in abis:
        pure = min((ranks.pure[py] for py in pys if py in ranks.pure), default=None)
    return group, pure


def platform_rank(machine: Machine, parts: Parts | None) -> int | None:
    if parts is None:
        return None
    ranks = machine.platforms
    return min((ranks[value] for value in parts[2] if value in ranks), default=None)


_Key = tuple[tuple[int, ...], tuple[int, str] | tuple[()]]


@dataclass
class _Best:
    """A version's best-ranked files, as `choices_on` gathers them."""

    key: _Key
    admitted: list[Candidate]
    """Those whose Requires-Python admits the Python."""
    excluded: bool
    """Whether one of them is excluded (pip may weigh it, and go on to the next version)."""


Choice = tuple[list[Candidate], list[Candidate]]
_SOURCE_RANK = (-2, 0, 0)
"""A source archive's rank: below every wheel of its version that fits."""


def choices_on(
    candidates: Sequence[Candidate],
    by_python: Sequence[tuple[int | None, int | None]],
    platform_ranks: Sequence[int | None],
    admitted: Sequence[bool],
) -> tuple[Choice, Choice]:
    """Each release's wheels (or source archives) pip may choose on the interpreter (more than
    one where they tie): as pip installs by default (a pre-release only where no final release
    fits), then with `--pre` (review76d: a `2.0rc1` wheel was taken as chosen where pip
    installs the 1.1 one, exit 0). pip weighs one file a version, the best-ranked; where its
    Requires-Python excludes the Python, pip goes on to the next version, never to another
    file of that one (pip 26: `requires a different Python`, or the older version's file).
    Among files that tie, pip weighs the one its URL order puts first, so where one of them
    is excluded the next version's choice is possible too (review77a: the admitted one was
    taken as chosen, exit 0, where pip 26 installed the next version's uncompared wheel)."""
    versions: tuple[dict[Version, _Best], ...] = ({}, {})
    for candidate, (group, pure), platform, admits_it in zip(
        candidates, by_python, platform_ranks, admitted, strict=True
    ):
        if candidate.parts is None:
            rank: tuple[int, ...] = _SOURCE_RANK
        elif group is not None and platform is not None:
            rank = (0, -group, -platform)
        elif pure is not None:
            rank = (-1, -pure, 0)
        else:
            continue
        key, held = (rank, candidate.build), versions[candidate.side].get(candidate.version)
        if held is None or key > held.key:
            held = versions[candidate.side][candidate.version] = _Best(key, [], False)
        if key == held.key:
            held.admitted += [candidate] if admits_it else []
            held.excluded |= not admits_it

    def pick(side: int, pre: bool) -> list[Candidate]:
        found = versions[side]
        finals = not pre and any(not version.is_prerelease for version in found)
        chosen: list[Candidate] = []
        for version in sorted(found, reverse=True):
            if finals and version.is_prerelease:
                continue
            chosen += found[version].admitted
            if chosen and not found[version].excluded:
                break
        return chosen

    return (pick(0, False), pick(1, False)), (pick(0, True), pick(1, True))
