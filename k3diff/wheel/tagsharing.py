"""Which wheels share a tag, read from the three parts of their filenames' tag sets.

A compressed tag set (`py2.py3-none-any`) is the product of its three parts, so two wheels
share a tag exactly when each part of one shares a value with the same part of the other: the
parts are read, never the product they expand to (hunt72: a 255-byte name expands to 46,000
tags, and 400 such names took 2 GB and 70 s). Each side is indexed by key, part and value once,
and a wheel's candidates are looked up in its smallest bucket, not searched for among every
wheel of the other side. `k3diff wheels` pairs two release sets by it (`wheels.setpairing`).
`k3diff audit` finds the wheels of one release that pip reads as one (`audit.samewheels`)
within a group of one key, at most `MAX_SAME`, by bit masks of its positions (`sharing_masks`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterator, Sequence

Parts = tuple[frozenset[str], frozenset[str], frozenset[str]]
"""A tag set's python, ABI and platform values (`py2.py3-none-any`: {py2, py3}, {none}, {any})."""

Keyed = tuple[Hashable, Parts]
"""A wheel as the lookup sees it: what it must share besides a tag (its normalised name), and
its tag set's parts."""

MAX_SAME = 1_000
"""Wheels one lookup may hold under one key (k3diff's cap, exit 2 past it: `audit.samewheels`
and `wheels.setpairing` refuse a larger group): a release holds one wheel per platform and
Python, a few hundred of one project at the most, while the cost of naming each one's others
grows with the square of the wheels that share a tag (stop 73: 16,000 names of one project
sharing a tag took 36 s for audit)."""

_FEW = 8
"""Positions few enough to narrow one by one rather than by a part's buckets taken whole."""


def tag_parts(tag_set: str) -> Parts:
    """The values of each part of a filename's tag set (`PY-ABI-PLATFORM`, as
    `wheel.filename.wheel_filename_parts` gives it), lower case as packaging reads tags."""
    python, abi, platform = (frozenset(p.split(".")) for p in tag_set.lower().split("-"))
    return python, abi, platform


def shared_tag(left: Parts, right: Parts) -> str:
    """One tag both parts' products hold (the least value of each part), for a detail to name;
    the caller knows they share one."""
    return "-".join(min(mine & theirs) for mine, theirs in zip(left, right, strict=True))


def sharing_sets(wheels: Sequence[Keyed], others: Sequence[Keyed]) -> Iterator[set[int]]:
    """For each of `wheels` in turn, the set of positions of the `others` of its key whose every
    part shares a value with its own (a shared tag): the positions of its smallest part's
    buckets, narrowed part by part, by the few left or else by the next part's buckets taken
    whole (set operations, never one wheel tried against each of thousands: review72b, names
    whose every part shares values with thousands that share no tag took minutes). Each set is
    made as it is asked for, so a caller that keeps a few positions of each holds no more
    (review73a: 8,000 names sharing one tag held 64 million positions at once, 570 MB)."""
    index: dict[tuple[Hashable, int, str], list[int]] = defaultdict(list)
    for position, (key, parts) in enumerate(others):
        for part, values in enumerate(parts):
            for value in values:
                index[(key, part, value)].append(position)
    for key, parts in wheels:
        lists = [
            [index.get((key, part, value), []) for value in values]
            for part, values in enumerate(parts)
        ]
        buckets = sorted(enumerate(lists), key=lambda bucket: (sum(map(len, bucket[1])), bucket[0]))
        positions: set[int] = set().union(*buckets[0][1])
        for part, bucket in buckets[1:]:
            if len(positions) <= _FEW:
                positions = {p for p in positions if not parts[part].isdisjoint(others[p][1][part])}
            else:
                positions.intersection_update(set().union(*bucket))
        yield positions


def sharing_masks(group: Sequence[Parts]) -> Iterator[int]:
    """For each wheel of `group` (one key's: at most `MAX_SAME`, so a mask is a few machine
    words) in turn, the bit mask of the positions in `group` whose every part shares a value with
    its own, its own bit included: each part's values' masks joined, the parts' intersected, in
    C (audit74: one group's sets of positions cost the square of its wheels, 7.7 s of CPU for
    64 groups of 999 names sharing a tag)."""
    buckets: dict[tuple[int, str], int] = defaultdict(int)
    for position, parts in enumerate(group):
        bit = 1 << position
        for part, values in enumerate(parts):
            for value in values:
                buckets[(part, value)] |= bit
    for parts in group:
        mask = -1
        for part, values in enumerate(parts):
            union = 0
            for value in values:
                union |= buckets[(part, value)]
            mask &= union
        yield mask


def positions(mask: int, limit: int) -> list[int]:
    """The first `limit` positions a mask holds, lowest first."""
    found: list[int] = []
    while mask and len(found) < limit:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found
