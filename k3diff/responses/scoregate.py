"""`--fail-on score-drop`: the eval gate on the scores, not on the text.

Text differences are reported and do not fail the run by themselves; each metric is decided:

- **score-drop** (fails): significantly worse, Holm at `--score-alpha`, as without the gate;
- **pass**: not significantly worse, not observed lower by more than the tolerance, and the run
  *could have seen* a drop of the tolerance: its smallest detectable difference (MDE) at the
  level every metric is guaranteed under Holm, α/m two-sided for m metrics, with 80 % power, is
  at most the tolerance; a significant improvement passes too;
- **score-undecided** (held, fails): a non-rejection the run had too little power for (MDE above
  the tolerance, or none: too few items, or differences that do not vary), said with the MDE
  and about how many items would decide it; a drop beyond the tolerance that the test did not
  find significant (a signed-rank test can miss a mean pulled down by a few items); a
  continuous metric without a tolerance in its own units (`--score-tolerance NAME=VALUE`),
  since k3diff cannot know its scale.

Never a pass with nothing scored: a gate on logs where no item carries a score on both sides is
held (`score-undecided`), as `telemetry --fail-on acceptance-drop` holds a run without
speculation counts, and so is a `--score-tolerance NAME=VALUE` naming no metric (a misspelt name
would leave its metric on the default); a metric scored on one side only (`score-one-sided`)
fails. What makes
the comparison itself unsound (nothing paired, records on one side only unless
`--allow-unpaired`, prompts that differ, failed requests) fails as it does without the gate
(`ResponsesOverview.failures`).

`decide` is the one rule: `responses` writes its result, `report` recomputes it from the
document's numbers and refuses a document that disagrees. Binary MDEs are recomputed from the
counts (the exact power, `scoretests`); a continuous one from the stated MDE at α: the
differences' spread (the MDE over the drop per unit of spread at α) times the drop per unit of
spread at the level (`signedrankpower`, the MDE's only dependence on the level).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.responses.gatedecision import Decision, MetricDecision, decision_sentence
from k3diff.responses.gatepower import (
    constant_shift,
    gate_mde,
    items_needed,
    level_for,
)
from k3diff.responses.scores import (
    Direction,
    ScoreKind,
    ScoreTest,
    direction_known,
    sentence,
)

GATE = "score-drop"
"""The `--fail-on` value."""
SCORE_UNDECIDED = "score-undecided"
SCORE_ONE_SIDED = "score-one-sided"
DEFAULT_TOLERANCE_POINTS = 2.0
"""The drop a binary metric's pass must be able to see, in points of accuracy (docs/eval-scores.md
says why 2)."""
GATE_RULE = (
    "per metric: score-drop when significantly worse (Holm p_adjusted <= alpha); else pass when "
    "significantly better or when mde <= tolerance, mde being the smallest difference "
    "detectable at level = alpha / metrics (two-sided) with the stated power (binary: exact "
    "power of McNemar's exact test at the one-sided Clopper-Pearson upper bound at alpha on "
    "the discordant rate; continuous: the mde at alpha over the drop per unit of spread at "
    "alpha, times the drop per unit of spread at level), or when every item moved by the "
    "same amount (no spread; at least the items a signed-rank test needs, 2^(1-n) <= level) "
    "and that exact drop is within the tolerance; else score-undecided (held). "
    "A metric on one side only is score-one-sided; no metric scored is score-undecided. A "
    "metric whose direction k3diff does not know is score-undecided when it moved "
    "significantly or beyond the tolerance either way; records only in the base (the patch "
    "may have lost them) hold the run. An inspect_ai sample scored in several epochs is one "
    "item, its mean over the epochs; a metric scored 0 or 1 in every epoch on both sides "
    "(binary_epochs) takes the binary default tolerance on that mean"
)
"""The rule as the JSON document states it."""


@dataclass(frozen=True)
class GateOptions:
    """`--fail-on score-drop` and `--score-tolerance`."""

    tolerance_points: float = DEFAULT_TOLERANCE_POINTS
    """Binary metrics: the drop a pass must be able to detect, in points of accuracy."""
    tolerances: tuple[tuple[str, float], ...] = ()
    """`NAME=VALUE`: per metric (every filter), always in the metric's own units (a share for a
    binary metric: `NAME=0.02` or `NAME=2pt`, the CLI turning points into units), so that no
    data (one partial grade making a binary metric continuous) changes what a value means."""

    def tolerance(self, metric: str, kind: ScoreKind, binary_epochs: bool = False) -> float | None:
        """The tolerance in the metric's units (a share for a binary metric, and for the mean of
        0/1 epochs: `ScoreTest.binary_epochs`); None: none named."""
        named = dict(self.tolerances).get(metric)
        if named is None and (kind is ScoreKind.BINARY or binary_epochs):
            return self.tolerance_points / 100
        return named


@dataclass(frozen=True)
class GateFinding:
    """Why the gate fails: score-drop, score-undecided or score-one-sided."""

    name: str
    label: str | None
    """The metric (with filter), or None for the run as a whole."""
    detail: str


@dataclass(frozen=True)
class ScoreGate:
    """`--fail-on score-drop`'s decisions and findings."""

    options: GateOptions
    alpha: float
    """`--score-alpha`, the family-wise level (Holm)."""
    level: float
    """α/m: the two-sided level every MDE is stated at."""
    power: float
    decisions: tuple[MetricDecision, ...]
    findings: tuple[GateFinding, ...]


