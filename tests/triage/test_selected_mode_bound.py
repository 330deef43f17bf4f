"""A flaky side's non-modal bound and deviation interval claim no more than its samples allow,
though the mode they count deviations from is the samples' own choice (stats64).

Clopper–Pearson on (n - modal) deviations in n - 1 trials treats the observed mode's count as
binomial; it is the largest of the outputs' counts, so it runs high. Four equal outputs (the
non-modal mass 0.75) at n = 10 give 6 or more of one output in 7.9 % of runs, and each such run
bounded the mass below 0.75 "at α = 0.05". The references here are computed from the
multinomial law itself (every count vector weighed), not from the bound's formula."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.triage import stats

from .helpers import compare_texts, side, write_samples


def _counts(n: int, outputs: int) -> list[tuple[int, ...]]:
    """Every vector of `outputs` counts summing to n."""
    return [c for c in itertools.product(range(n + 1), repeat=outputs) if sum(c) == n]


def _at_most_deviations(n: int, outputs: int, deviations: int) -> float:
    """P(n - (largest count) <= deviations) for n draws uniform over `outputs` outputs."""
    total = 0.0
    for counts in _counts(n, outputs):
        if n - max(counts) <= deviations:
            ways = math.factorial(n) // math.prod(math.factorial(c) for c in counts)
            total += ways / outputs**n
    return total


def _at_least_deviations(n: int, outputs: int, deviations: int) -> float:
    """P(n - (largest count) >= deviations), the same law."""
    return 1.0 - _at_most_deviations(n, outputs, deviations - 1) if deviations else 1.0


def test_a_flaky_base_of_four_outputs_is_not_bounded_below_their_mass(tmp_path: Path) -> None:
    compare_texts(tmp_path, {"q0": ("A", "A")})
    base = ["A"] * 6 + ["B", "B", "C", "D"]
    samples = side("q0", "base", base) + side("q0", "patch", ["A"] * 10)
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    found = document["records"][0]["modes"][0]["base"]
    assert (found["n"], found["distinct"]) == (10, 4)
    # Four equal outputs (non-modal mass 0.75) leave at most 4 of 10 off their commonest output
    # with probability 0.079 > α: no 95 % upper bound may fall below 0.75 here.
    assert _at_most_deviations(10, 4, 4) > 0.05
    assert found["nonmodal_bound"] >= 0.75
    # Two-sided at α: each end at α/2 (0.079 > 0.025 too).
    low, high = found["deviation_ci"]
    assert high >= 0.75
    # The lower end counts all 10 samples: the commonest output's deviations are at most the
    # true mode's, Bin(10, mass), so P(Bin(10, low) >= 4) = α/2.
    tail = sum(math.comb(10, j) * low**j * (1 - low) ** (10 - j) for j in range(4, 11))
    assert math.isclose(tail, 0.025, rel_tol=1e-9)


def test_no_bound_excludes_a_mass_its_samples_do_not_reject() -> None:
    """Every observation of n <= 10 samples (d off the commonest output) at four α: the stated
    bound is at least each uniform law's non-modal mass 1 - 1/K (K = 2, 3, 4) under which d or
    fewer deviations have probability above α (the bound could not have excluded that mass at
    confidence 1 - α); the interval's ends likewise at α/2. Exhaustive, not sampled: before
    stats64 the bound failed at (n, K) = (6, 3), (8, 3), (7, 4), (10, 4) at α = 0.05, and (4, 4)
    at α = 0.2, among others."""
    for n, outputs in itertools.product(range(2, 11), range(2, 5)):
        mass = 1 - 1 / outputs
        for deviations in range(n - math.ceil(n / outputs) + 1):
            dev = stats.Deviations.of(n, n - deviations)
            at_most = _at_most_deviations(n, outputs, deviations)
            at_least = _at_least_deviations(n, outputs, deviations)
            for alpha in (0.2, 0.1, 0.05, 0.01):
                case = (n, outputs, deviations, alpha)
                if at_most > alpha:
                    assert stats.nonmodal_upper_bound(dev, alpha) >= mass, case
                low, high = stats.deviation_interval(dev, alpha)
                if at_most > alpha / 2:
                    assert high >= mass, case
                if at_least > alpha / 2:
                    assert low <= mass, case


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=400),
    modal=st.integers(min_value=1, max_value=400),
    alpha=st.floats(min_value=1e-12, max_value=0.5),
)
def test_the_bound_is_the_root_of_its_union_bound(n: int, modal: int, alpha: float) -> None:
    """At the stated bound u the union bound P(Bin(n, u) <= d) / (1 - u) is at most α, and a
    hair below it above α (scipy's binomial law, not the code's log sum): the bound is the
    tightest the union bound allows and never tighter."""
    from scipy.stats import binom

    modal = min(modal, n)
    deviations = n - modal
    bound = stats.nonmodal_upper_bound(stats.Deviations.of(n, modal), alpha)
    if bound == 1.0 or deviations == 0:
        return
    assert binom.cdf(deviations, n, bound) / (1 - bound) <= alpha * (1 + 1e-9)
    below = bound * (1 - 1e-6)
    assert binom.cdf(deviations, n, below) / (1 - below) > alpha
