"""The pooled count test across a mode's greedy records (`k3diff.triage.pooled_counts`): its p
against an enumeration written here of every way to split each record's samples between the
sides, against scipy's hypergeometric laws convolved, its Monte Carlo branch against the exact
p, its size over same-distribution runs, and triage end to end (a shift spread over records
that no record's own test shows)."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from k3diff.triage import distribution as dist
from k3diff.triage import pooled_counts
from triage.helpers import triage_greedy

ALPHA = 0.05


def _statistic(patch: list[str], base: list[str]) -> int:
    """A record's term of the pooled statistic, written out here: patch samples that are not the
    base's most common output (ties: the tied output the patch gives most)."""
    counts = Counter(base)
    top = max(counts.values())
    tied = [output for output, count in counts.items() if count == top]
    return len(patch) - max(patch.count(output) for output in tied)


def _splits(patch: list[str], base: list[str]) -> list[int]:
    """The statistic of every equally likely split of the record's pooled samples into a patch
    of len(patch) and a base of len(base)."""
    pooled = [*patch, *base]
    found = []
    for chosen in itertools.combinations(range(len(pooled)), len(patch)):
        mine = [pooled[i] for i in chosen]
        theirs = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        found.append(_statistic(mine, theirs))
    return found


def test_the_pooled_p_is_the_share_of_joint_splits_scoring_at_least_the_observed() -> None:
    records = [
        (["B", "C", "C"], ["A", "A", "A", "B"]),
        (["B", "B"], ["A", "A", "B"]),
        (["A", "A", "B"], ["A", "B", "A", "A"]),
    ]
    observed = sum(_statistic(patch, base) for patch, base in records)
    per_record = [_splits(patch, base) for patch, base in records]
    joint = [sum(scores) for scores in itertools.product(*per_record)]
    expected = sum(score >= observed for score in joint) / len(joint)
    total, p, exact = pooled_counts.pooled_count_test(records)
    assert (total, exact) == (observed, True)
    assert p == pytest.approx(expected, rel=1e-12, abs=0)
    assert 0.0 < p < 1.0


def test_two_output_records_pool_as_convolved_hypergeometric_laws() -> None:
    # Base mostly A: the statistic is the patch's B count, hypergeometric given the margins.
    shapes = [(20, 2, 20, 5), (16, 1, 16, 3), (30, 3, 30, 6)]  # base n, base B, patch n, patch B
    records = [
        (["B"] * pb + ["A"] * (pn - pb), ["B"] * bb + ["A"] * (bn - bb))
        for bn, bb, pn, pb in shapes
    ]
    law = np.ones(1)
    for bn, bb, pn, pb in shapes:
        b_total = bb + pb
        law = np.convolve(law, stats.hypergeom.pmf(np.arange(pn + 1), bn + pn, b_total, pn))
    observed = sum(pb for *_, pb in shapes)
    total, p, exact = pooled_counts.pooled_count_test(records)
    assert (total, exact) == (observed, True)
    assert p == pytest.approx(law[observed:].sum(), rel=1e-9, abs=0)
    # Each record's own test says less than the pool.
    singles = [dist.count_test(patch, base)[1] for patch, base in records]
    assert min(singles) > 0.2 and p < 0.05


