"""How many more samples a side a sampled `no-power` hold asks for (`more_samples`): a number a
user can act on. newuser59b followed the advice on real `transformers serve` (22 a side, the
plan's figure) and was held again with "—" for more, as the MMD test on real answers detected
only 36-38 %; and a side with one answer (no test ran) reported the greedy bound's 59 where a
sampled run needs the plan's figure."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from scipy import stats as scipy_stats

from k3diff.triage import moresamples
from triage.helpers import S, compare_texts, write_samples


def _fisher_figure(shift: float, alpha: float, power: float) -> int:
    """The least n from which the one-sided Fisher test of one new answer (K of n patch samples,
    none of the base's) keeps `power` against `shift` up to 2n, from scipy alone."""

    def powers(n: int) -> float:
        for k in range(1, n + 1):
            if scipy_stats.hypergeom.sf(k - 1, 2 * n, k, n) <= alpha + 1e-12:
                return float(scipy_stats.binom.sf(k - 1, n, shift))
        return 0.0

    n = 2
    while not all(powers(m) >= power for m in range(n, 2 * n + 1)):
        n += 1
    return n


def test_an_untested_sampled_mode_asks_for_the_plans_figure_not_the_greedy_bound(
    tmp_path: Path,
) -> None:
    cmp = compare_texts(tmp_path, {"q": ("The answer is 3.", "Z")})
    base = ["The answer is 5.", "The answer is 8.", "The answer is 1."]
    samples = [S("base", "q", t) for t in base] + [S("patch", "q", "Z")]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    record: dict[str, Any] = json.loads(result.stdout)["records"][0]
    mode = record["modes"][0]
    assert "no-power" in mode["flags"] and mode["distribution"] is None
    needed = _fisher_figure(0.35, 0.05, 0.8)
    assert needed == 18
    # The patch has one answer: the figure less that one, a least figure before correction.
    assert mode["more_samples"] == needed - 1, mode
    assert f"at least {needed - 1} more samples a side decide it" in mode["reason"]


def _settings() -> Any:
    from k3diff.triage.model import Correction, Settings

    return Settings(alpha=0.05, bound=0.05, near_tie=0.1, correction=Correction.HOLM)


def test_a_test_less_sensitive_than_the_plan_gets_a_scaled_figure() -> None:
    """At 22 a side (the plan's figure at α / 4) a test that detects only 37 % is asked for
    ⌈22 × (0.37 / 0.35)²⌉ = 25 a side, not "—"."""
    assert _fisher_figure(0.35, 0.0125, 0.8) == 22
    more, words = moresamples.to_detect(_settings(), 0.0125, 22, 0.37)
    assert more == math.ceil(22 * (0.37 / 0.35) ** 2) - 22 == 3
    assert "25 a side" in words and "1/√n" in words and "gives 22" in words


def test_the_plans_figure_stands_where_it_is_larger() -> None:
    """At 5 a side detecting 54 %, scaling says 12, the plan 22: the larger one is asked for."""
    more, words = moresamples.to_detect(_settings(), 0.0125, 5, 0.54)
    assert more == 22 - 5
    assert "22 a side" in words


def test_scaling_never_asks_for_fewer_than_one_more() -> None:
    for n in range(2, 200, 7):
        for detectable in (0.3501, 0.36, 0.5, 0.99):
            scaled = moresamples.scaled(n, detectable, 0.35)
            assert scaled is not None and scaled >= n + 1
            assert scaled >= n * (detectable / 0.35) ** 2 - 1e-9
    assert moresamples.scaled(10, 0.35, 0.35) is None
    assert moresamples.scaled(10, None, 0.35) is None


def test_a_held_run_states_the_larger_figure(tmp_path: Path) -> None:
    """Through the CLI: a sampled record whose test detects only 58 % at 6 a side, held
    no-power; its
    `more_samples` is the larger of the plan's figure at the test's level and n scaled by
    (detectable / shift)², less n, from the document's own numbers."""
    base = ["yes", "no"] * 3
    patch = ["no", "yes", "no", "yes", "no", "maybe"]
    cmp = compare_texts(tmp_path, {"q": ("yes", "maybe")})
    samples = [S("base", "q", t) for t in base] + [S("patch", "q", t) for t in patch]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    mode = json.loads(result.stdout)["records"][0]["modes"][0]
    test = mode["distribution"]
    assert "no-power" in mode["flags"] and result.exit_code == 1, mode
    n = min(mode["base"]["n"], mode["patch"]["n"])
    plan = _fisher_figure(0.35, test["level"], 0.8)
    detectable = test["detectable_shift"]
    scaled = 0 if detectable is None else math.ceil(n * (detectable / 0.35) ** 2 - 1e-9)
    assert mode["more_samples"] == max(plan, scaled, n + 1) - n, (mode["more_samples"], test)
