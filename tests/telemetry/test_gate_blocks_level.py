"""The gate past its caps (`k3diff.telemetry.blocks`), by closed forms and simulation: the
blocks' rates are the units' (the statistic is unchanged), the block size is the smallest that
fits, and the permutation test of blocks holds its level under the null (both sides' units
from one overdispersed distribution, the last block of a side the remainder) while it still
finds a real drop."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from k3diff.telemetry import blocks, gate
from k3diff.telemetry.gatemodel import SideUnits
from k3diff.telemetry.permutation import permuted

ALPHA = 0.05


def _side(rng: random.Random, n: int, mean: float, positions: int = 3) -> SideUnits:
    tokens, drafts = [], []
    for _ in range(n):
        # Overdispersed: each unit's own acceptance rate (a prompt's), Beta around `mean`.
        rate = rng.betavariate(4 * mean, 4 * (1 - mean))
        drafted = rng.randint(1, 24)
        tokens.append((sum(rng.random() < rate for _ in range(drafted)), drafted))
        count = rng.randint(1, 8)
        reached = [count]
        for _ in range(positions):
            reached.append(sum(rng.random() < rate for _ in range(reached[-1])))
        drafts.append((count, tuple(reached[1:])))
    return SideUnits("vllm", n, tuple(tokens), tuple(drafts))


def _rate(units: list[tuple[int, int]]) -> Fraction:
    return Fraction(sum(a for a, _ in units), sum(d for _, d in units))


def test_the_blocks_rates_are_the_units_rates() -> None:
    rng = random.Random(7)
    for block in (2, 3, 7):
        side = _side(rng, 50, 0.6)
        blocked = blocks.in_blocks(side, block)
        assert len(blocked.token_units) == -(-50 // block)
        assert _rate(list(blocked.token_units)) == _rate(list(side.token_units))
        for position in (1, 2, 3):
            assert _rate(gate._units(blocked, position)) == _rate(gate._units(side, position))


def test_the_block_size_is_the_smallest_that_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blocks, "GATE_MAX_WORK", 1_000)
    monkeypatch.setattr(blocks, "GATE_MAX_UNITS", 150)
    rng = random.Random(8)
    sides = {"base": _side(rng, 400, 0.6), "patch": _side(rng, 333, 0.6)}
    found = blocks.within_caps(sides)
    block = found["base"].block
    lengths, longest = blocks.lengths_of(sides), blocks.longest(sides)
    assert blocks.fits(lengths, longest, block) and not blocks.fits(lengths, longest, block - 1)
    assert gate.gate_work(found) <= blocks.work_bound(lengths, longest, block) <= 1_000
    assert blocks.block_problem(found) is None
    # Within the caps, the units themselves.
    small = {"base": _side(rng, 100, 0.6), "patch": _side(rng, 90, 0.6)}
    assert gate.gate_work(small) == 760 and blocks.within_caps(small) == small


def _rejects(rng: random.Random, base_mean: float, patch_mean: float) -> bool:
    # 32 and 31 units in blocks of 5: 7 blocks a side (the last of 2 and of 1 units),
    # 3,432 splits, enumerated.
    base = blocks.in_blocks(_side(rng, 32, base_mean), 5)
    patch = blocks.in_blocks(_side(rng, 31, patch_mean), 5)
    p, _, exact = permuted(gate._units(base, None), gate._units(patch, None))
    assert exact
    return p <= ALPHA


def test_the_test_of_blocks_holds_its_level_under_the_null() -> None:
    rng = random.Random(62)
    runs = 400
    rejected = sum(_rejects(rng, 0.6, 0.6) for _ in range(runs))
    # Exact permutation tests are at most alpha; 3 standard errors above it.
    assert rejected / runs <= ALPHA + 3 * (ALPHA * (1 - ALPHA) / runs) ** 0.5, rejected


def test_the_test_of_blocks_finds_a_real_drop() -> None:
    rng = random.Random(63)
    runs = 40
    assert sum(_rejects(rng, 0.75, 0.45) for _ in range(runs)) >= 0.8 * runs


def test_no_side_and_units_have_no_block_problem() -> None:
    rng = random.Random(9)
    assert blocks.block_problem({}) is None
    assert blocks.block_problem({"base": _side(rng, 3, 0.5)}) is None
