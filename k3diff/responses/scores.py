"""Eval scores compared as paired data: the values, the collector, and what a reviewer reads.

Every item (an lm-eval doc under one filter, an inspect_ai sample: its mean over its epochs,
`k3diff.responses.epochs`) was scored on both sides, so the two runs' scores are *paired*: the
question is whether the patch moved the score, item by item, and an unpaired comparison of two
accuracies throws that pairing away (it would not reject 12 lost and 2 gained of 220, which
McNemar's exact test does, p = 0.0129).

Per metric (and lm-eval filter), over the items scored on both sides (items whose prompts differ
are not comparable and never counted):

- **binary** metrics (every value 0 or 1 on both sides: exact_match, acc, inspect's C/I):
  McNemar's exact test, the two-sided exact binomial test of the items lost (base 1, patch 0)
  against those gained, `scipy.stats.binomtest(lost, lost + gained, 0.5)`;
- **continuous** metrics: the Wilcoxon signed-rank test of the paired differences
  (`scipy.stats.wilcoxon`, zero differences dropped, two-sided);
- Holm's step-down correction across every metric and filter of the comparison;
- the smallest difference of the mean score the run could detect at α with 80 % power
  (`scoretests` states the method of each kind).

Higher scores are better except for the metrics named in `LOWER_IS_BETTER`. A metric whose
Holm-adjusted p is at most α and that moved in the worse direction fails the run (exit 1).
The computations are in `k3diff.responses.scoretests` (scipy, imported there only).
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass
from enum import StrEnum

from k3diff.responses.model import ItemScore

DEFAULT_ALPHA = 0.05
"""The family-wise error rate of the score tests (Holm across metrics)."""
DEFAULT_POWER = 0.8
"""The power at which the smallest detectable difference is stated."""
LOWER_IS_BETTER = frozenset(
    {"perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte", "ter", "loss"}
)
"""Metrics where a lower value is the better one (lm-eval's perplexities, TER)."""
HIGHER_IS_BETTER = frozenset(
    {
        # lm-eval's per-doc metrics registered higher_is_better
        "acc",
        "acc_norm",
        "acc_mutual_info",
        "exact_match",
        "exact",
        "em",
        "f1",
        "accuracy",
        "prompt_level_strict_acc",
        "prompt_level_loose_acc",
        # inspect_ai's built-in scorers (C/I or a score of the answer)
        "match",
        "includes",
        "pattern",
        "answer",
        "choice",
        "model_graded_qa",
        "model_graded_fact",
    }
)
"""Metrics known to be better higher. Any other name is *assumed* higher-is-better (`wer`, an
error count or a custom judge may not be): the gate does not pass such a metric on a
significant move or one beyond its tolerance in either direction (`scoregate`)."""


def direction_known(metric: str) -> bool:
    """k3diff knows which way is better for `metric` (it does not guess from the name)."""
    return metric in HIGHER_IS_BETTER or metric in LOWER_IS_BETTER


BINARY_TEST = "mcnemar-exact"
CONTINUOUS_TEST = "wilcoxon-signed-rank"


class ScoreKind(StrEnum):
    """Which paired test a metric gets."""

    BINARY = "binary"
    """Every value on both sides is 0 or 1: McNemar's exact test."""
    CONTINUOUS = "continuous"
    """Any other numbers: the Wilcoxon signed-rank test."""


class Direction(StrEnum):
    """Which way the patch moved a metric, judged by what is better for it."""

    WORSE = "worse"
    BETTER = "better"
    UNCHANGED = "unchanged"


def moved(difference: float, higher_is_better: bool) -> Direction:
    """Which way a difference (patch − base; for a binary metric, gained − lost, which counts
    lost and gained by what is better already) moved a metric."""
    if difference == 0:
        return Direction.UNCHANGED
    return Direction.BETTER if (difference > 0) == higher_is_better else Direction.WORSE


@dataclass(frozen=True)
class ScoreTest:
    """One metric (under one filter) compared between two runs, item by item."""

    metric: str
    """The metric's name (exact_match, acc, an inspect_ai scorer's name)."""
    group: str | None
    """lm-eval's filter (None when the log names none)."""
    kind: ScoreKind
    """binary or continuous."""
    test: str
    """`mcnemar-exact` or `wilcoxon-signed-rank`."""
    n: int
    """Items scored on both sides."""
    base_mean: float
    """The base's mean score over those items (accuracy for a binary metric)."""
    patch_mean: float
    """The patch's mean score over those items."""
    lost: int
    """Items where the patch scores worse than the base."""
    gained: int
    """Items where the patch scores better than the base."""
    p: float
    """The test's two-sided p-value (1.0 when no item moved)."""
    p_adjusted: float
    """Holm-adjusted across every metric and filter of the comparison."""
    direction: Direction
    """Which way the patch moved the metric."""
    significant: bool
    """`p_adjusted` is at most α."""
    mde: float | None
    """The smallest difference of the mean score the run could detect at α with the stated
    power (None when no difference this run could produce would be detected)."""
    higher_is_better: bool
    """False for the metrics of `LOWER_IS_BETTER`."""
    records: int | None = None
    """inspect_ai epochs: the records (sample epochs) behind the `n` samples; None: one a item."""
    epochs: int | None = None
    """inspect_ai epochs: the most epochs any of the samples was scored in."""
    binary_epochs: bool = False
    """Continuous only as inspect_ai's per-sample means: every epoch scored 0 or 1 on both sides
    (an accuracy whose epochs disagree), so the gate takes a binary metric's default tolerance
    (`scoregate.GateOptions.tolerance`); the records' scores give it back (`scorecount`)."""

    @property
    def label(self) -> str:
        """`exact_match` or `exact_match [flexible-extract]`."""
        return self.metric if self.group is None else f"{self.metric} [{self.group}]"

    @property
    def fails(self) -> bool:
        """Significant in the worse direction: the patch lowered the score."""
        return self.significant and self.direction is Direction.WORSE

    @property
    def difference(self) -> float:
        """patch mean − base mean."""
        return self.patch_mean - self.base_mean


@dataclass(frozen=True)
class ScoresReport:
    """Every metric's paired test, with the settings they were made under."""

    alpha: float
    """The family-wise error rate (Holm)."""
    power: float
    """The power at which `mde` is stated."""
    tests: tuple[ScoreTest, ...]
    """One per metric and filter, in the order the metrics first appeared."""
    one_sided: int
    """Paired items holding a metric on one side only (not tested)."""
    correction: str = "holm"
    """How the p-values were corrected across metrics."""
    binary_mde: str = ""
    """How the smallest detectable difference of a binary metric is computed."""
    unscored: tuple[str, ...] = ()
    """Metrics named on paired items that no item holds a number for on both sides (lm-eval's
    corpus metrics: `bleu`'s `[refs, prediction]`): never tested, so never passed by the
    gate."""
    continuous_mde: str = ""
    """How the smallest detectable difference of a continuous metric is computed."""

    @property
    def failing(self) -> tuple[ScoreTest, ...]:
        """The metrics the patch significantly lowered."""
        return tuple(test for test in self.tests if test.fails)


@dataclass(frozen=True)
class NoiseBand:
    """The same tests between two runs of the base (`--base-rerun`): what the engine's own
    nondeterminism does to the scores. Reported beside the comparison, never a failure."""

    path: str
    """The rerun's path as given."""
    format: str
    """The loader that read it."""
    paired: int
    """Records paired between the base and its rerun."""
    differing: int
    """Of those, records whose outputs differ."""
    scores: ScoresReport | None
    """The paired tests between the two base runs (None when neither holds scores)."""


class ScoreCollector:
    """Each metric's paired values, fed one item pair at a time (two 8-byte floats an item).

    An inspect_ai sample scored in several epochs is one item: `add` and `take` given its
    sample id (`cluster`) keep its epochs' values, and `columns` hands on, per metric, each
    sample's mean over the epochs scored on both sides, in the order the samples first
    appeared (`math.fsum`, so the order the epochs came in does not move a bit)."""

    def __init__(self) -> None:
        self._values: dict[tuple[str, str | None], tuple[array[float], array[float]]] = {}
        self._clusters: dict[tuple[str, str | None], dict[str, tuple[list[float], list[float]]]]
        self._clusters = {}
        self.one_sided = 0
        self._unscored: dict[tuple[str, str | None], None] = {}
        """Metrics named on both sides of an item with no number on either (NaN placeholders:
        lm-eval's corpus metrics), in first-seen order."""

    def add(
        self,
        base: tuple[ItemScore, ...],
        patch: tuple[ItemScore, ...],
        cluster: str | None = None,
    ) -> tuple[tuple[str, str | None, float, float], ...]:
        """Take one paired item's scores (`cluster`: the sample it is an epoch of); the
        (metric, group, base, patch) pairs it took."""
        if not base and not patch:
            return ()
        took: list[tuple[str, str | None, float, float]] = []
        patch_values: dict[tuple[str, str | None], float] = {}
        for metric, group, value in patch:
            patch_values.setdefault((metric, group), value)
        seen = set()
        for metric, group, value in base:
            key = (metric, group)
            if key in seen:
                continue  # one item a metric: a name given twice (`a.b` and `a`'s `b`) once
            seen.add(key)
            other = patch_values.get(key)
            if value != value or (other is not None and other != other):  # NaN: no number
                if other is not None and value != value and other != other:
                    self._unscored[key] = None
                elif other is not None:
                    self.one_sided += 1  # a number on one side only, as when absent
                continue
            if other is None:
                self.one_sided += 1
                continue
            self.take(metric, group, value, other, cluster)
            took.append((metric, group, value, other))
        self.one_sided += sum(
            1 for key, value in patch_values.items() if key not in seen and value == value
        )
        return tuple(took)

    def take(
        self, metric: str, group: str | None, base: float, patch: float, cluster: str | None = None
    ) -> None:
        """One item's pair as `add` took it (a record's `scores` read back)."""
        if cluster is not None:
            epochs = self._clusters.setdefault((metric, group), {})
            values = epochs.get(cluster)
            if values is None:
                values = epochs[cluster] = ([], [])
            values[0].append(base)
            values[1].append(patch)
            return
        columns = self._values.get((metric, group))
        if columns is None:
            columns = self._values[(metric, group)] = (array("d"), array("d"))
        columns[0].append(base)
        columns[1].append(patch)

    def columns(self) -> list[tuple[str, str | None, array[float], array[float]]]:
        """(metric, group, base values, patch values) per metric, in first-seen order (a
        metric taken by sample: one value a sample, the mean over its epochs)."""
        columns = [(m, g, base, patch) for (m, g), (base, patch) in self._values.items()]
        for (metric, group), epochs in self._clusters.items():
            base, patch = array("d"), array("d")
            for before, after in epochs.values():
                base.append(math.fsum(before) / len(before))
                patch.append(math.fsum(after) / len(after))
            columns.append((metric, group, base, patch))
        return columns

    def epoch_counts(self, metric: str, group: str | None) -> tuple[int, int] | None:
        """(records, most epochs of one sample) of a metric taken by sample; None: by item."""
        epochs = self._clusters.get((metric, group))
        if not epochs:
            return None
        counts = [len(before) for before, _ in epochs.values()]
        return sum(counts), max(counts)

    def binary_epochs(self, metric: str, group: str | None) -> bool:
        """The metric was taken by sample and every epoch's value is 0 or 1 on both sides."""
        epochs = self._clusters.get((metric, group), {})
        return bool(epochs) and all(
            v in (0.0, 1.0) for before, after in epochs.values() for v in (*before, *after)
        )

    def unscored(self) -> tuple[str, ...]:
        """The labels of metrics no item holds a number for on both sides (never tested)."""
        return tuple(
            metric if group is None else f"{metric} [{group}]"
            for metric, group in self._unscored
            if (metric, group) not in self._values and (metric, group) not in self._clusters
        )

    def __bool__(self) -> bool:
        return (
            bool(self._values)
            or bool(self._clusters)
            or self.one_sided > 0
            or bool(self.unscored())
        )


def classify(base: array[float], patch: array[float]) -> ScoreKind:
    """Binary when every value on both sides is 0 or 1."""
    binary = all(v in (0.0, 1.0) for v in base) and all(v in (0.0, 1.0) for v in patch)
    return ScoreKind.BINARY if binary else ScoreKind.CONTINUOUS


def p_text(p: float) -> str:
    """A p-value with three significant digits (`0.0129`, `1`)."""
    return f"{p:.3g}"


def sentence(test: ScoreTest, alpha: float, power: float = DEFAULT_POWER) -> str:
    """One metric's result as a reviewer reads it: `exact_match: 12 lost, 2 gained of 220,
    McNemar p = 0.0129: the patch is worse`."""
    name = "McNemar" if test.kind is ScoreKind.BINARY else "Wilcoxon signed-rank"
    line = f"{test.label}: {test.lost} lost, {test.gained} gained of {test.n}{samples(test)}, "
    line += f"{name} p = "
    line += p_text(test.p)
    if test.p_adjusted != test.p:
        line += f" (Holm {p_text(test.p_adjusted)})"
    if test.significant and test.direction is not Direction.UNCHANGED:
        return line + f": the patch is {test.direction.value}"
    line += f": no significant change at α = {alpha:g}"
    if test.mde is not None:
        line += f" (the run could detect {mde_text(test)} with {100 * power:g} % power)"
    elif test.kind is ScoreKind.CONTINUOUS and test.n >= 2:
        # The closed form sizes a change from the differences' spread; with none, it cannot.
        line += " (the differences do not vary, so no detectable change can be sized)"
    else:
        line += f" (too few {unit(test)} to detect any change with {100 * power:g} % power)"
    return line


def unit(test: ScoreTest, count: int = 2) -> str:
    """What `count` items of the test are: `samples` for inspect_ai epochs (each sample an
    item, its epochs clustered), else `items` (singular for one)."""
    word = "item" if test.records is None else "sample"
    return word if count == 1 else f"{word}s"


def samples(test: ScoreTest) -> str:
    """What `n` counts when it is not records: ` samples (1,400 records over 5 epochs)`."""
    if test.records is None:
        return ""
    return f" {unit(test, test.n)} ({test.records:,} records over {test.epochs} epochs)"


def mde_text(test: ScoreTest) -> str:
    """The smallest detectable difference in the metric's units (points for binary metrics)."""
    assert test.mde is not None
    if test.kind is ScoreKind.BINARY:
        return f"a change of {100 * test.mde:.1f} points"
    return f"a mean change of {test.mde:.3g}"
