"""The paired eval-score tests inside `k3diff.responses/1` (`summary.scores`, and `noise` for
`--base-rerun`): their JSON form. Their typed reader is `k3diff.responses.scoresview`, beside the
comparison's (`k3diff.responses.document`)."""

from __future__ import annotations

from typing import Any

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
        "sentence": sentence(test, alpha, power),
    }


def scores_json(report: ScoresReport | None) -> dict[str, Any] | None:
    """`summary.scores` (null when no item carries a score)."""
    if report is None:
        return None
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
