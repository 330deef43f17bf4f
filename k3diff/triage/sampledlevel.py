"""The level each test of a sampled mode is judged at (aa77).

A sampled mode (its requests sampled on both sides) can be made a regression candidate by two
tests: its distribution test (the record's MMD or count test, its first-token tests and its
mode's pooled tests, one Holm family across the run) and, where the patch gave an output the
base never gave, its novelty test (one family across the run). Each at α, a patch that changed
nothing was a candidate up to 2α of the time (stats76 measured 8 of 60 at 20 a side of 30
answers). Each is now judged at α / `SAMPLED_FAMILIES` (Bonferroni), so the record's chance
rejection is at most α; the Fisher test of the instability rates is supporting evidence there
(where the base is stable it counts the patch's other outputs as the novelty test does).
Every figure stated of the distribution test (its `level`, `detectable_shift`, the first-token
power, `more_samples`) is computed at its judged level. Greedy modes keep α per family."""

from __future__ import annotations

SAMPLED_FAMILIES = 2
"""Tests that can make a sampled mode a regression candidate: distribution and novelty."""


def judged_at(alpha: float, sampled: bool) -> float:
    """The α a test of a mode is judged at: `alpha` shared by the sampled mode's tests, or
    `alpha` itself (a greedy mode)."""
    return alpha / SAMPLED_FAMILIES if sampled else alpha


def alpha_text(alpha: float, sampled: bool) -> str:
    """'α = 0.05', or 'α / 2 = 0.025' for a sampled mode."""
    if not sampled:
        return f"α = {alpha:g}"
    return f"α / {SAMPLED_FAMILIES} = {judged_at(alpha, sampled):g}"


def over_text(sampled: bool) -> str:
    """'α / ' or, for a sampled mode's test, 'α / 2 / ': what its level's test count divides."""
    return f"α / {SAMPLED_FAMILIES} / " if sampled else "α / "
