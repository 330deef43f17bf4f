"""The statistics against values computed independently here (closed forms, hand sums)."""

from __future__ import annotations

import collections
import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.correction import holm
from k3diff.triage import stats
from k3diff.triage.plan import plan


def test_nonmodal_bound_of_unanimous_samples_is_one_minus_alpha_root() -> None:
    for n, expected in ((3, 0.7764), (2, 0.95), (60, 0.0495)):
        bound = stats.nonmodal_upper_bound(stats.Deviations.of(n, n), 0.05)
        assert math.isclose(bound, 1 - 0.05 ** (1 / (n - 1)), rel_tol=1e-9)
        assert round(bound, 4) == expected
    assert stats.nonmodal_upper_bound(stats.Deviations.of(1, 1), 0.05) == 1.0


def test_interval_for_one_deviation_in_three_is_its_closed_form() -> None:
    # 3 observations, 1 off the observed mode. Lower: Clopper–Pearson over all 3 (the observed
    # mode's deviations are at most the true mode's, Bin(3, u)): 1 - (1 - u)^3 = α/2. Upper:
    # P(Bin(3, u) <= 1) / (1 - u) = (1 - u)(1 + 2u) = α/2, i.e. 2u² - u - (1 - α/2) = 0.
    low, high = stats.deviation_interval(stats.Deviations(1, 2), 0.05)
    assert math.isclose(low, 1 - 0.975 ** (1 / 3), rel_tol=1e-9)
    assert math.isclose(high, (1 + math.sqrt(1 + 8 * 0.975)) / 4, rel_tol=1e-9)
    # The textbook table value for 0 of 10 at 95%: [0, 0.3085].
    assert round(stats.deviation_interval(stats.Deviations(0, 10), 0.05)[1], 4) == 0.3085


def _hypergeometric_upper_tail(a: int, b: int, c: int, d: int) -> float:
    """P(X >= a) for the top-left cell with the margins fixed, summed by hand."""
    row, col, total = a + b, a + c, a + b + c + d
    return sum(
        math.comb(col, x) * math.comb(total - col, row - x) / math.comb(total, row)
        for x in range(a, min(row, col) + 1)
    )


@pytest.mark.parametrize(
    ("patch", "base"), [((5, 9), (0, 9)), ((3, 4), (1, 9)), ((0, 2), (2, 2)), ((7, 19), (2, 30))]
)
def test_fisher_one_sided_p_is_the_hypergeometric_tail(
    patch: tuple[int, int], base: tuple[int, int]
) -> None:
    p = stats.fisher_patch_less_stable(stats.Deviations(*patch), stats.Deviations(*base))
    expected = _hypergeometric_upper_tail(patch[0], patch[1] - patch[0], base[0], base[1] - base[0])
    assert p is not None and math.isclose(p, expected, rel_tol=1e-9)


def test_good_turing_is_singletons_over_n() -> None:
    assert stats.good_turing_missing_mass([1, 1, 1]) == 1.0
    assert stats.good_turing_missing_mass([3, 1, 2, 1]) == 2 / 7
    assert stats.good_turing_missing_mass([5]) == 0.0
    assert stats.good_turing_missing_mass([]) is None


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.03, 0.04 -> 3*0.01, max(0.03, 2*0.03), max(0.06, 1*0.04)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


@pytest.mark.parametrize(
    ("bound", "alpha", "n"), [(0.05, 0.05, 60), (0.1, 0.05, 30), (0.01, 0.01, 460)]
)
def test_plan_is_the_smallest_n_with_unanimity_below_alpha(
    bound: float, alpha: float, n: int
) -> None:
    assert plan(bound, alpha).per_side == n == math.ceil(math.log(alpha) / math.log(1 - bound)) + 1


def _novelty_by_enumeration(
    patch: list[str], base: list[str], known: frozenset[str] = frozenset()
) -> float:
    """P(T >= t) over every way of labelling len(patch) of the pooled samples "patch"."""
    pooled = patch + base

    def novel(chosen: tuple[int, ...]) -> int:
        base_seen = {pooled[i] for i in range(len(pooled)) if i not in chosen} | known
        return sum(1 for i in chosen if pooled[i] not in base_seen)

    observed = novel(tuple(range(len(patch))))
    labellings = list(itertools.combinations(range(len(pooled)), len(patch)))
    return sum(1 for chosen in labellings if novel(chosen) >= observed) / len(labellings)


