"""A continuous metric over too few items for the signed-rank test to reject anything is never
passed on a closed-form MDE (stats64).

The gate passes a metric whose MDE at its level is within the tolerance. For a continuous
metric that MDE is the paired t-test's closed form scaled for the signed-rank test, which
exists at any n ≥ 2 with a spread; but the two-sided signed-rank test of n items gives p ≥
2 / 2^n, so below 6 items at 0.05 (7 at 0.025) no drop of any size is detected, and the gate
passed 5 items "could detect a change of 0.00266 at level 0.05 with 80 % power"."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from scipy import stats

from .eval_logs import inspect_sample, write_eval_log
from .test_score_gate import GATE, _run

TOLERANCE = ("--score-tolerance", "judge=0.02")


def _varying(tmp_path: Path, n: int) -> None:
    """n inspect samples a `judge` (continuous) scored 0.5 in the base and 0.5 ± a few
    thousandths in the patch: the differences vary, so the closed form gives an MDE."""
    shifts = _shifts(n)
    base = [inspect_sample(i, 1, f"Q{i}", f"a{i}", {"judge": 0.5}) for i in range(n)]
    patch = [
        inspect_sample(i, 1, f"Q{i}", f"b{i}", {"judge": 0.5 + s}) for i, s in enumerate(shifts)
    ]
    write_eval_log(tmp_path / "base.eval", base)
    write_eval_log(tmp_path / "patch.eval", patch)


def _shifts(n: int) -> list[float]:
    return [0.001 * (-1) ** i * (1 + i % 3) for i in range(n)]


def _judge(document: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    (test,) = [t for t in document["summary"]["scores"]["tests"] if t["metric"] == "judge"]
    (decision,) = document["score_gate"]["decisions"]
    return test, decision


def test_five_varying_items_are_held_not_passed_on_a_closed_form(tmp_path: Path) -> None:
    # The most extreme 5 items there are (every one lower) give p = 2/32 > 0.05: scipy, exact.
    assert stats.wilcoxon([-1.0, -2.0, -3.0, -4.0, -5.0]).pvalue == 0.0625
    _varying(tmp_path, 5)
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE, *TOLERANCE)
    test, decision = _judge(document)
    assert test["n"] == 5 and (test["lost"], test["gained"]) == (2, 3)
    assert test["mde"] is None and decision["mde"] is None
    assert (code, decision["decision"]) == (1, "score-undecided")
    assert "no detectable change can be sized" in decision["sentence"]
    # The document is what `report` recounts: held there too, not refused.
    (tmp_path / "cmp.json").write_text(json.dumps(document))
    bundle = run_k3diff("report", "cmp.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr


def test_six_items_reach_the_level_and_keep_their_mde(tmp_path: Path) -> None:
    # 6 items all one way: p = 2/64 <= 0.05, so the test can reject and its MDE is stated.
    assert stats.wilcoxon([-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]).pvalue == 0.03125
    _varying(tmp_path, 6)
    code, document = _run(tmp_path, "base.eval", "patch.eval", *GATE, *TOLERANCE)
    test, decision = _judge(document)
    assert test["mde"] is not None and decision["mde"] == test["mde"]
    assert (code, decision["decision"]) == (0, "pass")


def test_a_forged_pass_over_five_items_is_refused(tmp_path: Path) -> None:
    """The pass base64 wrote for 5 varying items (its MDE stated, the decision pass) is what a
    document of an older k3diff holds: `report` recounts the gate and does not pass it."""
    _varying(tmp_path, 5)
    _, document = _run(tmp_path, "base.eval", "patch.eval", *GATE, *TOLERANCE)
    test, decision = _judge(document)
    # The closed form base64 stated: (z(0.975) + z(0.8)) · sd / √5 · √(π/3), 0.00266.
    differences = [0.001 * (-1) ** i * (1 + i % 3) for i in range(5)]
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    closed = z * statistics.stdev(differences) / math.sqrt(5) * math.sqrt(math.pi / 3)
    assert round(closed, 5) == 0.00266
    test["mde"] = decision["mde"] = closed
    decision["decision"] = "pass"
    decision["sentence"] = (
        "judge: pass (observed rise 0.0006): no significant drop, and the run could detect a "
        f"change of {closed:.3g} at level 0.05 with 80 % power (tolerance 0.02)"
    )
    (tmp_path / "forged.json").write_text(json.dumps(document))
    bundle = run_k3diff("report", "forged.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code == 2 and bundle.stderr.count("\n") == 1, bundle.stderr
    assert "forged.json" in bundle.stderr
