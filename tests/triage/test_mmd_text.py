"""The MMD² a reason states. A V-statistic of a positive semi-definite kernel is never negative,
but its float sum can land a rounding error below zero: the new-user trial (transformers serve,
temperature 1, both sides 10 distinct outputs) read `MMD² = -5.55e-17, p = 1`. Within
`MMD_ZERO` of zero (the threshold the verdicts already use) the text says 0."""

from __future__ import annotations

import pytest

from k3diff.triage import Correction, Settings
from k3diff.triage import distribution as dist
from k3diff.triage.testtext import test_text as _test_text

SETTINGS = Settings(alpha=0.05, bound=0.05, near_tie=0.1, correction=Correction.HOLM)


def _mmd(statistic: float) -> dist.DistributionTest:
    return dist.DistributionTest(
        kind="mmd",
        sampled=True,
        statistic=statistic,
        p=1.0,
        p_adjusted=1.0,
        exact=False,
        moved=(),
        detectable_shift=None,
        level=0.05,
        permutations=1999,
    )


@pytest.mark.parametrize("rounding", [-5.551115123125783e-17, -1e-13, 0.0, 1e-13])
def test_an_mmd_within_rounding_of_zero_reads_zero(rounding: float) -> None:
    assert "MMD² = 0, p = 1" in _test_text(_mmd(rounding), SETTINGS)


def test_an_mmd_above_zero_is_written_as_computed() -> None:
    assert "MMD² = 0.0309, p = 1" in _test_text(_mmd(0.0309), SETTINGS)
