"""Which wheels of two release sets pair: by distribution name (PEP 503-normalised) and a shared
tag, then, among the wheels left, by name and platform family (`manylinux1_x86_64` and
`manylinux_2_17_x86_64`: a raised baseline, same architecture). A wheel with two or more
candidates on the other side is an ambiguity, refused naming every one (five, then a count),
never a guess.

Pairing reads the three parts of each filename's tag set, never the product they expand to, and
looks a wheel's candidates up by name, part and value (`wheel.tagsharing`, which `audit` shares:
2,000 empty files named as wheels of one project on each side took 53 s to pair, every wheel
tried against every other; now 1 s).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from k3diff.errors import InputError, UsageError
from k3diff.numbers import named
from k3diff.wheel.filename import normalized_name
from k3diff.wheel.tags import expand
from k3diff.wheel.tagsharing import MAX_SAME, Parts, sharing_sets, tag_parts


@dataclass(frozen=True)
class SetWheel:
    """One wheel file of a release set, as its filename describes it."""

    path: Path
    """The path as the user gave it (a directory joined with the file name)."""
    name: str
    """Distribution name as the filename spells it."""
    version: str
    """Version as the filename spells it (ignored for pairing)."""
    tag_set: str
    """The compressed tag set the filename states (`py2.py3-none-any`), as it states it."""
    sha256: str | None = None
    """SHA-256 of the file, for a wheel left unpaired (its pair's report has it otherwise);
    None when not computed (`--no-file-hash`)."""

    @property
    def key_name(self) -> str:
        """The PEP 503-normalised distribution name."""
        return normalized_name(self.name)

    @property
    def tags(self) -> frozenset[str]:
        """The expanded tags (`python-abi-platform`; `wheel.tags.expand`: at most `MAX_TAGS`,
        a larger set standing for itself), as a report shows them. Pairing reads the tag set's
        three parts instead (`pair_wheels`), never the product they expand to."""
        return expand(self.tag_set)


@dataclass(frozen=True)
class Pairing:
    """Which wheels pair, and which have no counterpart."""

    pairs: tuple[tuple[SetWheel, SetWheel], ...]
    """(base, patch), sorted by base file name."""
    only_base: tuple[SetWheel, ...]
    """Base wheels with no patch counterpart."""
    only_patch: tuple[SetWheel, ...]
    """Patch wheels with no base counterpart."""


_GLIBC_PLATFORM = re.compile(r"^(manylinux|musllinux)(?:1|2010|2014|_\d+_\d+)_(.+)$")
_MACOS_PLATFORM = re.compile(r"^macosx_\d+_\d+_(.+)$")


def platform_family(platform: str) -> str:
    """A platform with its libc or OS version dropped (`manylinux1_x86_64` and
    `manylinux_2_17_x86_64` are one family): the fallback pairing key for a release that
    raised its platform baseline."""
    if (glibc := _GLIBC_PLATFORM.match(platform)) is not None:
        return f"{glibc.group(1)}_{glibc.group(2)}"
    if (macos := _MACOS_PLATFORM.match(platform)) is not None:
        return f"macosx_{macos.group(1)}"
    return platform


def _parts(wheel: SetWheel) -> Parts:
    """The values of each part of the wheel's tag set, lower case as packaging reads tags."""
    return tag_parts(wheel.tag_set)


def _families(wheel: SetWheel) -> Parts:
    python, abi, platform = _parts(wheel)
    return python, abi, frozenset(map(platform_family, platform))


Keys = Callable[[SetWheel], Parts]
"""What a wheel pairs by besides its name: its tag set's parts, or their families."""


def _candidates(
    wheels: Sequence[SetWheel], others: Sequence[SetWheel], keys: Keys
) -> Iterator[list[SetWheel]]:
    """For each of `wheels` in turn, the `others` of its normalised name that share a tag (or
    a family's tag, by `keys`) with it, in the order of `others` (`wheel.tagsharing`), each
    found as it is asked for: the first ambiguous wheel is refused before the next is looked up
    (review73a: 6,000 names sharing a tag on each side were all looked up first, 630 MB and
    12 s before the refusal)."""
    found = sharing_sets(
        [(w.key_name, keys(w)) for w in wheels], [(o.key_name, keys(o)) for o in others]
    )
    return ([others[p] for p in sorted(positions)] for positions in found)


def _pair_by(
    base: Sequence[SetWheel], patch: Sequence[SetWheel], keys: Keys, given_as_files: bool
) -> list[tuple[SetWheel, SetWheel]]:
    """Pairs of wheels of one name that share a key; UsageError naming every candidate
    (`numbers.named`: five, then a count) of any wheel with more than one."""
    pairs: list[tuple[SetWheel, SetWheel]] = []
    for own_side, wheels, other_side, others in (
        ("base", base, "patch", patch),
        ("patch", patch, "base", base),
    ):
        for wheel, found in zip(wheels, _candidates(wheels, others, keys), strict=True):
            if len(found) > 1:
                raise UsageError(
                    f"ambiguous pairing: {own_side} wheel {wheel.path} has "
                    f"{len(found)} {other_side} candidates of the same name and tags: "
                    f"{named([str(o.path) for o in found])}; "
                    + (
                        f"give only the one to compare with --{other_side}"
                        if given_as_files
                        else "give the wheels to compare with --base/--patch"
                    )
                )
            if found and own_side == "base":
                pairs.append((wheel, found[0]))
    return pairs


def _refuse_crowd(wheels: Sequence[SetWheel]) -> None:
    """InputError, naming the directory, where one side holds more than `MAX_SAME` wheels of
    one project (audit74: each looked up among the others, 64,000 of one project took 40 s)."""
    counts = Counter(wheel.key_name for wheel in wheels)
    name, count = max(counts.items(), key=lambda item: item[1], default=("", 0))
    if count > MAX_SAME:
        first = next(wheel for wheel in wheels if wheel.key_name == name)
        raise InputError(
            f"{first.path.parent}: {count:,} wheels of project {name} (PEP 503-normalised), "
            f"over k3diff's cap of {MAX_SAME:,}: a release holds one per platform and Python; "
            "give one release on each side"
        )


def pair_wheels(
    base: Sequence[SetWheel], patch: Sequence[SetWheel], given_as_files: bool = False
) -> Pairing:
    """Pair by normalised name and shared tags; then, among the wheels left unpaired, by name
    and platform family (a release that moved from `manylinux1` to `manylinux_2_17`, or to a
    newer macOS baseline, on the same architecture). Raise UsageError naming the candidates of
    any wheel with more than one (on either side). `given_as_files`: the wheels came from
    `--base`/`--patch`, so the way out is to give fewer of them, not to use those options."""
    for wheels in (base, patch):
        _refuse_crowd(wheels)
    pairs = _pair_by(base, patch, _parts, given_as_files)
    paired = {id(wheel) for pair in pairs for wheel in pair}
    left_base = [w for w in base if id(w) not in paired]
    left_patch = [w for w in patch if id(w) not in paired]
    pairs += _pair_by(left_base, left_patch, _families, given_as_files)
    paired = {id(wheel) for pair in pairs for wheel in pair}
    return Pairing(
        pairs=tuple(sorted(pairs, key=lambda pair: pair[0].path.name)),
        only_base=tuple(w for w in base if id(w) not in paired),
        only_patch=tuple(w for w in patch if id(w) not in paired),
    )
