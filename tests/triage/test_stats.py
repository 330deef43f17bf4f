"""The statistics against values computed independently here (closed forms, hand sums)."""

from __future__ import annotations

import math

import pytest

from k3diff.triage import stats
from k3diff.triage.plan import plan


def test_nonmodal_bound_of_unanimous_samples_is_one_minus_alpha_root() -> None:
    for n, expected in ((3, 0.7764), (2, 0.95), (60, 0.0495)):
        bound = stats.nonmodal_upper_bound(stats.Deviations.of(n, n), 0.05)
        assert math.isclose(bound, 1 - 0.05 ** (1 / (n - 1)), rel_tol=1e-9)
        assert round(bound, 4) == expected
    assert stats.nonmodal_upper_bound(stats.Deviations.of(1, 1), 0.05) == 1.0


def test_clopper_pearson_for_one_of_two_is_its_closed_form() -> None:
    # x = 1 of 2: lower solves 1 - (1 - p)^2 = α/2, upper solves 1 - p^2 = α/2.
    low, high = stats.deviation_interval(stats.Deviations(1, 2), 0.05)
    assert math.isclose(low, 1 - math.sqrt(0.975), rel_tol=1e-9)
    assert math.isclose(high, math.sqrt(0.975), rel_tol=1e-9)
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
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


@pytest.mark.parametrize(
    ("bound", "alpha", "n"), [(0.05, 0.05, 60), (0.1, 0.05, 30), (0.01, 0.01, 460)]
)
def test_plan_is_the_smallest_n_with_unanimity_below_alpha(
    bound: float, alpha: float, n: int
) -> None:
    assert plan(bound, alpha).per_side == n == math.ceil(math.log(alpha) / math.log(1 - bound)) + 1
