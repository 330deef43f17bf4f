"""`--fail-on acceptance-drop`: is the patch's speculative-decoding acceptance lower than the
base's, pooled or at some draft position, by a test valid for how the counts depend?

Tokens (and drafts) of one request are not independent, so the unit is what the engine reports
counts for: a TensorRT-LLM request, a vLLM window (a serial sample; a batch), an SGLang sample.
Per comparison (draft tokens pooled, and each draft position both sides report), a one-sided
permutation test of the side labels over the units (`scipy.stats.permutation_test`), the
statistic base rate - patch rate, each a ratio of totals over its side's units; exact where
the splits are at most GATE_EXACT_SPLITS, else GATE_RESAMPLES Monte Carlo ones from a fixed
seed (`k3diff.telemetry.permutation`: the splits drawn once for the comparisons of one size). Holm
across the comparisons, at alpha. With units too few for any adjusted p <= alpha the gate cannot clear the
run: `acceptance-undecided`, held (exit 1), as triage's no-power.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from k3diff.telemetry.engines import SOURCE_SGLANG
from k3diff.telemetry.gatemodel import (
    ACCEPTANCE_UNDECIDED,
    GATE_EXACT_SPLITS,
    GATE_RESAMPLES,
    UNREPORTED_PREFIX,
    AcceptanceGate,
    GateFinding,
    GateTest,
    SideUnits,
)
from k3diff.telemetry.windows import CounterReset, lost_to_how, lost_units, side_lost

MIN_UNITS = 2
"""Units a side a comparison needs (scipy's permutation_test takes no fewer; with 1 the
fewest splits would be 2)."""

SAME_SERVER_PREFIX = "base and patch were one server "

OneServer = tuple[Sequence[tuple[str, str]], bool]
"""Each log whose base and patch were one server with where (`TelemetryReport.one_server`),
and whether `--allow-same-server` judges it anyway (an A/A calibration run)."""

Units = list[tuple[int, int]]
"""Per unit: (accepted, total)."""


def _units(counts: SideUnits, position: int | None) -> Units:
    """The side's units with something drafted, as (accepted, total) at `position`."""
    if position is None:
        return [u for u in counts.token_units if u[1] > 0]
    return [
        (at_least[position - 1] if position <= len(at_least) else 0, drafts)
        for drafts, at_least in counts.position_units
        if drafts > 0
    ]


def pooled_units(counts: SideUnits) -> Units:
    """The side's units in the pooled comparison: (accepted, drafted) tokens of each unit that
    drafted."""
    return _units(counts, None)


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


def _no_comparison(sides: Mapping[str, SideUnits], resets: Sequence[CounterReset]) -> str:
    missing = []
    for side in ("base", "patch"):
        found = sides.get(side)
        if found is None and (lost := side_lost(resets, side)) is not None:
            missing.append(f"{side}: no speculation counts left, {lost}")
        elif found is None:
            missing.append(f"{side}: no speculation counts reported")
        elif not _units(found, None):
            missing.append(f"{side}: 0 drafted tokens in {found.requests} requests")
        elif len(_units(found, None)) < MIN_UNITS:
            missing.append(
                f"{side}: 1 unit with drafted tokens, and a permutation test needs "
                f"{MIN_UNITS} a side"
            )
    return "nothing to compare (" + "; ".join(missing) + "), so no drop could have been detected"


def compared_positions(base: SideUnits, patch: SideUnits) -> int:
    """How many draft positions both sides report. vLLM's per-position counter has one series
    a position the server drafts at; SGLang's histogram grows only to the most tokens a verify
    step accepted (`update_spec_acceptance_histogram`), so a position past it is one no step
    reached (0 of the drafts), not one unreported. Comparing only the positions both lists
    reach left out exactly those a patch breaks (review65: base at position 3 in 4 of 10
    drafts, patch never there, and the gate passed on positions 1-2)."""
    reach = [max((len(a) for _, a in c.position_units), default=0) for c in (base, patch)]
    closed = [n for n, c in zip(reach, (base, patch), strict=True) if c.source != SOURCE_SGLANG]
    return min(closed) if closed else max(reach)


