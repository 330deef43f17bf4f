"""One metric as `--fail-on score-drop` decided it (`scoregate.decide`), and the sentence that
says so: what was decided, against which tolerance, and what the run could have detected."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from k3diff.responses.gatepower import amount, tolerance_amount
from k3diff.responses.scores import ScoreKind, p_text


class Decision(StrEnum):
    """One metric's outcome under the gate."""

    PASS = "pass"
    DROP = "score-drop"
    UNDECIDED = "score-undecided"


@dataclass(frozen=True)
class MetricDecision:
    """One metric (under one filter) as the gate decided it."""

    metric: str
    group: str | None
    kind: ScoreKind
    decision: Decision
    n: int
    """Items scored on both sides."""
    tolerance: float | None
    """In the metric's units (a share for a binary metric); None: none named (continuous)."""
    observed_drop: float
    """How far the score fell, in the metric's units (negative: it rose; `observed_drop`)."""
    mde: float | None
    """The smallest difference detectable at the gate's level with its power (None: none)."""
    items_needed: int | None
    """About how many items, at the upper bound on this run's discordant rate or at its spread,
    would bring the MDE to the tolerance (None: no target, no spread, or past ITEMS_CAP; only
    for a held metric)."""
    ambiguous: bool = False
    """Held: the named tolerance is at least 1 on a metric scored in [0, 1] (its whole range:
    nothing could fail it), most likely points written without `pt`."""
    significant_better: bool = False
    """Passed off the power rule: the patch is significantly better."""
    drop_beyond: float | None = None
    """Held whatever the power: the observed drop, not significant, exceeds the tolerance (a
    signed-rank test can miss a mean pulled down by a few items); for a metric whose direction
    k3diff does not know, the observed move either way."""
    direction_unknown: bool = False
    """Held: k3diff does not know which way is better for the metric, and it moved
    significantly in the direction assumed better, or beyond the tolerance either way."""
    exact: bool = False
    """Every item moved by the same amount (`gatepower.constant_shift`): the observed drop is
    exact, and decided against the tolerance without an MDE."""
    lost: int = 0
    gained: int = 0  # the test's: McNemar counts only the items that flipped
    binary_epochs: bool = False
    """The per-sample mean of epochs scored 0 or 1 (`ScoreTest.binary_epochs`)."""
    by_sample: bool = False  # inspect_ai epochs: each item a sample (`ScoreTest.records`)

    @property
    def label(self) -> str:
        return self.metric if self.group is None else f"{self.metric} [{self.group}]"


def decision_sentence(decided: MetricDecision, level: float, power: float) -> str:
    """What the gate decided for one metric and what the run could have detected."""
    head = f"{decided.label}: {decided.decision.value}"
    at = f"at level {p_text(level)} with {100 * power:g} % power"
    tolerance = (
        "no tolerance named (--score-tolerance NAME=VALUE, in the metric's own units)"
        if decided.tolerance is None
        else f"tolerance {tolerance_amount(decided.kind, decided.tolerance)}"
    )
    if decided.binary_epochs and decided.tolerance is not None:
        points = tolerance_amount(ScoreKind.BINARY, decided.tolerance)
        tolerance += f", {points} of the per-sample mean of epochs each scored 0 or 1"
    held = decided.decision is Decision.UNDECIDED
    only = " only" if held and not (decided.drop_beyond or decided.direction_unknown) else ""
    items = "samples" if decided.by_sample else "items"  # an epoch log's items are samples
    could = (
        f"no detectable change can be sized (too few {items}, or differences that do not vary)"
        if decided.mde is None
        else f"the run could{only} detect a change of {amount(decided.kind, decided.mde)} {at}"
    )
    if decided.exact:
        could = (
            f"every one of the {decided.n:,} {items} moved by the same "
            f"{amount(decided.kind, -decided.observed_drop)}, so the drop is exact (no spread, "
            "no sampling error to size)"
        )
    if decided.decision is Decision.DROP:
        return f"{head}: significantly worse"
    if decided.ambiguous:
        named = decided.tolerance or 0.0
        return (
            f"{head}: --score-tolerance {decided.metric}={named:g} is the whole range of a "
            f"metric scored in [0, 1] (nothing could fail it): write {named:g}pt for points "
            f"or {named / 100:g} in its own units"
        )
    if decided.significant_better:
        return f"{head}: significantly better; {could}"
    if decided.decision is Decision.PASS:
        return f"{head}: no significant drop, and {could} ({tolerance})"
    if decided.direction_unknown:
        return (
            f"{head}: the score rose by {amount(decided.kind, -decided.observed_drop)}, but "
            f"k3diff does not know which way is better for {decided.metric!r} (an error rate "
            f"falls as it improves), so it may have fallen; {could} ({tolerance})"
        )
    if decided.drop_beyond is not None:
        return _beyond(decided, head, tolerance, could, at, items)
    more = ""
    if decided.items_needed is not None:
        rate = (
            "the upper bound on this run's discordant rate"
            if decided.kind is ScoreKind.BINARY
            else "this run's spread of differences"
        )
        more = f"; about {decided.items_needed:,} {items} at {rate} would decide it"
    return f"{head}: no significant drop, but {could}, {tolerance}{more}"


def _beyond(
    decided: MetricDecision, head: str, tolerance: str, could: str, at: str, items: str
) -> str:
    """A drop past the tolerance that the test did not find significant. Where the MDE exceeds
    the drop the reason is power: too few items to tell, and about how many would decide it
    (`gatepower.items_needed`, binary and continuous alike); else why the test did not find it:
    McNemar's test counts only the items that flipped, the signed-rank test ranks them."""
    assert decided.drop_beyond is not None
    binary = decided.kind is ScoreKind.BINARY
    fell = (
        f"{head}: no significant drop, but the {'accuracy' if binary else 'mean'} fell by "
        f"{amount(decided.kind, decided.drop_beyond)}, more than the {tolerance}"
    )
    flipped = decided.lost + decided.gained
    flips = (
        f"McNemar's test counts only the {flipped:,} {items if flipped != 1 else items[:-1]} "
        "that flipped"
    )
    counts = f"{decided.lost:,} lost, {decided.gained:,} gained"
    if decided.mde is not None and decided.mde > decided.drop_beyond:  # power, not the test
        needed = decided.items_needed
        more = "" if needed is None else f"; about {needed:,} {items} would decide it"
        return (
            f"{fell}, and the run could detect only a change of "
            f"{amount(decided.kind, decided.mde)} {at}: too few {items} to tell"
            + (f" ({flips}: {counts})" if binary else "")
            + more
        )
    if binary:
        return f"{fell}: {flips} ({counts}), a split it does not find significant, and {could}"
    return (
        f"{fell}, though {could}: a few {items} fell far (the test ranks the {items}, the "
        "mean weighs them)"
    )
