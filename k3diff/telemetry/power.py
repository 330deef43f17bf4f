"""What a passing acceptance gate could have detected (telemetry63): the least drop in the
pooled acceptance rate its pooled test finds with power `POWER`, where that size can be computed
soundly; elsewhere the least p its permutations reach, said to be a p floor and why.

The pooled test permutes the side labels of n_b + n_p units (accepted a_i of drafted d_i; the
statistic base rate - patch rate, each a ratio of totals). Linearised around the pooled rate
R = A / D, the statistic is the mean of the residuals e_i = a_i - R d_i of the base's units
less the patch's, over the mean drafted tokens a unit, d = D / n; a split drawn without
replacement gives it the variance s^2 / d^2 x (1 / n_b + 1 / n_p), s^2 = sum e_i^2 / (n - 1)
(the units' own spread: tokens of one request need not be independent). By the permutation
central limit theorem (Hajek) the statistic is then about normal, so the drop found with power
`POWER` by a one-sided test at alpha / m (a pooled p at most that is a finding whatever the
other m - 1 tests give: Holm's first step) is (z(1 - alpha / m) + z(power)) x that standard
error, z the standard normal quantile (`scipy.stats.norm`); the power put in is `SIZED_AT`, above
`POWER`, because simulation showed the approximation short of the power it is asked for.

It is an approximation, sound only with enough units a side (`MIN_UNITS_FOR_SIZE`, as a
normal approximation of a two-sample mean is commonly trusted), counted as the statistic
weighs them: a side's effective units (sum d_i)^2 / sum d_i^2 (Kish), since a ratio of totals
weighs each unit by its drafted tokens, and with a spread (units that all accept at the pooled
rate give s = 0, no size); below that, the figure stated is the least p a permutation of the
units reaches, times the tests (what the gate compares with alpha). review63c: 30 vLLM windows
a side, 3 of them drafting 5,000-20,000 tokens and the rest 50-200, were 30 units but about 4
effective ones; the test found the drop stated "with power 0.8" in 210 of 400 simulated runs
(0.53).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from k3diff.telemetry.gate import pooled_units
from k3diff.telemetry.gatemodel import GATE_EXACT_SPLITS, GATE_RESAMPLES, SideUnits

POWER = 0.8
"""The power the stated drop is found with."""
SIZED_AT = 0.9
"""The power the normal approximation is asked for when it sizes the stated drop: asked for
`POWER` itself, the permutation test found the drop it stated in only 0.74-0.77 of simulated
runs (review63c: 300 runs each at 40 units a side drafting 50-200 tokens, 60 lognormal units,
100 units; alpha 0.05 over 9 tests); asked for 0.85, 0.80-0.81, and for 0.9, 0.83-0.88 (the
lead, stop 63, 300 runs each at 40 and 60 units). So the drop stated "with power 0.8" is the
one the approximation gives at 0.9: a claim the test meets, not one it falls short of."""
MIN_UNITS_FOR_SIZE = 30
"""Units (or blocks) a side the pooled test needs for its drop size to be stated."""

Units = list[tuple[int, int]]


def detectable_drop(base: Units, patch: Units, alpha: float, tests: int) -> float | None:
    """The drop in the pooled rate (base rate - patch rate, a fraction) the pooled test finds
    with power `POWER` at alpha / tests; None where it cannot be stated soundly."""
    from scipy.stats import norm

    if min(effective_units(base), effective_units(patch)) < MIN_UNITS_FOR_SIZE:
        return None
    units = base + patch
    n = len(units)
    accepted, drafted = sum(a for a, _ in units), sum(d for _, d in units)
    rate = accepted / drafted
    spread = sum((a - rate * d) ** 2 for a, d in units) / (n - 1)
    if spread <= 0:
        return None
    error = math.sqrt(spread) / (drafted / n) * math.sqrt(1 / len(base) + 1 / len(patch))
    return float((norm.ppf(1 - alpha / tests) + norm.ppf(SIZED_AT)) * error)


def effective_units(units: Units) -> float:
    """The units as many equal ones as the ratio of totals weighs them: (sum d)^2 / sum d^2
    (n where every unit drafted alike, about 1 where one unit drafted nearly everything)."""
    squares = sum(d * d for _, d in units)
    return sum(d for _, d in units) ** 2 / squares if squares else 0.0


def pooled_floor(n_base: int, n_patch: int) -> float:
    """The least p the pooled permutation test reaches (`k3diff.telemetry.permutation`): one
    over its splits where they are enumerated, else one over the resamples + 1 (review63c: at
    alpha 0.0005 over 9 tests, 40 units a side drew 9,999 splits, p >= 1e-4 > alpha / 9, yet a
    drop "with power 0.8" was stated)."""
    splits = math.comb(n_base + n_patch, n_base)
    return 1 / splits if splits <= GATE_EXACT_SPLITS else 1 / (GATE_RESAMPLES + 1)


def could_detect(
    sides: Mapping[str, SideUnits] | None,
    alpha: float,
    *,
    tests: int,
    pooled: bool,
    block: int,
    least: float,
) -> str:
    """What a gate of `tests` tests (the first `pooled`, on `sides`' units or blocks of `block`)
    that found no drop could have found, as a clause: 'these units could have ...'; `least`, the
    least p its permutations reach times the tests."""
    these = "these units" if block == 1 else f"these blocks of {block} units"
    base: Units = []
    patch: Units = []
    if pooled and sides is not None and "base" in sides and "patch" in sides:
        base, patch = pooled_units(sides["base"]), pooled_units(sides["patch"])
    drop = detectable_drop(base, patch, alpha, tests) if base and patch else None
    floor = pooled_floor(len(base), len(patch)) if base and patch else 1.0
    if floor > alpha / tests:
        drop = None  # the pooled test never reaches alpha / tests, whatever the drop
    if drop is not None:
        rate = sum(a for a, _ in base) / sum(d for _, d in base)
        return (
            f"{these} could have detected a drop of {100 * drop:.3g} percentage points in the "
            f"pooled acceptance rate (base {rate:.1%}) with power {POWER:g}: the normal "
            f"approximation of the pooled permutation test, one-sided at alpha / {tests} "
            f"tests, from the spread of its {len(base):,} base and {len(patch):,} patch "
            f"{_of(block)}"
        )
    if not base or not patch:
        why = "there is no pooled test"
    elif min(len(base), len(patch)) < MIN_UNITS_FOR_SIZE:
        why = (
            f"the normal approximation it needs does not hold below {MIN_UNITS_FOR_SIZE} "
            f"{_of(block)} a side (pooled: {len(base):,} base, {len(patch):,} patch)"
        )
    elif min(effective_units(base), effective_units(patch)) < MIN_UNITS_FOR_SIZE:
        why = (
            f"the normal approximation it needs does not hold below {MIN_UNITS_FOR_SIZE} "
            f"{_of(block)} a side as the pooled rate weighs them by drafted tokens (effective: "
            f"{effective_units(base):.1f} base, {effective_units(patch):.1f} patch, "
            "(sum drafted)^2 / sum drafted^2)"
        )
    elif floor > alpha / tests:
        why = (
            f"the pooled test's least p, {floor:.3g}, is above alpha / {tests} tests, so it "
            "finds no drop of any size"
        )
    else:
        why = "every unit accepts at the pooled rate: no spread to size a drop from"
    return (
        f"{these} could have shown one down to a Holm p of {least:.3g}: the least p a "
        f"permutation of them reaches times {tests} tests, a p floor, not a drop size (a drop "
        f"size at power {POWER:g} is not stated: {why})"
    )


def _of(block: int) -> str:
    return "units" if block == 1 else f"blocks of {block} units"
