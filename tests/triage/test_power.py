"""The stated power of the count test is the count test's own (checked with scipy's Fisher test)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from k3diff.triage import power
from k3diff.triage.distribution import SHIFT_GRID, SIMULATIONS


@pytest.mark.parametrize(("base", "size"), [(list("ABC"), 3), (list("AB"), 2), (list("ABA"), 2)])
def test_small_cases_can_detect_no_shift(base: list[str], size: int) -> None:
    assert power.detectable_shift(base, (size, len(base)), 0.05, 0.8, "counts") is None


def _fisher_power(base_a: int, base_n: int, size: int, shift: float, runs: int) -> float:
    """Patch draws from the base's law with `shift` moved to a new answer; the one-sided Fisher
    test of (patch off A, patch A) against (base off A, base A) at 0.05."""
    rng = np.random.default_rng(5)
    probs = np.array([base_a / base_n * (1 - shift), (1 - base_a / base_n) * (1 - shift), shift])
    draws = rng.multinomial(size, probs, runs)
    hits = [
        stats.fisher_exact([[size - int(d[0]), int(d[0])], [base_n - base_a, base_a]], "greater")[1]
        <= 0.05
        for d in draws
    ]
    return float(np.mean(hits))


def test_the_stated_shift_has_the_power_and_the_smaller_one_not() -> None:
    stated = power.detectable_shift(["A"] * 19 + ["B"], (20, 20), 0.05, 0.8, "counts")
    assert stated is not None
    runs = 2_000
    tolerance = 3 * np.sqrt(0.8 * 0.2 / runs) + 3 * np.sqrt(0.8 * 0.2 / SIMULATIONS)
    assert _fisher_power(19, 20, 20, stated, runs) >= 0.8 - tolerance
    smaller = SHIFT_GRID[SHIFT_GRID.index(stated) - 2]
    assert _fisher_power(19, 20, 20, smaller, runs) < 0.8
