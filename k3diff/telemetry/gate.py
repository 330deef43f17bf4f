"""`--fail-on acceptance-drop`: is the patch's speculative-decoding acceptance lower than the
base's, pooled or at some draft position, by a test valid for how the counts depend?

Tokens (and drafts) of one request are not independent, so the unit is what the engine reports
counts for: a TensorRT-LLM request, a vLLM window (a serial sample; a batch), an SGLang sample.
Per comparison (draft tokens pooled, and each draft position both sides report), a one-sided
permutation test of the side labels over the units (`scipy.stats.permutation_test`), the
statistic base rate - patch rate, each a ratio of totals over its side's units; exact where
the splits are at most GATE_EXACT_SPLITS, else GATE_RESAMPLES Monte Carlo ones from a fixed
seed. Holm across the
comparisons, at alpha. With units too few for any adjusted p <= alpha the gate cannot clear the
run: `acceptance-undecided`, held (exit 1), as triage's no-power.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from math import comb
from typing import Any

from k3diff.sample.lines import UNREAD
from k3diff.telemetry.model import (
    ACCEPTANCE_UNDECIDED,
    GATE_EXACT_SPLITS,
    GATE_RESAMPLES,
    AcceptanceGate,
    CounterReset,
    GateFinding,
    GateTest,
    SideUnits,
)

SEED = 20261205
"""The Monte Carlo generator's seed: the same logs give the same p."""

MIN_UNITS = 2
"""Units a side a comparison needs (scipy's permutation_test takes no fewer; with 1 the
fewest splits would be 2)."""
BATCH_CELLS = 2_000_000
"""Resampled unit labels held at once (about 16 MB a float array)."""

CHUNK_CELLS = 65_536
"""Permutation indices `_resampled` gathers with at once (half a MB of int64: in cache; more
was slower for 10,000 units a side, fewer for 12)."""

Units = list[tuple[int, int]]
"""Per unit: (accepted, total)."""
Statistic = Callable[[Any, Any, int], Any]
"""`scipy.stats.permutation_test`'s vectorized statistic of two index arrays."""
PACKED = 2**31
"""Drafted tokens of a comparison below which `_resampled` packs a unit's counts in one int64
(sums below 2**31 each: neither carries into the other, nor into the sign)."""


CACHED = 64
"""Comparisons whose p `_permutation_p` keeps (a digest of their units each): `report` runs the
gate on a document's units when it reads it, again on the units `telemetry` finds in the logs
given beside it, and again at the house α when it imposes the gate; the p-values do not depend
on α, and the units are the same when the document is honest, so each comparison is permuted
once (alpha61)."""
_cache: dict[bytes, tuple[float, float, bool]] = {}


def _key(base: Units, patch: Units) -> bytes:
    import hashlib

    # repr, not an int64 array: a document's counts are Python ints of any size.
    return hashlib.sha256(repr((len(base), base, patch)).encode()).digest()


def _permutation_p(base: Units, patch: Units) -> tuple[float, float, bool]:
    """(p, the smallest p possible, exact) of base rate - patch rate >= observed, permuted once
    per distinct comparison (`CACHED`)."""
    key = _key(base, patch)
    found = _cache.get(key)
    if found is None:
        found = _permuted(base, patch)
        if len(_cache) >= CACHED:
            _cache.pop(next(iter(_cache)))
        _cache[key] = found
    return found


def _permuted(base: Units, patch: Units) -> tuple[float, float, bool]:
    """(p, the least p, exact): Monte Carlo by `_resampled`; enumerated (and past `PACKED`
    drafted tokens) by scipy with `statistic_of`, as before stop 62."""
    import numpy
    from scipy.stats import permutation_test

    splits = comb(len(base) + len(patch), len(base))
    if splits > GATE_EXACT_SPLITS and _totals(base + patch)[1] < PACKED:
        return _resampled(base, patch), 1 / (GATE_RESAMPLES + 1), False
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


