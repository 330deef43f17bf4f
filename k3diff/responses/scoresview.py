"""The paired eval-score tests inside `k3diff.responses/1` (`summary.scores`, and `noise` for
`--base-rerun`) as read back: their typed view and its self-check. The fields are added within
version 1; a document written before them reads as having no scores. Their writer is
`k3diff.documents.scores`."""

from __future__ import annotations

from dataclasses import dataclass

from k3diff.fields import NONNEGATIVE, POSITIVE, SHARE, Fields, words
from k3diff.responses.scores import (
    DEFAULT_POWER,
    LOWER_IS_BETTER,
    Direction,
    ScoreKind,
    ScoreTest,
    moved,
    sentence,
)


@dataclass(frozen=True)
class ScoresView:
    """`summary.scores` as read back."""

    alpha: float
    """The family-wise error rate."""
    power: float
    """The power the MDEs are stated at."""
    tests: tuple[ScoreTest, ...]
    """One per metric and filter."""
    one_sided: int = 0
    """Paired items holding a metric on one side only (not tested)."""
    unscored: tuple[str, ...] = ()
    """Metrics no item holds a number for on both sides (never tested)."""

    def sentences(self) -> tuple[str, ...]:
        """Each metric's result in words, rebuilt from its numbers."""
        return tuple(sentence(test, self.alpha, self.power) for test in self.tests)

    @property
    def failing(self) -> tuple[ScoreTest, ...]:
        """The metrics the patch significantly lowered."""
        return tuple(test for test in self.tests if test.fails)


def _test(fields: Fields) -> ScoreTest:
    kind = ScoreKind(fields.string("kind", words(ScoreKind)))
    direction = Direction(fields.string("direction", words(Direction)))
    # The counts every recount divides by or hands scipy are refused by their reader as
    # `responses` never writes them (a test has at least one item), before they reach a statistic.
    return ScoreTest(
        metric=fields.string("metric"),
        group=fields.optional_string("filter"),
        kind=kind,
        test=fields.string("test"),
        n=fields.integer("n", POSITIVE),
        base_mean=fields.number("base_mean"),
        patch_mean=fields.number("patch_mean"),
        lost=fields.integer("lost"),
        gained=fields.integer("gained"),
        p=fields.number("p", SHARE),
        p_adjusted=fields.number("p_adjusted", SHARE),
        direction=direction,
        significant=fields.boolean("significant"),
        mde=fields.optional_number("mde", NONNEGATIVE),
        higher_is_better=fields.boolean("higher_is_better"),
        records=fields.optional_integer("records"),
        epochs=fields.optional_integer("epochs"),
        binary_epochs=fields.has("binary_epochs") and fields.boolean("binary_epochs"),
    )


def read_scores(fields: Fields | None) -> ScoresView | None:
    """The typed view of a `scores` object (None when absent or null)."""
    if fields is None:
        return None
    return ScoresView(
        alpha=fields.level("alpha"),
        power=fields.number("power", SHARE),
        tests=fields.each("tests", _test),
        one_sided=fields.optional_integer("one_sided") or 0,
        unscored=fields.strings("unscored") if fields.has("unscored") else (),
    )


def score_problems(view: ScoresView) -> list[str]:
    """Where a scores object disagrees with itself (checked by `k3diff report`)."""
    problems = []
    if view.power != DEFAULT_POWER:
        # No option sets it (review62: power 0.3 shrank every MDE into a gate pass).
        problems.append(
            f"scores: power {view.power:g}, but k3diff responses states every MDE at power "
            f"{DEFAULT_POWER:g}"
        )
    for test in view.tests:
        if test.significant != (test.p_adjusted <= view.alpha):
            problems.append(
                f"scores {test.label!r}: significant is {test.significant} but p_adjusted "
                f"{test.p_adjusted:g} against alpha {view.alpha:g}"
            )
        if test.lost + test.gained > test.n:
            problems.append(f"scores {test.label!r}: {test.lost + test.gained} moved of {test.n}")
        problems += _direction_problems(test)
    return problems


_ROUNDING = 1e-9
"""Relative difference of two stated means below which their order is rounding: a continuous
metric's direction is the sign of the mean paired difference, which the document does not
state, and the difference of the two means can round the other way when it is that small."""


def _direction_problems(test: ScoreTest) -> list[str]:
    """`higher_is_better` and `direction` against the rule `k3diff responses` wrote them by
    (`scoretests`): a forged direction would clear a significant loss (only `worse` fails)."""
    higher = test.metric not in LOWER_IS_BETTER
    if test.higher_is_better != higher:
        return [
            f"scores {test.label!r}: higher_is_better is {str(test.higher_is_better).lower()} "
            f"but k3diff judges {test.metric!r} {'higher' if higher else 'lower'} is better"
        ]
    if test.kind is ScoreKind.BINARY:
        expected: Direction | None = moved(float(test.gained - test.lost), True)
        numbers = f"{test.lost:,} lost and {test.gained:,} gained"
    else:
        difference = test.patch_mean - test.base_mean
        scale = max(1.0, abs(test.base_mean), abs(test.patch_mean))
        expected = None if abs(difference) <= _ROUNDING * scale else moved(difference, higher)
        numbers = f"the mean moved from {test.base_mean:g} to {test.patch_mean:g}"
    if expected is None or test.direction is expected:
        return []
    return [f"scores {test.label!r}: direction is {test.direction.value!r} but {numbers}"]
