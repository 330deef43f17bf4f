"""The drop a continuous metric's signed-rank test detects with the stated power (stats64b).

Until stats64b the MDE was the closed form (z(1-α/2) + z(power)) · sd / √n · √(π/3), an
asymptotic figure the exact test falls short of at small n (normal differences, the drop at the
stated MDE, 2,000 seeded runs: 47 % power at 6 items, 70 % at 10, 75 % at 20, 78 % at 30).

Now, up to `SIMULATED_UP_TO` items (where scipy's `wilcoxon` runs the exact test), the MDE is
sized by a seeded simulation of the exact test itself: `RUNS` samples of n standard normal
differences; the exact two-sided test at the level rejects a sample shifted by D exactly when at
least c of its n(n+1)/2 Walsh averages (x_i + x_j) / 2, i ≤ j, exceed −D (W⁺ counts them; c is
the least count whose exact two-sided p, 2·P(W⁺ ≥ c), is at most the level). So each sample's
least rejected shift is minus its c-th largest Walsh average, exactly, and the shift rejected in
a share `SIZED_AT` of the samples is their `SIZED_AT` quantile, times the sample standard
deviation of the run's differences. Above it the test is the normal approximation and so is the
closed form, asked for `SIZED_AT`. `SIZED_AT` is above the stated power, as the telemetry gate
sizes its drop (`k3diff.telemetry.power`): normal differences are not the worst shape the test
meets (Laplace differences at 6 items are found a little less often than normal ones of the
same spread), and the run's spread is itself an estimate.
"""

from __future__ import annotations

import math
from functools import lru_cache

SIMULATED_UP_TO = 50
"""Up to this many items the MDE is simulated on the exact test (scipy's exact range)."""
RUNS = 4000
"""Simulated samples a size is read from."""
SEED = 64
"""The simulation's seed: the same n, level and power give the same MDE on every machine."""
SIZED_AT_MARGIN = 0.1
"""What the sizing power adds to the stated one (0.8 → 0.9), capped below 1."""


def sized_at(power: float) -> float:
    """The power the MDE is sized at, for a stated `power` (see the module docstring)."""
    return min(0.99, max(power, power + SIZED_AT_MARGIN))


def mde_per_sd(n: int, level: float, power: float) -> float | None:
    """The MDE of n items in units of the differences' standard deviation; None where the
    exact test cannot reject at `level` (its least p, 2/2ⁿ, above it) or n < 2."""
    if n < 2 or 2.0 ** (1 - n) > level:
        return None
    if n <= SIMULATED_UP_TO:
        return _simulated(n, level, sized_at(power))
    from scipy import stats

    z = float(stats.norm.ppf(1 - level / 2) + stats.norm.ppf(sized_at(power)))
    return z / math.sqrt(n) * math.sqrt(math.pi / 3)


def least_rejected_count(n: int, level: float) -> int | None:
    """The least W⁺ whose exact two-sided p, 2·P(W⁺ ≥ c) under the null, is at most `level`."""
    import numpy as np

    top = n * (n + 1) // 2
    counts = np.zeros(top + 1)
    counts[0] = 1.0
    for rank in range(1, n + 1):
        counts[rank:] = counts[rank:] + counts[: top + 1 - rank].copy()
    upper = np.cumsum(counts[::-1])[::-1] / 2.0**n  # P(W⁺ ≥ c)
    rejected = np.nonzero(2 * upper <= level)[0]
    return int(rejected[0]) if rejected.size else None


@lru_cache(maxsize=256)
def _simulated(n: int, level: float, power: float) -> float | None:
    import numpy as np

    count = least_rejected_count(n, level)
    if count is None:
        return None
    samples = np.random.default_rng(SEED).standard_normal((RUNS, n))
    i, j = np.triu_indices(n)
    walsh = (samples[:, i] + samples[:, j]) / 2
    top = walsh.shape[1]
    # The c-th largest Walsh average is the (top − c)-th smallest.
    cth = np.partition(walsh, top - count, axis=1)[:, top - count]
    return float(np.quantile(-cth, power))
