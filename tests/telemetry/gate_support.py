"""An independent computation of `--fail-on acceptance-drop`'s tests: every split of the units
into a base and a patch side enumerated, rates compared as exact fractions; Holm written out."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any

Unit = tuple[int, int]
"""(accepted, total) of one unit."""


def _rate(units: list[Unit]) -> Fraction:
    return Fraction(sum(u[0] for u in units), sum(u[1] for u in units))


def exact_p(base: list[Unit], patch: list[Unit]) -> Fraction:
    """Share of the splits (base-sized first side) whose base rate - patch rate is at least the
    observed one."""
    units = base + patch
    observed = _rate(base) - _rate(patch)
    hits = 0
    for chosen in combinations(range(len(units)), len(base)):
        first = [units[i] for i in chosen]
        rest = [units[i] for i in range(len(units)) if i not in chosen]
        hits += _rate(first) - _rate(rest) >= observed
    return Fraction(hits, comb(len(units), len(base)))


def holm(pvalues: list[float]) -> list[float]:
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[index]))
        adjusted[index] = running
    return adjusted


def units_of(lines: list[dict[str, Any]], side: str, position: int | None) -> list[Unit]:
    """vLLM windows of `side` from the samples log lines, as (accepted, total) at `position`
    (None: draft tokens)."""
    found = []
    for line in lines:
        spec = line.get("server_spec")
        if line.get("side") != side or spec is None:
            continue
        if position is None:
            found.append((spec["accepted_tokens"], spec["draft_tokens"]))
        else:
            found.append((spec["accepted_per_position"][position - 1], spec["drafts"]))
    return found
