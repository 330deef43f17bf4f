"""`score_gate` of a `k3diff.responses/1` document (`--fail-on score-drop`) as read back, and its
check: `k3diff report` (and `triage`, through `doccheck`) recomputes every decision and finding
from the document's score tests with `scoregate.decide`, the rule `responses` wrote them by, and
refuses a document that disagrees. Its writer is `k3diff.documents.scores.gate_json`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from k3diff.fields import LEVEL, NONNEGATIVE, SHARE, SIGNED, Fields, words
from k3diff.responses.gatepower import amount, tolerance_amount
from k3diff.responses.scoregate import GATE, GateOptions, ScoreGate, decide
from k3diff.responses.scores import ScoreKind, p_text
from k3diff.responses.scoresview import ScoresView


@dataclass(frozen=True)
class StatedDecision:
    """One metric's decision as the document states it."""

    label: str
    kind: ScoreKind
    decision: str
    tolerance: float | None
    mde: float | None
    observed_drop: float
    items_needed: int | None


@dataclass(frozen=True)
class GateView:
    """`score_gate` as read back."""

    options: GateOptions
    alpha: float
    level: float
    power: float
    decisions: tuple[StatedDecision, ...]
    findings: tuple[tuple[str, str | None], ...]
    """(name, metric label or None) per finding."""
    passes: bool


def _decision(fields: Fields) -> StatedDecision:
    metric, group = fields.string("metric"), fields.optional_string("filter")
    return StatedDecision(
        label=metric if group is None else f"{metric} [{group}]",
        kind=_kind(fields),
        decision=fields.string("decision"),
        tolerance=fields.optional_number("tolerance", NONNEGATIVE),
        mde=fields.optional_number("mde", NONNEGATIVE),
        observed_drop=fields.number("observed_drop", SIGNED),
        items_needed=fields.optional_integer("items_needed"),
    )


def _kind(fields: Fields) -> ScoreKind:
    return ScoreKind(fields.string("kind", words(ScoreKind)))


def read_gate(fields: Fields | None) -> GateView | None:
    """The document's `score_gate` (None: not asked, or a document from before it)."""
    if fields is None:
        return None
    tolerances = fields.each(
        "tolerances", lambda t: (t.string("metric"), t.number("value", NONNEGATIVE))
    )
    return GateView(
        options=GateOptions(fields.number("tolerance_points", NONNEGATIVE), tolerances),
        alpha=fields.level("alpha"),
        level=fields.number("level", LEVEL),
        power=fields.number("power", SHARE),
        decisions=fields.each("decisions", _decision),
        findings=fields.each("findings", lambda f: (f.string("name"), f.optional_string("metric"))),
        passes=fields.boolean("passes"),
    )


def _close(stated: float | None, derived: float | None) -> bool:
    if stated is None or derived is None:
        return stated is derived
    return math.isclose(stated, derived, rel_tol=1e-9, abs_tol=1e-12)


def _recomputed(gate: GateView, scores: ScoresView | None, base_only: int) -> ScoreGate:
    if scores is None:
        return decide((), gate.alpha, gate.power, 0, gate.options, base_only)
    return decide(
        scores.tests,
        scores.alpha,
        scores.power,
        scores.one_sided,
        gate.options,
        base_only,
        scores.unscored,
    )


def _decision_problems(gate: GateView, derived: ScoreGate) -> list[str]:
    if len(gate.decisions) != len(derived.decisions):
        return [
            f"score gate states {len(gate.decisions)} decisions for "
            f"{len(derived.decisions)} score tests"
        ]
    problems = []
    for stated, decided in zip(gate.decisions, derived.decisions, strict=True):
        where = f"score gate {decided.label!r}"
        if stated.label != decided.label:
            problems.append(f"{where}: stated as {stated.label!r}")
        elif stated.decision != decided.decision.value:
            problems.append(
                f"{where}: decision {stated.decision!r} but its test and tolerance give "
                f"{decided.decision.value!r} (mde {decided.mde}, tolerance {decided.tolerance})"
            )
        elif not (_close(stated.mde, decided.mde) and _close(stated.tolerance, decided.tolerance)):
            problems.append(
                f"{where}: mde {stated.mde} and tolerance {stated.tolerance} but its test gives "
                f"mde {decided.mde} and tolerance {decided.tolerance}"
            )
        elif not _close(stated.observed_drop, decided.observed_drop):
            problems.append(
                f"{where}: observed_drop {stated.observed_drop} but its test gives "
                f"{decided.observed_drop}"
            )
        elif stated.items_needed != decided.items_needed:
            problems.append(
                f"{where}: items_needed {stated.items_needed} but its test gives "
                f"{decided.items_needed}"
            )
    return problems


