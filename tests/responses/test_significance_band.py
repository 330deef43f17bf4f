"""`report`'s recount of a score test's `significant` (`responses.scorecount`): the written
p_adjusted may differ from the recount by another scipy's last digits (1e-9 relative), read
toward rejecting: a test written significant whose recount falls a hair above α is read; one
written not significant whose recount rejects is refused, however close (a pass the recount
does not hold). Before stop 80 `significant` was compared bit-exactly, so either straddle of a
genuine document of another scipy was refused."""

from __future__ import annotations

import dataclasses
import math

import pytest

from k3diff.responses.scorecount import _significance_read
from k3diff.responses.scores import Direction, ScoreKind, ScoreTest

ALPHA = 0.05
ABOVE = math.nextafter(ALPHA, 1.0)
"""One float above α: within the tolerance of α, on the other side of it."""


def _test(p_adjusted: float, direction: Direction = Direction.WORSE) -> ScoreTest:
    return ScoreTest(
        metric="bleu",
        group=None,
        kind=ScoreKind.CONTINUOUS,
        test="wilcoxon-signed-rank",
        n=40,
        base_mean=30.0,
        patch_mean=29.0,
        lost=30,
        gained=10,
        p=p_adjusted,
        p_adjusted=p_adjusted,
        direction=direction,
        significant=p_adjusted <= ALPHA,
        mde=1.0,
        higher_is_better=True,
    )


@pytest.mark.parametrize(
    ("written", "recounted", "read"),
    [
        (ALPHA, ABOVE, True),  # written significant (fails), the recount a hair short: read
        (ABOVE, ALPHA, False),  # written a pass, the recount rejects: refused
        (0.04, 0.06, False),  # beyond the tolerance
    ],
)
def test_significance_is_read_toward_rejecting(
    written: float, recounted: float, read: bool
) -> None:
    assert _significance_read(_test(written), _test(recounted), ALPHA) is read


def test_a_significance_that_does_not_follow_its_own_p_adjusted_is_never_read() -> None:
    forged = dataclasses.replace(_test(ABOVE), significant=True)
    assert not _significance_read(forged, _test(ABOVE * (1 + 1e-12)), ALPHA)


def test_a_significant_rise_the_recount_does_not_hold_is_refused() -> None:
    # A significant rise passes the score gate (`scoregate`: `better`) where one not
    # significant is undecided without power: for a rise, significance is the passing
    # direction, so the band read toward rejecting must not read it (review80d: read before).
    from k3diff.responses.gatedecision import Decision
    from k3diff.responses.scoregate import GateOptions, decide

    def rose(p_adjusted: float) -> ScoreTest:  # f1: a metric whose direction k3diff knows
        test = _test(p_adjusted, Direction.BETTER)
        return dataclasses.replace(test, metric="f1", patch_mean=31.0, lost=10, gained=30)

    rise, recount = rose(ALPHA), rose(ABOVE)
    options = GateOptions(tolerances=(("f1", 0.5),))  # mde 1.0 > 0.5: no power to pass
    decided = [decide([t], ALPHA, 0.8, 0, options).decisions[0].decision for t in (rise, recount)]
    assert decided == [Decision.PASS, Decision.UNDECIDED]
    assert not _significance_read(rise, recount, ALPHA)
