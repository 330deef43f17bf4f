"""The least sample count from which an exact test's power stays at its target: the search
`triage --plan` runs for the count test (`plan.samples_for_shift`) and the MMD test
(`mmdplan.mmd_samples_for_shift`) alike."""

from __future__ import annotations

from collections.abc import Callable

MOST_PER_PROMPT = 1_000_000
"""The largest figure `samples_for_shift` searches (a shift that needs more is refused)."""
PLAN_HORIZON = 2
"""The power must stay at or above the target from the figure up to this many times it."""


def least_steady_n(powers: Callable[[int, int], list[float]], power: float) -> int:
    """The least n from 2 whose power (`powers(first, last)`: one a sample count from first to
    last) reaches `power` and stays there up to `PLAN_HORIZON` * n (an exact test's power
    saw-tooths in n)."""
    last = 64
    while last <= PLAN_HORIZON * MOST_PER_PROMPT:
        found = powers(2, last)
        # failing[i]: the last n <= 2 + i whose power is below the target (1: none).
        failing, below = [], 1
        for offset, value in enumerate(found):
            below = 2 + offset if value < power else below
            failing.append(below)
        for n in range(2, last // PLAN_HORIZON + 1):
            if failing[PLAN_HORIZON * n - 2] < n:
                return n
        last *= 2
    raise ValueError(f"more than {MOST_PER_PROMPT:,} samples per prompt would be needed")