def _rows(sides: Mapping[str, SideUnits]) -> list[tuple[int | None, Units, Units]]:
    """The comparisons the gate makes: (position, None for pooled; base units; patch units)."""
    base, patch = sides.get("base"), sides.get("patch")
    rows: list[tuple[int | None, Units, Units]] = []
    if base is not None and patch is not None:
        longest = compared_positions(base, patch)
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
    sides: Mapping[str, SideUnits],
    alpha: float,
    resets: Sequence[CounterReset] = (),
    one_server: OneServer = ((), False),
) -> AcceptanceGate:
    """The gate's tests and findings from each side's units, the vLLM counter resets of the
    run and its logs whose base and patch were one server with whether that is allowed
    (`--allow-same-server`): `telemetry` from the logs, `report` again from the document's
    `acceptance_units`, `counter_resets`, `one_server` and the gate's `allow_same_server`."""
    from k3diff.correction import holm
    from k3diff.telemetry.permutation import p_values

    block = max((u.block for u in sides.values()), default=1)
    rows = _rows(sides)
    found = p_values([(b, p) for _, b, p in rows])
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
    if not findings and one_server[0] and not one_server[1]:
        findings.append(GateFinding(ACCEPTANCE_UNDECIDED, None, same_server(one_server[0])))
    elif not findings and smallest is None:
        findings.append(GateFinding(ACCEPTANCE_UNDECIDED, None, _no_comparison(sides, resets)))
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
    elif not findings and (unreported := _unreported(sides, len(tests))) is not None:
        findings.append(GateFinding(ACCEPTANCE_UNDECIDED, None, unreported))
    return AcceptanceGate(
        tests,
        smallest,
        tuple(findings),
        GATE_EXACT_SPLITS,
        GATE_RESAMPLES,
        (lost[0], lost[1]),
        block,
        one_server[1],
    )


def same_server(logs: Sequence[tuple[str, str]]) -> str:
    """Why a gate that found no drop does not pass a run whose base and patch were one server
    (hunt72b: such a run passed, exit 0, where triage holds it same-server): its two sides'
    counts are one server's under two labels, so no drop between them says nothing of a patch."""
    where = "; ".join(f"{log}: {found}" for log, found in logs)
    return (
        f"{SAME_SERVER_PREFIX}({where}), so no drop between them is no pass of a patch; sample "
        "a base and a patch server, or --allow-same-server for an A/A calibration run"
    )


def _lost(resets: Sequence[CounterReset], tests: tuple[GateTest, ...], block: int) -> str:
    """Why a gate that found no drop in the units it kept does not pass: units lost (vLLM
    windows to a restarted server or an unread /metrics; any unit to invalid counts) are in no
    test."""
    lost = [r for r in resets if r.lost]
    first, used = lost[0], tests[0]
    why = lost_to_how(lost)
    return (
        f"{lost_units(lost)} lost to {why}; first: {first.side}, {first.metric}, "
        f"{first.where()}): the tests used {used.base_units:,} base and {used.patch_units:,} "
        f"patch {_of(block)}, not every unit the run sampled, so no drop in them is no pass; "
        "a run that loses none decides it"
    )


def _positions(reach: int) -> str:
    return "no positions" if reach == 0 else "position 1" if reach == 1 else f"positions 1-{reach}"


def _drafted_depth(side: SideUnits) -> int:
    """The positions a vLLM side drafted at: its draft tokens per draft (vLLM counts k draft
    tokens a draft), so a base whose per-position counter shows fewer positions than it drafted
    is told apart from one that drafts shallower than the patch (hunt74b); 0 for SGLang, whose
    histogram ends where no step reached."""
    drafts = sum(d for d, _ in side.position_units)
    if side.source == SOURCE_SGLANG or drafts == 0:
        return 0
    return -(-sum(t for _, t in side.token_units) // drafts)


def _unreported(sides: Mapping[str, SideUnits], tests: int) -> str | None:
    """Why a gate that found no drop does not pass when the base reports draft positions the
    patch does not (no per-position counter, or fewer positions), or the patch reports positions
    and the base none: those positions are in no test, and a drafter broken there barely moves
    the pooled rate (hunt72b: a patch without vLLM's per-position counter passed on the pooled
    test alone), or a vLLM base shows fewer positions than it drafted beside a patch reporting
    more (hunt74b). A patch that drafts deeper than the base leaves nothing of the base
    untested."""
    base, patch = sides.get("base"), sides.get("patch")
    if base is None or patch is None:
        return None
    reach = [max((len(a) for _, a in c.position_units), default=0) for c in (base, patch)]
    compared = compared_positions(base, patch)
    hidden = compared < min(reach[1], _drafted_depth(base))  # the base drafted, unshown
    if reach[0] <= compared and not compared == 0 < reach[1] and not hidden:
        return None
    last = max(reach)
    untested = f"position {last}" if compared + 1 == last else f"positions {compared + 1}-{last}"
    return (
        f"{UNREPORTED_PREFIX}{_positions(reach[0])}, patch {_positions(reach[1])}: {untested} in no "
        f"test, where a broken drafter's late positions move the pooled rate little, so no drop "
        f"in the {tests} tests is no pass; a run whose sides report the same positions decides it"
    )
