"""`triage --plan` at extreme α and bound: no plan claims more than its n allows.

The trial found two ways to lie: `--bound 1e-20 --alpha 0.05` needs 3·10^20 observations, a count
numpy could not hold (a traceback, exit 1), and at `--alpha 1e-20` the achieved bound printed 1.0
because `1 - α` rounds to 1.0 (`beta.ppf(1.0)`). Every answer is checked here against the closed
form `1 - α^(1/(n-1))` computed in logs (`-expm1(log α / (n - 1))`), and a plan past
`stats.MOST_OBSERVATIONS` is a usage error.
"""

from __future__ import annotations

import json
import math

import pytest
from cli_support import run_k3diff
from hypothesis import example, given, settings
from hypothesis import strategies as st

from k3diff.errors import UsageError
from k3diff.triage import stats

# log-uniform over (0, 1): from the least subnormal to just below 1
UNIT = st.floats(min_value=-744.0, max_value=-1e-12).map(math.exp)


def closed_form(n: int, alpha: float) -> float:
    """1 - α^(1/(n-1)), exact in logs where α^(...) underflows or rounds to 1."""
    return -math.expm1(math.log(alpha) / (n - 1))


@settings(max_examples=150, deadline=None)
@given(UNIT, UNIT)
@example(math.exp(-16.0), math.exp(-668.0))  # n = 5.9e9 below α 1e-290: the sum's slack was 2.7e-6
def test_a_plan_is_the_least_n_whose_bound_holds_or_a_usage_error(
    bound: float, alpha: float
) -> None:
    try:
        n = stats.samples_for_bound(bound, alpha)
    except UsageError:
        assert math.log(alpha) / math.log1p(-bound) >= stats.MOST_OBSERVATIONS
        return
    assert 2 <= n <= stats.MOST_OBSERVATIONS + 2
    achieved = stats.nonmodal_upper_bound(stats.Deviations.of(n, n), alpha)
    assert math.isclose(achieved, closed_form(n, alpha), rel_tol=1e-6)
    assert achieved <= bound * (1 + 1e-6)
    if n > 2:  # one observation fewer would not do
        assert closed_form(n - 1, alpha) > bound * (1 - 1e-6)


@settings(max_examples=100, deadline=None)
@given(UNIT, st.integers(2, 10**6), st.integers(0, 5))
def test_the_upper_bound_is_the_beta_quantile_at_any_alpha(
    alpha: float, n: int, deviations: int
) -> None:
    dev = stats.Deviations.of(n, max(1, n - deviations))
    bound = stats.nonmodal_upper_bound(dev, alpha)
    assert 0.0 < bound <= 1.0
    if dev.deviations == 0:
        assert math.isclose(bound, closed_form(n, alpha), rel_tol=1e-6)
    if alpha < 0.5 and dev.deviations < dev.trials:  # a smaller α never bounds more tightly
        assert bound >= stats.nonmodal_upper_bound(dev, alpha * 2) * (1 - 1e-6)


def test_a_quantile_scipy_cannot_find_is_bounded_by_one() -> None:
    # beta.isf(1e-121, 2, 4) is NaN in scipy: no bound is claimed rather than NaN
    assert stats.nonmodal_upper_bound(stats.Deviations(1, 5), math.exp(-278.0)) == 1.0


@pytest.mark.parametrize(("bound", "alpha"), [("1e-20", "0.05"), ("1e-300", "0.5")])
def test_a_bound_no_run_can_back_is_one_line_and_exit_2(bound: str, alpha: str) -> None:
    result = run_k3diff("triage", "--plan", "--bound", bound, "--alpha", alpha)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "observations per side" in result.stderr


def test_a_tiny_alpha_achieves_the_bound_its_n_allows() -> None:
    result = run_k3diff(
        "triage", "--plan", "--bound", "0.05", "--alpha", "1e-20", "--format", "json"
    )
    assert result.exit_code == 0
    answer = json.loads(result.stdout)["plan"]
    assert answer["per_side"] == 899  # ceil(ln 1e-20 / ln 0.95) + 1
    assert math.isclose(answer["achieved_bound"], closed_form(899, 1e-20), rel_tol=1e-9)
    assert answer["achieved_bound"] <= 0.05
    text = run_k3diff("triage", "--plan", "--bound", "0.05", "--alpha", "1e-20").stdout
    assert "by 0.0500 ≤ 0.05" in text
    small = run_k3diff("triage", "--plan", "--bound", "1e-11", "--alpha", "0.05").stdout
    assert "by 1e-11 ≤ 1e-11" in small


def test_a_subnormal_alpha_never_bounds_more_tightly_than_twice_it() -> None:
    """Found by the property above: scipy's `beta.isf` at α = e^-732 (a subnormal float) gave
    0.024783 for 3 deviations in 29,400 trials, below the 0.024793 at 2α: a bound claiming more
    than the samples allow. In logs it is 0.025191, and it falls as α grows. (Since stats64 the
    observed mode is taken as the samples' choice: the root of P(Bin(29,401, u) ≤ 3) / (1 - u)
    = α, 0.02519125543799 by a 60-digit bisection in `decimal`.)"""
    dev = stats.Deviations(3, 29400)
    tiny, near = stats.nonmodal_upper_bound(dev, math.exp(-732.0)), 0.0
    assert math.isclose(tiny, 0.02519125543799, rel_tol=1e-9) and tiny >= 0.02519125543799
    for alpha in (math.exp(-732.0) * 2, 1e-295, 1e-291, 1e-289, 1e-200):
        near = stats.nonmodal_upper_bound(dev, alpha)
        assert near <= tiny * (1 + 1e-9)
        tiny = near


def test_a_plan_prints_large_counts_grouped_and_both_bounds_alike() -> None:
    # Found by the new-user trial: `--bound 1e-9` printed "2995732274 observations", and
    # `--bound 0.5 --alpha 0.5` "0.5000 ≤ 0.5": counts are grouped, both bounds one format
    # (the command to paste, `--repeats N`, stays plain digits).
    tiny = run_k3diff("triage", "--plan", "--bound", "1e-9").stdout
    assert tiny.startswith("2,995,732,274 observations per side")
    assert "by 1e-09 ≤ 1e-09 at" in tiny and "(run --repeats 2995732274;" in tiny
    half = run_k3diff("triage", "--plan", "--bound", "0.5", "--alpha", "0.5").stdout
    assert "mass by 0.5000 ≤ 0.5000 at α = 0.5" in half