def gate_problems(
    gate: GateView | None,
    fail_on: Sequence[str],
    scores: ScoresView | None,
    base_only: int = 0,
) -> tuple[list[str], list[str]]:
    """(the gate's findings as its tests give them, with `base_only`, the records only in the
    base, counted from the records; where the document disagrees)."""
    if gate is None:
        missing = [f"fail_on names {GATE} but score_gate is null"] if GATE in fail_on else []
        return [], missing
    problems = [] if GATE in fail_on else [f"score_gate present but fail_on lacks {GATE}"]
    derived = _recomputed(gate, scores, base_only)
    if scores is not None and (gate.alpha, gate.power) != (scores.alpha, scores.power):
        problems.append(
            f"score gate: alpha {gate.alpha:g} and power {gate.power:g}, but the score tests "
            f"were made at {scores.alpha:g} and {scores.power:g}"
        )
    if not _close(gate.level, derived.level):
        problems.append(
            f"score gate: level {gate.level:g} but alpha / metrics is {derived.level:g}"
        )
    problems += _decision_problems(gate, derived)
    failing = [f"{f.name} {f.label}" if f.label else f.name for f in derived.findings]
    stated = [f"{name} {label}" if label else name for name, label in gate.findings]
    if sorted(stated) != sorted(failing):
        problems.append(
            f"score gate lists {', '.join(stated) or 'no finding'}, but its tests give "
            f"{', '.join(failing) or 'none'}"
        )
    if gate.passes != (not failing):
        problems.append(
            f"score gate: passes is {str(gate.passes).lower()} but {len(failing)} findings"
        )
    return failing, problems


def gate_headline(gate: GateView, scores: ScoresView | None = None) -> str:
    """'score gate (--fail-on score-drop): exact_match score-undecided (tolerance 2.0 points;
    observed drop 1.0 points; the run could detect a change of 3.6 points at level 0.05; about
    394 items would decide it)', from a document already
    checked: each metric names the tolerance it was judged at (a named one, not the default);
    an epoch log's items are its samples (`scores` gives which metrics are taken by sample)."""
    by_sample = {t.label for t in scores.tests if t.records is not None} if scores else set()
    parts = []
    for stated in gate.decisions:
        item = "sample" if stated.label in by_sample else "item"  # an epoch log's: samples
        could = "the run could detect " + (
            "nothing"
            if stated.mde is None
            else f"a change of {amount(stated.kind, stated.mde)} at level {p_text(gate.level)}"
        )
        if stated.mde is None and stated.decision == "pass":
            # Only a metric whose every item moved alike passes without an MDE.
            could = f"every {item} moved by {amount(stated.kind, -stated.observed_drop)}, exactly"
        tolerance = (
            "no tolerance named"
            if stated.tolerance is None
            else f"tolerance {tolerance_amount(stated.kind, stated.tolerance)}"
        )
        drop = stated.observed_drop
        observed = (
            f"observed drop {amount(stated.kind, drop)}"
            if drop >= 0
            else f"observed rise {amount(stated.kind, -drop)}"
        )
        part = f"{stated.label} {stated.decision} ({tolerance}; {observed}; {could}"
        if stated.items_needed is not None:
            part += f"; about {stated.items_needed:,} {item}s would decide it"
        parts.append(part + ")")
    parts += [name for name, label in gate.findings if label is None]
    return f"score gate (--fail-on {GATE}): " + ("; ".join(parts) or "no metric")
