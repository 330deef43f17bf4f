"""telemetry63: what a passing acceptance gate says it tested and could have detected. Its
bundle row read "recorded" and named no n; "could have shown one down to a Holm p of …" is a
p floor, not a drop size. Now the row passes and says what was tested (alpha, Holm over how
many tests, n a side), and with at least 30 units a side the pooled test's detectable drop
(power 0.8, one-sided at alpha / tests) is stated, checked here against the closed form
computed independently (exact fractions, `statistics.NormalDist`); with fewer, the text says
that its figure is the least p the permutations reach, and why no size is given."""

from __future__ import annotations

import json
import math
import random
import re
from fractions import Fraction
from pathlib import Path
from statistics import NormalDist
from typing import Any

import pytest
from cli_support import run_k3diff, run_telemetry

from k3diff.telemetry.gatemodel import SideUnits
from k3diff.telemetry.permutation import permuted
from k3diff.telemetry.power import (
    MIN_UNITS_FOR_SIZE,
    SIZED_AT,
    could_detect,
    detectable_drop,
    effective_units,
)

from .test_acceptance_gate import BASE_RATES, _sample, servers

__all__ = ["servers"]

Units = list[tuple[int, int]]


def _closed_form(base: Units, patch: Units, alpha: float, tests: int) -> float:
    """(z(1 - alpha / tests) + z(power)) x s / d x sqrt(1 / n_b + 1 / n_p): s^2 the units'
    squared residuals from the pooled rate over n - 1, d the mean drafted tokens a unit."""
    units = base + patch
    n = len(units)
    rate = Fraction(sum(a for a, _ in units), sum(d for _, d in units))
    spread = sum((a - rate * d) ** 2 for a, d in units) / (n - 1)
    mean = Fraction(sum(d for _, d in units), n)
    normal = NormalDist()
    assert SIZED_AT == 0.9  # sized at 0.9, stated at power 0.8 (k3diff.telemetry.power)
    z = normal.inv_cdf(1 - alpha / tests) + normal.inv_cdf(0.9)
    return z * math.sqrt(spread / mean**2 * (Fraction(1, len(base)) + Fraction(1, len(patch))))


def _units(rng: random.Random, n: int, rate: float) -> Units:
    """Overdispersed units: each request's own rate, drafted tokens of every length."""
    found = []
    for _ in range(n):
        own = min(1.0, max(0.0, rng.gauss(rate, 0.1)))
        drafted = rng.randint(20, 200)
        found.append((sum(rng.random() < own for _ in range(drafted)), drafted))
    return found


@pytest.mark.parametrize(("alpha", "tests"), [(0.05, 1), (0.05, 5), (0.01, 65), (0.2, 17)])
def test_the_detectable_drop_is_the_closed_form(alpha: float, tests: int) -> None:
    rng = random.Random(tests)
    base, patch = _units(rng, 50, 0.6), _units(rng, 67, 0.55)
    drop = detectable_drop(base, patch, alpha, tests)
    assert drop == pytest.approx(_closed_form(base, patch, alpha, tests), rel=1e-12)


def test_no_drop_size_below_30_units_a_side_or_without_spread() -> None:
    rng = random.Random(1)
    assert MIN_UNITS_FOR_SIZE == 30
    assert detectable_drop(_units(rng, 29, 0.6), _units(rng, 40, 0.6), 0.05, 5) is None
    even = [(a, 100) for a, _ in _units(rng, 30, 0.6)]  # 30 units drafting alike: 30 effective
    assert detectable_drop(even, even[::-1], 0.05, 5) is not None
    assert detectable_drop([(3, 4)] * 30, [(6, 8)] * 30, 0.05, 5) is None  # every rate 3/4


def test_the_stated_drop_is_found_with_about_its_power() -> None:
    """40 units a side, a drop of the size stated (computed from null data of the same
    units' distribution): the pooled permutation test finds it at alpha 0.05 / 5 in at least
    the 80 % its text claims of 60 simulated runs (53 here; sized asking the approximation for
    0.8, as before stop 63, the drop was found in 46: a claim the test fell short of)."""
    rng = random.Random(63)
    null = _units(rng, 40, 0.6), _units(rng, 40, 0.6)
    drop = detectable_drop(*null, 0.05, 5)
    assert drop is not None and 0.02 < drop < 0.3
    found = 0
    for _ in range(60):
        base, patch = _units(rng, 40, 0.6), _units(rng, 40, 0.6 - drop)
        found += permuted(base, patch)[0] <= 0.05 / 5
    assert 48 <= found <= 59, found  # the claimed power, 0.8 x 60 = 48, met