def _decision(
    test: ScoreTest, options: GateOptions, alpha: float, level: float, power: float
) -> MetricDecision:
    tolerance = options.tolerance(test.metric, test.kind, test.binary_epochs)
    mde = gate_mde(test, alpha, level, power)
    known = direction_known(test.metric)
    # A metric whose direction is only assumed (`wer` reads as higher-is-better) may have
    # fallen where it seems to rise: neither a significant rise nor one beyond the tolerance
    # passes it.
    rose = test.significant and test.direction is Direction.BETTER
    better = rose and known
    drop = observed_drop(test)
    moved_by = drop if known else abs(drop)
    beyond = not better and tolerance is not None and moved_by > tolerance
    unknown = not known and (rose or (beyond and drop < 0))
    exact = constant_shift(test, level)
    powered = tolerance is not None and (exact or (mde is not None and mde <= tolerance))
    ambiguous = tolerance is not None and tolerance >= 1 and unit_range(test)
    if test.fails:
        decision = Decision.DROP
    elif ambiguous or unknown:
        decision = Decision.UNDECIDED
    elif better or (powered and not beyond):
        decision = Decision.PASS
    else:
        decision = Decision.UNDECIDED
    needed = None
    if decision is Decision.UNDECIDED and not powered and not unknown and not ambiguous:
        # Held for the drop it saw, a run with power enough has no item count to ask for.
        needed = items_needed(test, mde, tolerance, level, power, alpha)
    return MetricDecision(
        metric=test.metric,
        group=test.group,
        kind=test.kind,
        decision=decision,
        n=test.n,
        tolerance=tolerance,
        observed_drop=drop,
        mde=mde,
        items_needed=needed,
        ambiguous=ambiguous,
        significant_better=better,
        drop_beyond=drop if beyond and not unknown else None,
        direction_unknown=unknown,
        exact=exact,
        lost=test.lost,
        gained=test.gained,
        binary_epochs=test.binary_epochs,
        by_sample=test.records is not None,
    )


def unit_range(test: ScoreTest) -> bool:
    """The metric is scored in [0, 1]: binary, or both means there (a mean in [0, 1] with values
    outside is possible, and then a tolerance of 1 or more is only held, never more lenient)."""
    if test.kind is ScoreKind.BINARY:
        return True
    return 0 <= test.base_mean <= 1 and 0 <= test.patch_mean <= 1


def observed_drop(test: ScoreTest) -> float:
    """How far the patch's mean moved in the worse direction (negative: it improved): for a
    binary metric (lost − gained) / n, exactly; else the difference of the means."""
    if test.kind is ScoreKind.BINARY:
        return (test.lost - test.gained) / test.n
    return -test.difference if test.higher_is_better else test.difference


def decide(
    tests: Sequence[ScoreTest],
    alpha: float,
    power: float,
    one_sided: int,
    options: GateOptions,
    base_only: int = 0,
    unscored: Sequence[str] = (),
) -> ScoreGate:
    """The gate over a comparison's score tests (the one rule, see the module docstring)."""
    level = level_for(alpha, len(tests))
    decisions = tuple(_decision(test, options, alpha, level, power) for test in tests)
    findings = []
    for test, decided in zip(tests, decisions, strict=True):
        if decided.decision is Decision.DROP:
            findings.append(GateFinding(GATE, decided.label, sentence(test, alpha, power)))
        elif decided.decision is Decision.UNDECIDED:
            detail = decision_sentence(decided, level, power)
            findings.append(GateFinding(SCORE_UNDECIDED, decided.label, detail))
    findings += [
        GateFinding(
            SCORE_UNDECIDED,
            label,
            f"{label}: {SCORE_UNDECIDED}: no item holds a number for it on both sides (a corpus "
            "metric computed from every doc at once, or NaN): the gate cannot test it",
        )
        for label in unscored
    ]
    if one_sided:
        findings.append(
            GateFinding(
                SCORE_ONE_SIDED,
                None,
                f"{SCORE_ONE_SIDED}: {one_sided} item score{'s' if one_sided != 1 else ''} on "
                "one side only (a metric one run dropped or added): not tested, never a pass",
            )
        )
    metrics = {test.metric for test in tests}
    unknown = [name for name, _ in options.tolerances if name not in metrics]
    if unknown:
        # A misspelt name would leave its metric on the default: say so, never pass by it.
        findings.append(
            GateFinding(
                SCORE_UNDECIDED,
                None,
                f"{SCORE_UNDECIDED}: --score-tolerance names {', '.join(map(repr, unknown))}, "
                "which no metric scored on both sides carries",
            )
        )
    if base_only:
        # --allow-unpaired tests the docs left: a patch that lost the hard docs (a crash, a
        # timeout) would pass on the easy ones. Only-patch records take nothing from the base.
        findings.append(
            GateFinding(
                SCORE_UNDECIDED,
                None,
                f"{SCORE_UNDECIDED}: {base_only:,} record{'s' if base_only != 1 else ''} only "
                "in the base: the patch may have lost every item they hold, which no test saw "
                "(never a pass on the items left)",
            )
        )
    if not tests:
        findings.append(
            GateFinding(
                SCORE_UNDECIDED,
                None,
                f"{SCORE_UNDECIDED}: no item carries a score on both sides, so --fail-on "
                f"{GATE} has nothing to decide (never a pass with nothing scored)",
            )
        )
    return ScoreGate(options, alpha, level, power, decisions, tuple(findings))
