"""The acceptance gate's permutation p-values (`k3diff.telemetry.gate`): per comparison, the
one-sided p of base rate - patch rate (each a ratio of totals over a side's units) that
`scipy.stats.permutation_test` gives (independent, "greater"; every split enumerated up to
GATE_EXACT_SPLITS, else GATE_RESAMPLES drawn from SEED), bit for bit, at less cost.

Comparisons of one gate with the same number of units a side (the pooled one and every draft
position, as a rule: a unit that drafted is in all of them) are permuted by the same splits:
scipy draws `rng.permutation(n)` per resample from a generator seeded alike, or enumerates the
same combinations, whatever the counts. So the splits are drawn (or enumerated) once for all
of them, and each comparison's sums are gathered from them (telemetry63: 65 comparisons of 800
blocks a side drew 65 x 9,999 permutations, about 15 s of CPU, and 9 windows a side at 64
positions enumerated 65 x 48,620 splits in Python sets, about 21 s).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import combinations
from math import comb
from typing import Any

from k3diff.telemetry.gatemodel import GATE_EXACT_SPLITS, GATE_RESAMPLES

SEED = 20261205
"""The Monte Carlo generator's seed: the same logs give the same p."""

BATCH_CELLS = 2_000_000
"""Resampled unit labels scipy holds at once, past `PACKED` (about 16 MB a float array)."""

CHUNK_CELLS = 65_536
"""Permutation indices gathered at once (half a MB of int64: in cache; more was slower for
10,000 units a side, fewer for 12)."""

PACKED = 2**31
"""Drafted tokens of a comparison below which a unit's counts are packed in one int64
(drafted << 32 | accepted: sums below 2**31 each, so neither carries into the other, nor into
the sign); past it, scipy's own `permutation_test` with `statistic_of`."""

CACHED = 4_096
"""Comparisons whose p is kept (a digest of their units each): `report` runs the gate on a
document's units when it reads it, again on the units `telemetry` finds in the logs given
beside it, and again at the house alpha when it imposes the gate; the p-values do not depend on
alpha, and the units are the same when the document is honest, so each comparison is permuted
once (alpha61). 64 documents of 64 positions: a gate has up to 65 comparisons, and a cache of
64 (before telemetry63) dropped each of a 65-comparison gate's p just before it was asked for
again, so `report` with the logs permuted everything twice."""

Units = list[tuple[int, int]]
"""Per unit: (accepted, total)."""
Statistic = Callable[[Any, Any, int], Any]
"""`scipy.stats.permutation_test`'s vectorized statistic of two index arrays."""
Result = tuple[float, float, bool]
"""(p, the least p the units allow, exact)."""

_cache: dict[bytes, Result] = {}


def _key(base: Units, patch: Units) -> bytes:
    import hashlib

    # repr, not an int64 array: a document's counts are Python ints of any size.
    return hashlib.sha256(repr((len(base), base, patch)).encode()).digest()


def p_values(comparisons: Sequence[tuple[Units, Units]]) -> list[Result]:
    """Each comparison's (p, least p, exact), permuted once per distinct comparison (`CACHED`)
    and once per unit count a side (the splits shared)."""
    keys = [_key(base, patch) for base, patch in comparisons]
    found: dict[int, Result] = {}
    groups: dict[tuple[int, int], list[int]] = {}
    for index, ((base, patch), key) in enumerate(zip(comparisons, keys, strict=True)):
        if key in _cache:
            found[index] = _cache[key]
        elif _totals(base + patch)[1] < PACKED:
            groups.setdefault((len(base), len(patch)), []).append(index)
        else:
            found[index] = _by_scipy(base, patch)
    for indices in groups.values():
        shared = _shared([comparisons[i] for i in indices])
        found.update(zip(indices, shared, strict=True))
    for index, key in enumerate(keys):
        if key not in _cache:
            if len(_cache) >= CACHED:
                _cache.pop(next(iter(_cache)))
            _cache[key] = found[index]
    return [found[index] for index in range(len(comparisons))]


def permuted(base: Units, patch: Units) -> Result:
    """One comparison's (p, least p, exact), not cached."""
    if _totals(base + patch)[1] < PACKED:
        return _shared([(base, patch)])[0]
    return _by_scipy(base, patch)


def _totals(units: Units) -> tuple[int, int]:
    return sum(u[0] for u in units), sum(u[1] for u in units)


