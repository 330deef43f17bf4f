"""`triage --plan` states what the MMD test itself detects at the planned n and level, where
that can be said without the texts: a base that gives one answer (small79; aa78 documented
only that the plan's figure was the count test's, while a run whose texts are logged is judged
by the MMD). Its figure is checked against an independent computation (scipy's two-sided
Fisher p for each count, the Monte Carlo acceptance from the binomial law of B labellings), and
that p against the code's own MMD test; the plan says that a base whose answers vary is not
covered."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
from cli_support import run_k3diff
from scipy import stats

from k3diff.triage.distribution import mmd_test


def _plan(*args: str) -> dict[str, Any]:
    result = run_k3diff("triage", "--plan", *args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    plan: dict[str, Any] = json.loads(result.stdout)["plan"]
    return plan


def _power(n: int, shift: float, level: float, permutations: int) -> float:
    """The Monte Carlo MMD test's power, the base giving one answer: K ~ Binomial(n, shift) new
    answers among the patch's n, none among the base's; each labelling scores at least the
    observed with the two-sided Fisher p of that table; the test rejects when at most
    floor(level (1 + B)) - 1 of B labellings do."""
    allowed = math.floor(level * (1 + permutations) * (1 + 1e-12)) - 1
    total = 0.0
    for k in range(1, n + 1):
        p = stats.fisher_exact([[k, n - k], [0, n]], alternative="two-sided").pvalue
        total += stats.binom.pmf(k, n, shift) * stats.binom.cdf(allowed, permutations, p)
    return float(total)


def test_the_plan_states_the_mmd_figure_for_a_base_of_one_answer() -> None:
    # One prompt at α = 0.05: the level α / 2 = 0.025, B = 1,999 (the floor: 20 / 0.025 - 1 =
    # 799); 3 prompts: α / 2 / 4 = 0.00625, B = 20 × 4 / 0.025 - 1 = 3,199.
    for args, level, permutations, count in (
        ((), 0.025, 1_999, 18),
        (("--prompts", "3"), 0.00625, 3_199, 25),
        (("--shift", "0.5", "--power", "0.9"), 0.025, 1_999, None),
    ):
        plan = _plan(*args)
        assert plan["level"] == level
        if count is not None:
            assert plan["per_prompt"] == count
        figure, shift, power = plan["per_prompt_mmd"], plan["shift"], plan["power"]
        assert _power(figure - 1, shift, level, permutations) < power, args
        for n in range(figure, 2 * figure + 1):
            assert _power(n, shift, level, permutations) >= power, (args, n)
        assert figure > plan["per_prompt"]  # a two-sided test of the same count


def test_the_codes_mmd_p_is_the_two_sided_count_p_for_a_base_of_one_answer() -> None:
    """What the figure rests on: the code's own MMD test of a base answering one text and a
    patch giving another K of n times has the two-sided Fisher p of that count (within 4
    standard errors of its B = 1,999 labellings), whatever the two texts."""
    n = _plan()["per_prompt_mmd"]
    rng = np.random.default_rng(79)
    for moved, other in ((4, "I cannot say."), (6, "The answer is 43."), (9, "42")):
        patch = ["The answer is 42."] * (n - moved) + [other] * moved
        drawn = mmd_test(patch, ["The answer is 42."] * n, rng, 1_999).p
        exact = stats.fisher_exact([[moved, n - moved], [0, n]], alternative="two-sided").pvalue
        assert math.isclose(exact, 2 * math.comb(n, moved) / math.comb(2 * n, moved))
        spread = math.sqrt(exact * (1 - exact) / 1_999) + 1 / 2_000
        assert abs(drawn - exact) <= 4 * spread, (moved, drawn, exact)


def test_the_plan_says_a_varying_base_is_not_covered() -> None:
    result = run_k3diff("triage", "--plan")
    assert result.exit_code == 0, result.stderr
    said = result.stdout
    assert "the MMD test, which judges a sampled run whose texts are logged, needs 22 per side" in (
        said
    )
    assert "where the base gives one answer" in said
    assert "where the base's answers vary it needs more" in said
    assert "that case is not covered by the plan" in said


def test_a_level_below_the_least_p_is_said_to_reject_at_no_n() -> None:
    """At α / 2 over 300,003 tests the level is below 1 / 100,000, the least p the most
    permutations give: the MMD test rejects at no n, and the plan says so (null figure)."""
    plan = _plan("--prompts", "100000", "--modes", "3")
    assert plan["per_prompt_mmd"] is None
    result = run_k3diff("triage", "--plan", "--prompts", "100000", "--modes", "3")
    assert "rejects at no n here: its least p, 1 / 100,000" in result.stdout
