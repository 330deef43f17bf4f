"""sweep mode: per side and concurrency level, the distinct outputs and how many differ from the
lowest level's modal output (the serial one), and where they start to differ."""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from collections.abc import Iterable

from k3diff.sample.names import Mode
from k3diff.triage.model import ModeVerdict
from k3diff.triage.samples import Sample
from k3diff.triage.sides import SweepPoint


def with_sweep(samples: dict[str, dict[str, list[Sample]]], verdict: ModeVerdict) -> ModeVerdict:
    """A sweep mode's verdict with its curve: per side and level, distinct outputs and how many
    differ from the lowest level's modal output; the reason says where they start to differ."""
    if verdict.mode != Mode.SWEEP.value:
        return verdict
    points = tuple(
        point
        for side in ("base", "patch")
        for point in sweep_curve(side, samples.get(verdict.mode, {}).get(side, []))
    )
    if not points:
        return verdict
    return dataclasses.replace(verdict, sweep=points, reason=verdict.reason + sweep_text(points))


def sweep_curve(side: str, samples: list[Sample]) -> list[SweepPoint]:
    """Per level (ascending), the side's distinct outputs and those differing from the lowest
    level's modal output."""
    by_level: dict[int, list[str]] = defaultdict(list)
    for sample in samples:
        if sample.level is not None and sample.text_xxh3 is not None:
            by_level[sample.level].append(sample.text_xxh3)
    if not by_level:
        return []
    levels = sorted(by_level)
    reference = Counter(by_level[levels[0]]).most_common(1)[0][0]
    return [
        SweepPoint(
            side,
            level,
            len(by_level[level]),
            len(set(by_level[level])),
            sum(1 for output in by_level[level] if output != reference),
        )
        for level in levels
    ]


def first_differing_level(points: Iterable[SweepPoint], side: str) -> int | None:
    """The lowest level at which some output of `side` differs from the serial one."""
    return next((p.level for p in points if p.side == side and p.differ), None)


def sweep_text(points: tuple[SweepPoint, ...]) -> str:
    """'; sweep: the base's outputs start to differ at level 4 (level:distinct/differing
    1:1/0, 2:1/0, 4:2/3, 8:3/7)'."""
    parts = []
    for side in ("base", "patch"):
        mine = [p for p in points if p.side == side]
        if not mine:
            continue
        curve = ", ".join(f"{p.level}:{p.distinct}/{p.differ}" for p in mine)
        level = first_differing_level(mine, side)
        where = (
            f"the {side}'s outputs start to differ from level {mine[0].level}'s at level {level}"
            if level is not None
            else f"the {side}'s outputs never differ from level {mine[0].level}'s"
        )
        parts.append(f"{where} (level:distinct/differing {curve})")
    return "; sweep: " + "; ".join(parts)
