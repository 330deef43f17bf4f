"""Property tests on random sample tables: categories agree with the counts, and no verdict
claims more certainty than its n allows."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.correction import holm
from k3diff.triage import stats
from k3diff.triage.classify import decide, evidence
from k3diff.triage.model import Category, Correction, Settings
from k3diff.triage.observations import Adjusted, SideObservations

SETTINGS = Settings(alpha=0.05, bound=0.05, near_tie=0.1, correction=Correction.HOLM)
outputs = st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "c"])), max_size=12)
captured = st.one_of(st.none(), st.sampled_from(["a", "b"]))
alphas = st.floats(min_value=0.001, max_value=0.5)


@settings(max_examples=300, deadline=None)
@given(outputs, captured, outputs, captured, alphas)
def test_categories_agree_with_counts(
    base_seq: list[str | None],
    base_cap: str | None,
    patch_seq: list[str | None],
    patch_cap: str | None,
    alpha: float,
) -> None:
    config = Settings(alpha=alpha, bound=0.05, near_tie=0.1, correction=Correction.HOLM)
    base = SideObservations(tuple(base_seq), base_cap)
    patch = SideObservations(tuple(patch_seq), patch_cap)
    ev = evidence("serial", base, patch, config)
    novelty_p = None if ev.novelty is None else ev.novelty.p
    verdict = decide(ev, Adjusted(ev.p, novelty_p), config)
    for name, side, obs in (("base", verdict.base, base), ("patch", verdict.patch, patch)):
        assert side.n == len(obs.outputs) and side.errors == obs.errors
        assert side.distinct == len(set(obs.outputs))
        if side.distinct >= 2:
            assert not side.stable
            stable_claims = {
                "base": {
                    Category.PATCH_NONDETERMINISM,
                    Category.MATCH,
                    Category.DETERMINISTIC_DIVERGENCE,
                },
                "patch": {
                    Category.BASE_NONDETERMINISM,
                    Category.MATCH,
                    Category.DETERMINISTIC_DIVERGENCE,
                },
            }[name]
            assert verdict.category not in stable_claims
        # Never more certain than n allows: the bound is at least 1 - α^(1/(n-1)).
        if side.n >= 2:
            assert side.nonmodal_bound >= 1 - alpha ** (1 / (side.n - 1)) - 1e-12
        else:
            assert side.nonmodal_bound == 1.0
        low, high = side.deviation_ci
        assert 0.0 <= low <= high <= 1.0
        if side.n >= 2:
            rate = (side.n - side.modal) / (side.n - 1)
            assert low - 1e-12 <= rate <= high + 1e-12
    if verdict.base.n < 2 or verdict.patch.n < 2:
        assert verdict.category is Category.INCONCLUSIVE
    if verdict.category in (Category.MATCH, Category.DETERMINISTIC_DIVERGENCE):
        assert verdict.base.stable and verdict.patch.stable
    # more_samples = 0 only when every side not proven unstable is already bounded by B; None
    # (shown "—") when both sides are proven unstable: no number of samples bounds a side then,
    # and 0 beside a patch bound of 1.00 read as "no more samples needed" (polish58 item 3).
    needed = stats.samples_for_bound(0.05, alpha)
    both_unstable = verdict.base.unstable and verdict.patch.unstable
    assert (ev.more_samples is None) == both_unstable
    for side in (verdict.base, verdict.patch):
        if not side.unstable:
            assert ev.more_samples is not None and ev.more_samples >= needed - side.n
    if ev.more_samples == 0:
        for side in (verdict.base, verdict.patch):
            assert side.unstable or side.nonmodal_bound <= 0.05 + 1e-12
    fisher = ev.p is not None and ev.p <= alpha
    novel = novelty_p is not None and novelty_p <= alpha
    assert verdict.regression_candidate == (
        verdict.category in (Category.DETERMINISTIC_DIVERGENCE, Category.PATCH_OUTSIDE_BASE)
        or (verdict.category is Category.PATCH_NONDETERMINISM and (fisher or novel))
    )
    # base-nondeterminism excuses only a patch whose every output the base gave.
    if verdict.category is Category.BASE_NONDETERMINISM:
        assert verdict.patch.outputs <= verdict.base.outputs
    if verdict.category is Category.PATCH_OUTSIDE_BASE:
        assert not verdict.patch.outputs <= verdict.base.outputs and novel


tables = st.lists(st.sampled_from("abcdef"), min_size=1, max_size=14)


@settings(max_examples=300, deadline=None)
@given(tables, st.data(), st.sampled_from(["serial", "concurrent"]), alphas)
def test_a_patch_more_stable_than_the_base_on_its_outputs_never_scores(
    base_seq: list[str], data: st.DataObject, mode: str, alpha: float
) -> None:
    """Whatever the base did, a patch that gives only outputs the base gave, and no more
    distinct ones, is never a regression candidate, in any mode, under any correction."""
    base_outputs = sorted(set(base_seq))
    patch_pool = data.draw(
        st.lists(st.sampled_from(base_outputs), min_size=1, max_size=len(base_outputs))
    )
    patch_seq = data.draw(st.lists(st.sampled_from(patch_pool), min_size=1, max_size=14))
    assert len(set(patch_seq)) <= len(set(base_seq))
    config = Settings(alpha=alpha, bound=0.05, near_tie=0.1, correction=Correction.HOLM)
    ev = evidence(
        mode, SideObservations(tuple(base_seq)), SideObservations(tuple(patch_seq)), config
    )
    assert ev.novelty is None or (ev.novelty.statistic == 0 and ev.novelty.p == 1.0)
    # Even with every p as small as the family allows, nothing scores.
    for fisher in (None, ev.p, 0.0):
        verdict = decide(ev, Adjusted(fisher, 0.0 if ev.novelty else None), config)
        if len(set(patch_seq)) < 2 or fisher is None or fisher > alpha:
            assert not verdict.regression_candidate, verdict.reason
        assert verdict.category not in (
            Category.PATCH_OUTSIDE_BASE,
            Category.DETERMINISTIC_DIVERGENCE,
        )


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=0.001, max_value=0.9), st.floats(min_value=0.001, max_value=0.5))
def test_samples_for_bound_is_the_smallest_sufficient_n(bound: float, alpha: float) -> None:
    n = stats.samples_for_bound(bound, alpha)
    assert (1 - bound) ** (n - 1) <= alpha * (1 + 1e-9)
    if n > 2:
        assert (1 - bound) ** (n - 2) > alpha * (1 - 1e-9)
    achieved = stats.nonmodal_upper_bound(stats.Deviations.of(n, n), alpha)
    assert achieved <= bound + 1e-9


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=20))
def test_holm_matches_its_definition_and_bh_is_never_stricter(pvalues: list[float]) -> None:
    adjusted = holm(pvalues)
    m = len(pvalues)
    ordered = sorted(pvalues)
    for p, adj in zip(pvalues, adjusted, strict=True):
        rank = ordered.index(p)
        expected = max(min(1.0, (m - j) * ordered[j]) for j in range(rank + 1))
        assert math.isclose(adj, expected, abs_tol=1e-12)
        assert adj >= p
    for holm_p, bh_p in zip(adjusted, stats.benjamini_hochberg(pvalues), strict=True):
        assert bh_p <= holm_p + 1e-12