def _resampled(base: Units, patch: Units) -> float:
    """The Monte Carlo p `scipy.stats.permutation_test` gives (independent, "greater",
    GATE_RESAMPLES from SEED), bit for bit, at less cost.

    It draws `rng.permutation(n)` per resample, in order, and splits it base-sized first; so
    does this, but keeps only the smaller side's part (CHUNK_CELLS indices at a time), sums
    its counts from one int64 a unit (drafted << 32 | accepted: with drafted tokens below
    `PACKED` in all, the sums are exact and neither carries into the other), and takes the
    other side's as the totals less them: the same integers as gathering both sides as
    floats, hence the same rates. p = (1 + resamples >= observed - |eps observed|) /
    (resamples + 1), as scipy counts them."""
    import numpy

    units = base + patch
    accepted_total, drafted_total = _totals(units)
    packed = numpy.array([(d << 32) | a for a, d in units], dtype=numpy.int64)
    first = len(base) <= len(patch)
    rng = numpy.random.default_rng(SEED)
    part = slice(None, len(base)) if first else slice(len(base), None)
    sums = numpy.empty(GATE_RESAMPLES, dtype=numpy.int64)
    step = max(1, CHUNK_CELLS // len(units))
    for start in range(0, GATE_RESAMPLES, step):
        count = min(step, GATE_RESAMPLES - start)
        chosen = numpy.array([rng.permutation(len(units))[part] for _ in range(count)])
        sums[start : start + count] = packed[chosen].sum(axis=1)
    gathered = numpy.append(sums, packed[part].sum())
    accepted, drafted = gathered & 0xFFFFFFFF, gathered >> 32
    rest_accepted, rest_drafted = accepted_total - accepted, drafted_total - drafted
    if not first:
        accepted, drafted, rest_accepted, rest_drafted = (
            rest_accepted,
            rest_drafted,
            accepted,
            drafted,
        )
    values = accepted / drafted - rest_accepted / rest_drafted
    null, observed = values[:-1], values[-1]
    gamma = abs(numpy.finfo(numpy.float64).eps * observed)
    count = int(numpy.count_nonzero(null >= observed - gamma)) + 1
    return min(1.0, max(0.0, count / (GATE_RESAMPLES + 1)))


def statistic_of(units: Units) -> Statistic:
    """The statistic as it was before stop 62: each side's sums gathered as floats."""
    import numpy

    accepted = numpy.array([u[0] for u in units], dtype=float)
    total = numpy.array([u[1] for u in units], dtype=float)

    def statistic(x: Any, y: Any, axis: int) -> Any:
        rate_x = accepted[x].sum(axis=axis) / total[x].sum(axis=axis)
        return rate_x - accepted[y].sum(axis=axis) / total[y].sum(axis=axis)

    return statistic


def _units(counts: SideUnits, position: int | None) -> Units:
    """The side's units with something drafted, as (accepted, total) at `position`."""
    if position is None:
        return [u for u in counts.token_units if u[1] > 0]
    return [
        (at_least[position - 1] if position <= len(at_least) else 0, drafts)
        for drafts, at_least in counts.position_units
        if drafts > 0
    ]


def _totals(units: Units) -> tuple[int, int]:
    return sum(u[0] for u in units), sum(u[1] for u in units)


def _where(position: int | None) -> str:
    return "draft tokens pooled" if position is None else f"position {position}"


def _rate(accepted: int, total: int) -> str:
    return f"{accepted / total:.1%} ({accepted:,} of {total:,})"


def _of(block: int) -> str:
    """What a test's n counts: units, or past the caps blocks of `block` consecutive units."""
    return "units" if block == 1 else f"blocks of {block} units"


def describe(test: GateTest, alpha: float, block: int = 1) -> str:
    """One test as a sentence: n, the statistic, p, p adjusted, alpha."""
    kind = "exact" if test.exact else "Monte Carlo"
    return (
        f"{_where(test.position)}: base {_rate(test.base_accepted, test.base_total)} in "
        f"{test.base_units:,} {_of(block)}, patch "
        f"{_rate(test.patch_accepted, test.patch_total)} in {test.patch_units:,} {_of(block)}; "
        f"difference {test.difference:+.1%}, {kind} permutation "
        f"p = {test.p:.3g}, Holm {test.p_adjusted:.3g} vs alpha {alpha:g}"
    )


def _no_comparison(sides: Mapping[str, SideUnits]) -> str:
    missing = []
    for side in ("base", "patch"):
        found = sides.get(side)
        if found is None:
            missing.append(f"{side}: no speculation counts reported")
        elif not _units(found, None):
            missing.append(f"{side}: 0 drafted tokens in {found.requests} requests")
        elif len(_units(found, None)) < MIN_UNITS:
            missing.append(
                f"{side}: 1 unit with drafted tokens, and a permutation test needs "
                f"{MIN_UNITS} a side"
            )
    return "nothing to compare (" + "; ".join(missing) + "), so no drop could have been detected"


def _rows(sides: Mapping[str, SideUnits]) -> list[tuple[int | None, Units, Units]]:
    """The comparisons the gate makes: (position, None for pooled; base units; patch units)."""
    base, patch = sides.get("base"), sides.get("patch")
    rows: list[tuple[int | None, Units, Units]] = []
    if base is not None and patch is not None:
        longest = min(
            max((len(a) for _, a in counts.position_units), default=0) for counts in (base, patch)
        )
        for position in (None, *range(1, longest + 1)):
            pair = (_units(base, position), _units(patch, position))
            if len(pair[0]) >= MIN_UNITS and len(pair[1]) >= MIN_UNITS:
                rows.append((position, *pair))
    return rows


def gate_work(sides: Mapping[str, SideUnits]) -> int:
    """The units of both sides summed over every comparison the gate makes (what
    `GATE_MAX_WORK` caps: each is permuted up to GATE_RESAMPLES times)."""
    return sum(len(b) + len(p) for _, b, p in _rows(sides))


def acceptance_gate(
    sides: Mapping[str, SideUnits], alpha: float, resets: Sequence[CounterReset] = ()
) -> AcceptanceGate:
    """The gate's tests and findings from each side's units and the vLLM counter resets of
    the run (`telemetry` from the logs, `report` again from the document's `acceptance_units`
    and `counter_resets`)."""
    from k3diff.correction import holm

    block = max((u.block for u in sides.values()), default=1)
    rows = _rows(sides)
    found = [_permutation_p(b, p) for _, b, p in rows]
    adjusted = holm([f[0] for f in found])
    tests = tuple(
        GateTest(position, len(b), len(p), *_totals(b), *_totals(p), pvalue, padj, p_min, exact)
        for (position, b, p), (pvalue, p_min, exact), padj in zip(
            rows, found, adjusted, strict=True
        )
    )
    smallest = len(tests) * min(t.p_min for t in tests) if tests else None
    findings = [
        GateFinding("acceptance-drop", t.position, describe(t, alpha, block))
        for t in tests
        if t.p_adjusted <= alpha
    ]
    lost = tuple(sum(1 for r in resets if r.side == side and r.lost) for side in ("base", "patch"))
    if not findings and smallest is None:
        findings.append(GateFinding(ACCEPTANCE_UNDECIDED, None, _no_comparison(sides)))
    elif not findings and smallest is not None and smallest > alpha:
        most = min(tests, key=lambda t: (t.p_min, t.position or 0))
        findings.append(
            GateFinding(
                ACCEPTANCE_UNDECIDED,
                None,
                f"{most.base_units:,} base and {most.patch_units:,} patch {_of(block)}: the "
                f"smallest p a permutation of them gives is {most.p_min:.3g}, "
                f"Holm over {len(tests)} tests {smallest:.3g} > alpha {alpha:g}, so no drop "
                "could have been detected; more units a side (requests, or vLLM windows: "
                "serial samples) would decide it",
            )
        )
    elif not findings and any(lost):
        findings.append(GateFinding(ACCEPTANCE_UNDECIDED, None, _lost(resets, tests, block)))
    return AcceptanceGate(
        tests,
        smallest,
        tuple(findings),
        GATE_EXACT_SPLITS,
        GATE_RESAMPLES,
        (lost[0], lost[1]),
        block,
    )


def _lost(resets: Sequence[CounterReset], tests: tuple[GateTest, ...], block: int) -> str:
    """Why a gate that found no drop in the windows it kept does not pass: windows lost to a
    restarted server are in no test."""
    lost = [r for r in resets if r.lost]
    first, used, count = lost[0], tests[0], len(lost)
    why = (
        "a restarted server (a counter went down or its _created time changed"
        if all(r.metric != UNREAD for r in lost)
        else "a restarted server or an unread /metrics (a counter went down, its _created "
        "time changed, or a reading before or after the window failed"
    )
    return (
        f"{count} vLLM window{'s' if count > 1 else ''} lost to {why}; first: {first.side}, "
        f"{first.metric}, the window closed by "
        f"{first.window}): the tests used {used.base_units:,} base and {used.patch_units:,} "
        f"patch {_of(block)}, not every window the run sampled, so no drop in them is no pass; "
        "a run without a restart decides it"
    )
