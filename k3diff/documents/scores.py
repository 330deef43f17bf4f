"""The paired eval-score tests inside `k3diff.responses/1` (`summary.scores`, and `noise` for
`--base-rerun`): their JSON form. Their typed reader is `k3diff.responses.scoresview`, beside the
comparison's (`k3diff.responses.document`)."""

from __future__ import annotations

from typing import Any

from k3diff.responses.gatedecision import MetricDecision, decision_sentence
from k3diff.responses.scoregate import GATE, GATE_RULE, ScoreGate
from k3diff.responses.scores import (
    NoiseBand,
    ScoresReport,
    ScoreTest,
    sentence,
)


def score_test_json(test: ScoreTest, alpha: float, power: float) -> dict[str, Any]:
    """One metric's test."""
    return {
        "metric": test.metric,
        "filter": test.group,
        "kind": test.kind.value,
        "test": test.test,
        "n": test.n,
        "base_mean": test.base_mean,
        "patch_mean": test.patch_mean,
        "difference": test.difference,
        "lost": test.lost,
        "gained": test.gained,
        "p": test.p,
        "p_adjusted": test.p_adjusted,
        "direction": test.direction.value,
        "significant": test.significant,
        "fails": test.fails,
        "mde": test.mde,
        "higher_is_better": test.higher_is_better,
        **({"records": test.records, "epochs": test.epochs} if test.records is not None else {}),
        **({"binary_epochs": True} if test.binary_epochs else {}),
        "sentence": sentence(test, alpha, power),
    }


def scores_json(report: ScoresReport | None) -> dict[str, Any] | None:
    """`summary.scores` (null when no item carries a score)."""
    if report is None:
        return None
    unscored = {"unscored": list(report.unscored)} if report.unscored else {}
    return {
        "alpha": report.alpha,
        "power": report.power,
        "correction": report.correction,
        "binary_test": "McNemar's exact test: scipy.stats.binomtest(lost, lost + gained, 0.5)",
        "continuous_test": "Wilcoxon signed-rank: scipy.stats.wilcoxon(patch - base), "
        "zero differences dropped, two-sided",
        "binary_mde": report.binary_mde,
        "continuous_mde": report.continuous_mde,
        "one_sided": report.one_sided,
        "tests": [score_test_json(t, report.alpha, report.power) for t in report.tests],
        **unscored,
    }


def noise_json(band: NoiseBand | None) -> dict[str, Any] | None:
    """The top-level `noise` object (null without `--base-rerun`)."""
    if band is None:
        return None
    return {
        "path": band.path,
        "format": band.format,
        "paired": band.paired,
        "differing": band.differing,
        "fails": False,
        "scores": scores_json(band.scores),
    }


def _decision_json(decided: MetricDecision, gate: ScoreGate) -> dict[str, Any]:
    return {
        "metric": decided.metric,
        "filter": decided.group,
        "kind": decided.kind.value,
        "decision": decided.decision.value,
        "n": decided.n,
        "tolerance": decided.tolerance,
        "mde": decided.mde,
        "observed_drop": decided.observed_drop,
        "items_needed": decided.items_needed,
        "sentence": decision_sentence(decided, gate.level, gate.power),
    }


def gate_json(gate: ScoreGate | None) -> dict[str, Any] | None:
    """The top-level `score_gate` object (null without `--fail-on score-drop`)."""
    if gate is None:
        return None
    return {
        "gate": GATE,
        "tolerance_points": gate.options.tolerance_points,
        "tolerances": [{"metric": m, "value": v} for m, v in gate.options.tolerances],
        "alpha": gate.alpha,
        "level": gate.level,
        "power": gate.power,
        "rule": GATE_RULE,
        "decisions": [_decision_json(d, gate) for d in gate.decisions],
        "findings": [
            {"name": f.name, "metric": f.label, "detail": f.detail} for f in gate.findings
        ],
        "passes": not gate.findings,
    }