def test_the_monte_carlo_branch_agrees_with_the_exact_p(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [(["B"] * 5 + ["A"] * 15, ["B"] * 2 + ["A"] * 18), (["C", "B", "A"], ["A"] * 6)]
    _, exact_p, exact = pooled_counts.pooled_count_test(records)
    monkeypatch.setattr(dist, "EXACT_TABLES", 1)
    _, sampled_p, sampled_exact = pooled_counts.pooled_count_test(records, 19_999)
    assert exact and not sampled_exact
    # The Monte Carlo p's standard error at B = 19,999 is below 0.004 here.
    assert sampled_p == pytest.approx(exact_p, abs=0.015)


def test_a_patch_settling_on_one_of_a_tied_bases_outputs_adds_nothing_to_the_pool() -> None:
    # The seed scenario's records: the base gives 3 outputs in 3, the patch one of them 3 times.
    records = [(["X"] * 3, ["X", f"b{i}", f"c{i}"]) for i in range(4)]
    total, p, exact = pooled_counts.pooled_count_test(records)
    assert (total, exact) == (0, True) and p == pytest.approx(1.0)
    # The record's own test counts the tie against the patch (p = 2 / 5 each, not significant):
    # the observed patch leaves b (or c) with tail P(X_b <= 0) = 1 / 2; as extreme are the split
    # giving the patch all three X's (the observed one) and the splits giving it one X, b and c
    # (base XXX, tail P(X_X <= 1) = 1 / 5), C(4, 3) / C(6, 3) + C(4, 1) / C(6, 3).
    patch, base = records[0]
    expected = stats.hypergeom.pmf(3, 6, 4, 3) + stats.hypergeom.pmf(1, 6, 4, 3)
    assert dist.count_test(patch, base)[1] == pytest.approx(expected, rel=1e-9)


def test_a_patch_on_every_records_base_mode_scores_0_and_gets_p_1() -> None:
    records = [(["A"] * 5, ["A", "A", "B"]), (["X"] * 4, ["X", "Y", "X"])]
    total, p, _ = pooled_counts.pooled_count_test(records)
    assert total == 0 and p == pytest.approx(1.0)


def test_the_pooled_count_tests_false_positive_rate_is_within_alpha() -> None:
    rng = np.random.default_rng(5)
    runs, rejected = 300, 0
    probs = [0.7, 0.2, 0.1]
    for _ in range(runs):
        records = [
            (
                list(rng.choice(["A", "B", "C"], 10, p=probs)),
                list(rng.choice(["A", "B", "C"], 10, p=probs)),
            )
            for _ in range(4)
        ]
        rejected += pooled_counts.pooled_count_test(records)[1] <= ALPHA
    assert rejected <= stats.binom.ppf(0.999, runs, ALPHA)


def test_triage_flags_a_shift_spread_over_greedy_records(tmp_path: Path) -> None:
    # Each record: base 1 B in 12, patch 4 B in 12 (one-sided p 0.16 alone); six records.
    cases = {f"q{i}": (["A"] * 11 + ["B"], ["B"] * 4 + ["A"] * 8) for i in range(6)}
    document = triage_greedy(tmp_path, cases)
    code = document["exit"]
    single = stats.hypergeom.sf(3, 24, 5, 12)
    law = np.ones(1)
    for _ in cases:
        law = np.convolve(law, stats.hypergeom.pmf(np.arange(13), 24, 5, 12))
    pooled = law[24:].sum()
    assert single > ALPHA and pooled * 7 < ALPHA  # Holm: the pooled p is the least of 7
    assert code == 1
    assert document["distribution_tests"] == 7
    for record in document["records"]:
        assert record["category"] == "distribution-shift", record["reason"]
        test = record["modes"][0]["distribution"]
        assert test["test"] == "counts" and test["pooled_records"] == 6
        assert test["p"] == pytest.approx(single, rel=1e-9, abs=0)
        assert test["p_adjusted"] > ALPHA
        assert test["pooled_p"] == pytest.approx(pooled, rel=1e-9, abs=0)
        assert test["pooled_p_adjusted"] == pytest.approx(7 * pooled, rel=1e-9, abs=0)
        assert "pooled over 6 records (count statistics summed; exact" in record["reason"]


def test_a_pooled_count_rejection_spares_a_record_on_the_bases_mode(tmp_path: Path) -> None:
    cases = {f"q{i}": (["A"] * 11 + ["B"], ["B"] * 9 + ["A"] * 3) for i in range(3)}
    cases["calm"] = (["A"] * 11 + ["B"], ["A"] * 12)
    document = triage_greedy(tmp_path, cases)
    code = document["exit"]
    assert code == 1
    calm = next(r for r in document["records"] if r["key"] == "calm")
    assert calm["modes"][0]["distribution"]["pooled_p_adjusted"] <= ALPHA
    assert calm["category"] == "base-nondeterminism", calm["reason"]
    assert "its patch gave only the base's most common output" in calm["reason"]
