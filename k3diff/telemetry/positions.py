"""Acceptance by draft position, base vs patch: a Clopper-Pearson interval per side and
position, Fisher's exact test per position Holm-corrected across positions, and the seed's
coverage check (`--expect draft-lengths=1-K`).

A patch that hurts late draft positions barely moves the mean acceptance rate; the
per-position rates show it. Drafts of one request are not independent, so read the tests as a
screen, as the pooled one.
"""

from __future__ import annotations

from k3diff.telemetry.accounting import Accounts, SideCounts
from k3diff.telemetry.engines import SOURCE_SGLANG
from k3diff.telemetry.model import PositionRate, PositionTest


def _reach(accounts: Accounts, sides: list[str]) -> dict[str, tuple[SideCounts, int]]:
    """Per side that reports positions, its counts and how many positions it is read at.
    SGLang's histogram grows only to the most tokens a verify step accepted, so past it no
    draft reached (0, not "not reported"): an SGLang side is read as far as the other side's
    positions go, the gate's rule (`k3diff.telemetry.gate.compared_positions`). Before
    telemetry66 the Fisher screen stopped where both lists reached, so a patch whose drafter
    never reached position 3 had no screen there."""
    found = {}
    for side in sides:
        source = accounts.source(side)
        if source is not None and source[1].positions:
            found[side] = source
    closed = [len(c.at_least) for name, c in found.values() if name != SOURCE_SGLANG]
    longest = (
        min(closed) if closed else max((len(c.at_least) for _, c in found.values()), default=0)
    )
    return {
        side: (counts, max(len(counts.at_least), longest if name == SOURCE_SGLANG else 0))
        for side, (name, counts) in found.items()
    }


def position_rates(accounts: Accounts, sides: list[str], alpha: float) -> tuple[PositionRate, ...]:
    """Per side whose speculation source reports positions, one rate per position it is read
    at (`_reach`)."""
    from scipy.stats import binomtest

    rates = []
    for side, (counts, reach) in _reach(accounts, sides).items():
        at_least = [*counts.at_least, *[0] * (reach - len(counts.at_least))]
        for index, accepted in enumerate(at_least):
            low = high = None
            if counts.drafts:
                ci = binomtest(accepted, counts.drafts).proportion_ci(1 - alpha, method="exact")
                low, high = float(ci.low), float(ci.high)
            rates.append(PositionRate(side, index + 1, accepted, counts.drafts, low, high))
    return tuple(rates)


def position_tests(rates: tuple[PositionRate, ...]) -> tuple[PositionTest, ...]:
    """Base vs patch at every position both sides drafted at."""
    from scipy.stats import fisher_exact

    from k3diff.correction import holm

    base = {r.position: r for r in rates if r.side == "base" and r.drafts}
    patch = {r.position: r for r in rates if r.side == "patch" and r.drafts}
    shared = sorted(set(base) & set(patch))
    pvalues = []
    for position in shared:
        b, p = base[position], patch[position]
        table = [[b.accepted, b.drafts - b.accepted], [p.accepted, p.drafts - p.accepted]]
        pvalues.append(float(fisher_exact(table).pvalue))
    adjusted = holm(pvalues)
    return tuple(
        PositionTest(position, p, a)
        for position, p, a in zip(shared, pvalues, adjusted, strict=True)
    )


def _lengths(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def missing_lengths(accounts: Accounts, side: str, longest: int) -> str | None:
    """Why `side` did not show every draft length 1..longest, None when it did."""
    found = accounts.source(side)
    if found is None or not found[1].positions:
        source = f" ({found[0]} gives no positions)" if found is not None else ""
        if found is None and side in accounts.v0:
            source = " (vLLM V0 has no per-position counter)"
        return f"draft lengths 1-{longest} not reported: no per-position acceptance{source}"
    counts = found[1]
    reported = len(counts.at_least)
    if found[0] == SOURCE_SGLANG:
        # Its histogram ends at the most tokens a step accepted: past it, none reached.
        reported = longest
    # The modes' drafts only: the control's are not the requests under test (telemetry66).
    drafts, modes_at_least = counts.modes_positions()
    at_least = [*modes_at_least, *[0] * (reported - len(modes_at_least))]
    unseen = [n for n in range(1, min(longest, reported) + 1) if at_least[n - 1] == 0]
    unreported = list(range(reported + 1, longest + 1))
    parts = []
    if unseen:
        control = (
            f" (the control's {counts.drafts - drafts:,} not counted)"
            if drafts < counts.drafts
            else ""
        )
        parts.append(
            f"draft length {_lengths(unseen)} never accepted in {drafts:,} drafts{control}"
            if len(unseen) == 1
            else f"draft lengths {_lengths(unseen)} never accepted in {drafts:,} drafts{control}"
        )
    if unreported:
        parts.append(
            f"draft length {_lengths(unreported)} not reported"
            if len(unreported) == 1
            else f"draft lengths {_lengths(unreported)} not reported"
        )
        parts[-1] += f" ({found[0]} reports positions 1-{reported})"
    return "; ".join(parts) if parts else None
