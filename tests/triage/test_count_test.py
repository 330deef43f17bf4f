"""The count test combines two scores against each table's own base mode (the patch samples
off it, and the hypergeometric tail of the patch's count of it) by the smaller of their
p-values: a valid exact conditional test (under the null its rejection rate is at most α,
computed exactly here), equal to its definition written out with scipy, and with the power of a
Fisher test where the off count alone had none (base 17 X / 3 Y against patch 6 X / 14 Y:
p = 0.1007 before, 1.06e-3 now)."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from k3diff.triage import distribution as dist
from triage.helpers import triage_greedy
from triage.test_distribution import two_output_p

ALPHA = 0.05


def exact_p(base: list[str], patch: list[str]) -> float:
    """The count test's p written out for any number of outputs: every patch count vector with
    the margins (itertools), weighed by `scipy.stats.multivariate_hypergeom`; per table, the
    patch samples off its own base mode (a tie: the mode the patch gives least) and the
    hypergeometric tail of the patch's count of it (a tie: the smallest); each score's p-value
    over the tables, the smaller of the two per table, and p the mass at most the observed."""
    names = sorted({*base, *patch})
    pooled = [base.count(o) + patch.count(o) for o in names]
    size, total = len(patch), sum(pooled)
    tables = [t for t in itertools.product(*(range(c + 1) for c in pooled)) if sum(t) == size]
    law = stats.multivariate_hypergeom(pooled, size)
    mass = {t: float(law.pmf(list(t))) for t in tables}

    def scores(t: tuple[int, ...]) -> tuple[int, float]:
        rest = [c - x for c, x in zip(pooled, t, strict=True)]
        modes = [j for j, r in enumerate(rest) if r == max(rest)]
        off = max(size - t[j] for j in modes)
        tail = min(float(stats.hypergeom.cdf(t[j], total, pooled[j], size)) for j in modes)
        return off, tail

    scored = {t: scores(t) for t in tables}

    def smaller_p(t: tuple[int, ...]) -> float:
        off, tail = scored[t]
        by_off = sum(m for u, m in mass.items() if scored[u][0] >= off)
        by_tail = sum(m for u, m in mass.items() if scored[u][1] <= tail * (1 + 1e-7))
        return min(by_off, by_tail)

    counts = Counter(patch)
    observed = smaller_p(tuple(counts[o] for o in names)) * (1 + 1e-7)
    return min(1.0, sum(m for t, m in mass.items() if smaller_p(t) <= observed))


def test_a_patch_moving_to_the_bases_rare_output_is_a_regression_candidate(
    tmp_path: Path,
) -> None:
    base, patch = ["X"] * 17 + ["Y"] * 3, ["X"] * 6 + ["Y"] * 14
    counted, p, exact = dist.count_test(patch, base)
    # One-sided Fisher on the observed base's mode (X), plus the mirrored tail: the tables whose
    # base mode is Y with a patch at most as likely to leave it (the swapped-sides table, 17 X /
    # 3 Y on the patch, and beyond).
    fisher = stats.fisher_exact([[14, 6], [3, 17]], alternative="greater")[1]
    assert fisher == pytest.approx(stats.hypergeom.sf(13, 40, 17, 20), rel=1e-12)
    mirrored = stats.hypergeom.sf(16, 40, 23, 20)
    assert (counted, exact) == (14, True)
    assert p == pytest.approx(fisher + mirrored, rel=1e-9, abs=0)
    assert p == pytest.approx(two_output_p(base, patch), rel=1e-9, abs=0)
    assert p < 0.0011  # the raw-count statistic gave 0.1007
    document = triage_greedy(tmp_path, {"q": (base, patch)})
    assert document["exit"] == 1
    record = document["records"][0]
    assert record["category"] == "distribution-shift", record["reason"]
    assert record["modes"][0]["distribution"]["p"] == pytest.approx(p, rel=1e-12, abs=0)


def test_two_output_p_equals_scipys_hypergeometric_tails_on_random_tables() -> None:
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(200):
        n_base, n_patch = (int(v) for v in rng.integers(2, 40, size=2))
        base_a, patch_a = rng.uniform(0.05, 0.95, size=2)
        base = list(rng.choice(["A", "B"], size=n_base, p=[base_a, 1 - base_a]))
        patch = list(rng.choice(["A", "B"], size=n_patch, p=[patch_a, 1 - patch_a]))
        if len(set(base + patch)) < 2:
            continue
        expected = two_output_p(base, patch)
        assert dist.count_test(patch, base)[1] == pytest.approx(expected, rel=1e-9), (base, patch)
        checked += 1
    assert checked > 150


def _exact_size(shares: list[float], n: int) -> float:
    """The count test's rejection rate at ALPHA when both sides draw n samples from `shares`:
    every pair of count vectors, weighted by their multinomial probabilities (no simulation)."""
    k = len(shares)
    vectors = [v for v in np.ndindex(*(n + 1,) * k) if sum(v) == n]
    weight = {v: float(stats.multinomial.pmf(v, n, shares)) for v in vectors}

    def labels(v: tuple[int, ...]) -> list[str]:
        return [str(i) for i, c in enumerate(v) for _ in range(c)]

    return sum(
        weight[b] * weight[p]
        for b in vectors
        for p in vectors
        if dist.count_test(labels(p), labels(b))[1] <= ALPHA
    )


@pytest.mark.parametrize(
    ("shares", "n"), [([0.5, 0.5], 60), ([0.7, 0.3], 20), ([1 / 3] * 3, 8), ([0.5, 0.3, 0.2], 8)]
)
def test_under_the_null_the_rejection_rate_is_at_most_alpha(shares: list[float], n: int) -> None:
    # Exact, so no Monte Carlo allowance. A test that fixed the observed base's mode and took its
    # hypergeometric tail rejects 0.081 of such runs at 0.5 / 0.5 and n = 60 (its mode is chosen
    # by the data): the mode must be each table's own.
    assert _exact_size(shares, n) <= ALPHA


@pytest.mark.parametrize(
    ("base", "patch"),
    [
        ("AAAAAAAAABBC", "AAABBBBBBCCC"),
        ("ABCABCBC", "BBBBBBBB"),
        ("AAAABBBCCD", "AABBBCCCDD"),
        ("ABCDE", "EEEEE"),
        ("AAAAAAABBC", "AAAAAAAAAA"),
    ],
)
def test_the_p_equals_its_definition_written_out_with_scipy(base: str, patch: str) -> None:
    assert dist.count_test(list(patch), list(base))[1] == pytest.approx(
        exact_p(list(base), list(patch)), rel=1e-9, abs=1e-15
    )


def test_the_monte_carlo_branch_agrees_with_the_exact_p(monkeypatch: pytest.MonkeyPatch) -> None:
    base, patch = ["X"] * 9 + ["Y"] * 2 + ["Z"], ["X"] * 3 + ["Y"] * 6 + ["Z"] * 3
    _, exact_p, exact = dist.count_test(patch, base)
    monkeypatch.setattr(dist, "EXACT_TABLES", 1)
    resamples = 19_999
    _, sampled_p, sampled = dist.count_test(patch, base, resamples)
    assert exact and not sampled
    assert abs(sampled_p - exact_p) <= 4 * np.sqrt(exact_p * (1 - exact_p) / resamples) + 1e-4
