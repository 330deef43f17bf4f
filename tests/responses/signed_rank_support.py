"""The power of the exact signed-rank test, simulated with scipy's own `wilcoxon`: an
independent check of the continuous MDE (`k3diff.responses.signedrankpower`)."""

from __future__ import annotations

import numpy as np
from scipy import stats


def simulated_power(n: int, shift: float, level: float, runs: int = 2000) -> float:
    """The share of `runs` seeded samples of n normal differences of unit spread, shifted by
    `shift`, that scipy's two-sided `wilcoxon` rejects at `level`."""
    samples = np.random.default_rng(20261205 + n).standard_normal((runs, n)) + shift
    return float(np.mean([stats.wilcoxon(s).pvalue <= level for s in samples]))