def _splits(n: int, part: slice, size: int, exact: bool) -> Iterator[Any]:
    """The splits scipy makes, as the indices of the `part` side (`size` units), CHUNK_CELLS
    at a time: every combination (the order does not matter to an exact p), or scipy's draws
    in order (`rng.permutation(n)` per resample, split base-sized first)."""
    import numpy

    step = max(1, CHUNK_CELLS // n)
    if exact:
        every = numpy.array(list(combinations(range(n), size)), dtype=numpy.int64)
        for start in range(0, len(every), step):
            yield every[start : start + step]
        return
    rng = numpy.random.default_rng(SEED)
    for start in range(0, GATE_RESAMPLES, step):
        count = min(step, GATE_RESAMPLES - start)
        yield numpy.array([rng.permutation(n)[part] for _ in range(count)])


def _shared(comparisons: Sequence[tuple[Units, Units]]) -> list[Result]:
    """Comparisons of one size (units a side; drafted tokens below `PACKED` each), their
    splits drawn once. Per split, only the smaller side's sums are gathered, from one int64 a
    unit; the other side's are the totals less them: the same integers as scipy's float sums,
    hence the same rates. p = (resamples >= observed - gamma (+ 1 for the observed)) /
    (splits, or resamples + 1), gamma = |100 eps x observed|, as scipy counts them."""
    import numpy

    n_base, n_patch = len(comparisons[0][0]), len(comparisons[0][1])
    n = n_base + n_patch
    splits = comb(n, n_base)
    exact = splits <= GATE_EXACT_SPLITS
    first = n_base <= n_patch
    part = slice(None, n_base) if first else slice(n_base, None)
    packed = numpy.array(
        [[(d << 32) | a for a, d in base + patch] for base, patch in comparisons],
        dtype=numpy.int64,
    )
    sums = [[packed[j][part].sum(keepdims=True)] for j in range(len(comparisons))]
    for chosen in _splits(n, part, min(n_base, n_patch), exact):
        for j in range(len(comparisons)):
            sums[j].append(packed[j][chosen].sum(axis=1))
    found = []
    for (base, patch), gathered in zip(comparisons, sums, strict=True):
        found.append(_p(numpy.concatenate(gathered), _totals(base + patch), first, exact))
    least = 1 / splits if exact else 1 / (GATE_RESAMPLES + 1)
    return [(p, least, exact) for p in found]


def _p(gathered: Any, totals: tuple[int, int], first: bool, exact: bool) -> float:
    """The p from the chosen side's packed sums, the observed split's first."""
    import numpy

    accepted, drafted = gathered & 0xFFFFFFFF, gathered >> 32
    rest_accepted, rest_drafted = totals[0] - accepted, totals[1] - drafted
    if not first:
        accepted, drafted, rest_accepted, rest_drafted = (
            rest_accepted,
            rest_drafted,
            accepted,
            drafted,
        )
    values = accepted / drafted - rest_accepted / rest_drafted
    observed, null = values[0], values[1:]
    # scipy: eps = finfo.eps * 100, then gamma = |eps * observed| (in that order: the same bits).
    gamma = abs(numpy.finfo(numpy.float64).eps * 100 * observed)
    count = int(numpy.count_nonzero(null >= observed - gamma))
    if exact:
        return min(1.0, max(0.0, count / len(null)))
    return min(1.0, max(0.0, (count + 1) / (GATE_RESAMPLES + 1)))


def _by_scipy(base: Units, patch: Units) -> Result:
    """Past `PACKED` drafted tokens: scipy's own test with `statistic_of`, as before stop 62."""
    import numpy
    from scipy.stats import permutation_test

    splits = comb(len(base) + len(patch), len(base))
    exact = splits <= GATE_EXACT_SPLITS
    units = base + patch
    indices = numpy.arange(len(units))
    # Resamples are evaluated BATCH_CELLS unit-cells at a time: memory stays bounded.
    result = permutation_test(
        (indices[: len(base)], indices[len(base) :]),
        statistic_of(units),
        permutation_type="independent",
        vectorized=True,
        n_resamples=splits if exact else GATE_RESAMPLES,
        alternative="greater",
        rng=numpy.random.default_rng(SEED),
        batch=max(1, BATCH_CELLS // len(units)),
    )
    return float(result.pvalue), (1 / splits if exact else 1 / (GATE_RESAMPLES + 1)), exact


def statistic_of(units: Units) -> Statistic:
    """The statistic as it was before stop 62: each side's sums gathered as floats."""
    import numpy

    accepted = numpy.array([u[0] for u in units], dtype=float)
    total = numpy.array([u[1] for u in units], dtype=float)

    def statistic(x: Any, y: Any, axis: int) -> Any:
        rate_x = accepted[x].sum(axis=axis) / total[x].sum(axis=axis)
        return rate_x - accepted[y].sum(axis=axis) / total[y].sum(axis=axis)

    return statistic