def _novelty_closed_form(patch: list[str], base: list[str]) -> float:
    """The same p from the pooled counts alone: the patch takes k_v of the c_v copies of each
    output (C(c_v, k_v) ways) and scores c_v when it takes them all; sum over the ways."""
    counts = collections.Counter(patch + base)
    m = len(patch)
    # ways[(taken, score)]: labellings of the outputs seen so far.
    ways: dict[tuple[int, int], int] = {(0, 0): 1}
    for c in counts.values():
        grown: dict[tuple[int, int], int] = collections.defaultdict(int)
        for (taken, score), w in ways.items():
            for k in range(min(c, m - taken) + 1):
                grown[(taken + k, score + (c if k == c else 0))] += w * math.comb(c, k)
        ways = grown
    base_set = set(base)
    observed = sum(1 for output in patch if output not in base_set)
    total = sum(w for (taken, _), w in ways.items() if taken == m)
    return sum(w for (taken, s), w in ways.items() if taken == m and s >= observed) / total


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from("abcd"), min_size=2, max_size=6),
    st.lists(st.sampled_from("abcd"), min_size=2, max_size=6),
    st.sets(st.sampled_from("abcd"), max_size=2),
)
def test_novelty_p_is_the_exact_permutation_p(
    patch: list[str], base: list[str], known: set[str]
) -> None:
    found = stats.novelty_test(patch, base, frozenset(known))
    if len(set(patch) | set(base)) < 2:
        assert found is None
        return
    assert found is not None and found.exact
    assert found.statistic == sum(1 for o in patch if o not in set(base) | known)
    assert math.isclose(found.p, _novelty_by_enumeration(patch, base, frozenset(known)))
    if not known:
        assert math.isclose(found.p, _novelty_closed_form(patch, base))


def test_novelty_p_closed_forms_and_a_monte_carlo_table() -> None:
    # Base A/B alternating, patch 8 x C: two of C(16, 8) labellings score 8.
    found = stats.novelty_test(["C"] * 8, ["A", "B"] * 4)
    assert found is not None and found.statistic == 8 and found.exact
    assert math.isclose(found.p, 2 / math.comb(16, 8))
    # 3 a side: 2 of 20.
    found = stats.novelty_test(["C"] * 3, ["A", "B", "A"])
    assert found is not None and math.isclose(found.p, 0.1)
    # A more stable patch on the base's outputs scores nothing.
    found = stats.novelty_test(["A"] * 8, ["A", "B"] * 4)
    assert found is not None and (found.statistic, found.p) == (0, 1.0)
    # 10 a side is past exact enumeration: the fixed-seed Monte Carlo p is valid (never below
    # the closed form by more than its resolution) and the same on every run.
    patch, base = ["C"] * 7 + ["A"] * 3, ["A", "B"] * 5
    found = stats.novelty_test(patch, base)
    assert found is not None and not found.exact
    exact = _novelty_closed_form(patch, base)
    assert abs(found.p - exact) < 0.002 + 3 * math.sqrt(exact / stats.RESAMPLES)
    assert stats.novelty_test(patch, base) == found


def test_all_distinct_outputs_never_score_and_cost_nothing() -> None:
    # Temperature > 0: every sample new. Past exact enumeration (16 a side) yet exact: p = 1.
    patch, base = [f"p{i}" for i in range(16)], [f"b{i}" for i in range(16)]
    found = stats.novelty_test(patch, base)
    assert found is not None and (found.statistic, found.p, found.exact) == (16, 1.0, True)
    assert math.isclose(_novelty_closed_form(patch[:5], base[:5]), 1.0)


def test_novelty_follow_up_is_the_first_size_that_rejects() -> None:
    more = stats.novelty_samples_to_decide(["C"] * 3, ["A", "B", "A"], frozenset(), 0.05)
    assert more == 1  # 4 a side: 2 / C(8, 4) = 0.029
    assert 2 / math.comb(8, 4) <= 0.05 < 2 / math.comb(6, 3)
    assert stats.novelty_samples_to_decide(["A"] * 3, ["A", "B", "A"], frozenset(), 0.05) is None


def test_detectable_rate_is_one_minus_beta_root_of_n() -> None:
    # An output of rate θ shows up at least once in n samples with probability 1 - (1 - θ)^n.
    for n, power in ((16, 0.8), (3, 0.8), (60, 0.9), (1, 0.5)):
        theta = stats.detectable_rate(n, power)
        assert theta is not None
        assert math.isclose(theta, 1 - (1 - power) ** (1 / n), rel_tol=1e-9)
        assert math.isclose(1 - (1 - theta) ** n, power, rel_tol=1e-9)
    assert round(stats.detectable_rate(16, 0.8) or 0, 3) == 0.096  # the example
    assert stats.detectable_rate(0, 0.8) is None
