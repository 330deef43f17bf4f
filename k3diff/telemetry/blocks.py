"""The acceptance gate past its caps (stop 62): the units in blocks.

A run whose units fit `GATE_MAX_UNITS` a side and `GATE_MAX_WORK` over the gate's comparisons
is gated on its units. Past either, each side's units (its token units, and its position
units, each list in log order) are summed in consecutive blocks of B, the smallest B >= 2 for
which the blocks fit both caps by `work_bound`; the gate runs unchanged on the blocks, and the
document records the blocks (as `acceptance_units`), B and each list's unit count before
blocking, so `report` runs the same gate again within the same time bound and checks B.

Why it is sound: B is chosen from the unit counts alone, never from an outcome, and a block is
B neighbouring units of one side; where the units of both sides are drawn independently from
one distribution (the null the permutation test of units assumes), so are the blocks, save the
last of a list, which holds the remainder (fewer units, as a short request is one unit with
fewer drafts). A block's counts are sums, so each side's rate, a ratio of totals, is the same
number over the blocks as over the units: the statistic is unchanged, only its permutation
distribution is the blocks' one, whose n (blocks) the tests state. Neighbouring vLLM windows
that are correlated (drift through a run) fall into one block, which makes the test more
conservative, not less; a subsample by stride would drop (B - 1) / B of the counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from math import ceil

from k3diff.telemetry.gate import compared_positions, gate_work
from k3diff.telemetry.gatemodel import GATE_MAX_UNITS, GATE_MAX_WORK, SideUnits

Lengths = Mapping[str, tuple[int, int]]
"""Per side: (token units, position units) before blocking."""


def lengths_of(units: Mapping[str, SideUnits]) -> dict[str, tuple[int, int]]:
    return {side: (len(u.token_units), len(u.position_units)) for side, u in units.items()}


def longest(units: Mapping[str, SideUnits]) -> int:
    """Draft positions both sides report (what `gate._rows` compares), as blocks keep it."""
    if set(units) != {"base", "patch"}:
        return 0
    return compared_positions(units["base"], units["patch"])


def work_bound(lengths: Lengths, positions: int, block: int) -> int:
    """Blocks summed over pooled and every position (at least the gate's work on them)."""
    tokens = sum(ceil(t / block) for t, _ in lengths.values())
    return tokens + positions * sum(ceil(p / block) for _, p in lengths.values())


def fits(lengths: Lengths, positions: int, block: int) -> bool:
    most = max((ceil(n / block) for pair in lengths.values() for n in pair), default=0)
    return most <= GATE_MAX_UNITS and work_bound(lengths, positions, block) <= GATE_MAX_WORK


def block_size(lengths: Lengths, positions: int) -> int:
    """The smallest B >= 2 whose blocks fit both caps."""
    block = 2
    while not fits(lengths, positions, block):
        block += 1
    return block


def _sum_positions(
    chunk: tuple[tuple[int, tuple[int, ...]], ...],
) -> tuple[int, tuple[int, ...]]:
    size = max(len(a) for _, a in chunk)
    return sum(d for d, _ in chunk), tuple(
        sum(a[i] for _, a in chunk if i < len(a)) for i in range(size)
    )


def in_blocks(units: SideUnits, block: int) -> SideUnits:
    tokens, positions = units.token_units, units.position_units
    return replace(
        units,
        token_units=tuple(
            (sum(a for a, _ in tokens[i : i + block]), sum(d for _, d in tokens[i : i + block]))
            for i in range(0, len(tokens), block)
        ),
        position_units=tuple(
            _sum_positions(positions[i : i + block]) for i in range(0, len(positions), block)
        ),
        block=block,
        unblocked=(len(tokens), len(positions)),
    )


def within_caps(units: Mapping[str, SideUnits]) -> dict[str, SideUnits]:
    """The units the gate runs on and the document records: the units where they fit the
    caps, else their blocks."""
    if all(u.units <= GATE_MAX_UNITS for u in units.values()) and gate_work(units) <= GATE_MAX_WORK:
        return dict(units)
    block = block_size(lengths_of(units), longest(units))
    return {side: in_blocks(u, block) for side, u in units.items()}


def block_problem(units: Mapping[str, SideUnits]) -> str | None:
    """How recorded blocks disagree with the rule (None: they agree, or are units)."""
    blocks = {u.block for u in units.values()}
    if blocks <= {1}:
        return None
    if len(blocks) > 1 or any(u.unblocked is None for u in units.values()):
        return "blocks units on one side and not the other, or by two sizes"
    block = blocks.pop()
    lengths = {side: u.unblocked or (0, 0) for side, u in units.items()}
    for side, u in units.items():
        stated = (len(u.token_units), len(u.position_units))
        expected = tuple(ceil(n / block) for n in lengths[side])
        if stated != expected:
            return (
                f"{side}: {lengths[side][0]:,} token and {lengths[side][1]:,} position units in "
                f"blocks of {block} are {expected[0]:,} and {expected[1]:,} blocks, not "
                f"{stated[0]:,} and {stated[1]:,}"
            )
    rule = block_size(lengths, longest(units))
    if fits(lengths, longest(units), 1) or rule != block:
        why = "fit the caps unblocked" if fits(lengths, longest(units), 1) else f"need {rule}"
        return f"blocks of {block} units, but the units it states {why}"
    return None