def test_a_passing_gate_with_few_units_says_its_figure_is_a_p_floor(
    servers: Any, tmp_path: Path
) -> None:
    log = _sample(tmp_path, servers(BASE_RATES, BASE_RATES), repeats=4)
    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 0 and doc["acceptance_gate"]["findings"] == [], text
    assert (
        "these units could have shown one down to a Holm p of 0.000389: the least p a "
        "permutation of them reaches times 5 tests, a p floor, not a drop size (a drop size at "
        "power 0.8 is not stated: the normal approximation it needs does not hold below 30 "
        "units a side (pooled: 8 base, 8 patch))"
    ) in text
    (tmp_path / "t.json").write_text(json.dumps(doc))
    result = run_k3diff("report", "t.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    (row,) = (line for line in report.splitlines() if line.startswith("| telemetry/coverage"))
    assert row.startswith("| telemetry/coverage | pass |"), row
    assert (
        "--fail-on acceptance-drop passed: no drop found at alpha 0.05, Holm over 5 permutation tests "
        "(pooled and 4 draft positions) over units (vLLM windows); pooled, 8 base and 8 patch "
        "units |"  # what a unit is, and a noun after the counts (newuser63b)
    ) in row
    assert "a p floor, not a drop size" in report
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    assert "telemetry" in json.dumps(summary)


def test_a_passing_gate_with_30_units_a_side_states_its_drop(servers: Any, tmp_path: Path) -> None:
    log = _sample(tmp_path, servers(BASE_RATES, BASE_RATES), repeats=15)
    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 0 and doc["acceptance_gate"]["findings"] == [], text
    units = {u["side"]: [tuple(t) for t in u["tokens"] if t[1]] for u in doc["acceptance_units"]}
    assert len(units["base"]) == len(units["patch"]) == 30
    expected = _closed_form(units["base"], units["patch"], 0.05, 5)
    said = re.search(r"could have detected a drop of ([0-9.]+) percentage points", text)
    assert said is not None, text
    assert float(said.group(1)) == pytest.approx(100 * expected, rel=5e-3)  # 3 digits shown
    assert "with power 0.8: the normal approximation of the pooled permutation test, " in text
    assert "one-sided at alpha / 5 tests, from the spread of its 30 base and 30 patch units" in text
    (tmp_path / "t.json").write_text(json.dumps(doc))
    result = run_k3diff("report", "t.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert f"could have detected a drop of {said.group(1)} percentage points" in report
    assert "Holm over 5 permutation tests (pooled and 4 draft positions) over units" in report


def _heavy(rng: random.Random, n: int, rate: float) -> Units:
    """vLLM windows of 50-200 drafted tokens, one in ten of 5,000-20,000 (a busy window)."""
    found = []
    for _ in range(n):
        drafted = rng.randint(5_000, 20_000) if rng.random() < 0.1 else rng.randint(50, 200)
        own = min(1.0, max(0.0, rng.gauss(rate, 0.1)))
        found.append((round(own * drafted), drafted))
    return found


def test_no_drop_size_where_a_few_units_hold_most_drafted_tokens() -> None:
    """review63c: 30 windows a side, 3 of them busy, are 30 units but about 4 as the pooled
    rate weighs them; the drop stated for such units "with power 0.8" was found in 210 of 400
    simulated runs (0.53), so no size is stated, and the text says why."""
    rng = random.Random(5)
    base, patch = _heavy(rng, 30, 0.7), _heavy(rng, 30, 0.7)
    base[0], patch[0] = (7_000, 10_000), (14_000, 20_000)  # at least one busy window a side
    assert min(effective_units(base), effective_units(patch)) < MIN_UNITS_FOR_SIZE
    assert detectable_drop(base, patch, 0.05, 9) is None
    assert effective_units([(1, 100)] * 30) == pytest.approx(30)
    sides = {
        side: SideUnits("vllm", 30, tuple(units), ())
        for side, units in (("base", base), ("patch", patch))
    }
    text = could_detect(sides, 0.05, tests=9, pooled=True, block=1, least=0.0009)
    assert "a p floor, not a drop size" in text, text
    assert "as the pooled rate weighs them by drafted tokens (effective: " in text, text


def test_no_drop_size_where_the_pooled_test_cannot_reach_alpha_over_the_tests() -> None:
    """review63c: at alpha 0.0005 over 9 tests the pooled test (40 units a side, 9,999 drawn
    splits, p at least 1e-4) finds nothing, yet a drop "with power 0.8" was stated."""
    rng = random.Random(8)
    even = [(a, 100) for a, _ in _units(rng, 40, 0.6)]
    sides = {side: SideUnits("vllm", 40, tuple(even), ()) for side in ("base", "patch")}
    assert detectable_drop(even, even, 0.0005, 9) is not None  # the normal approximation alone
    text = could_detect(sides, 0.0005, tests=9, pooled=True, block=1, least=9e-4)
    assert "a p floor, not a drop size" in text, text
    assert "the pooled test's least p, 0.0001, is above alpha / 9 tests" in text, text
    assert "could have detected" in could_detect(
        sides, 0.05, tests=9, pooled=True, block=1, least=9e-4
    )
