"""Acceptance by draft position, base vs patch: a Clopper-Pearson interval per side and
position, Fisher's exact test per position Holm-corrected across positions, and the seed's
coverage check (`--expect draft-lengths=1-K`).

A patch that hurts late draft positions barely moves the mean acceptance rate; the
per-position rates show it. Drafts of one request are not independent, so read the tests as a
screen, as the pooled one.
"""

from __future__ import annotations

from k3diff.telemetry.accounting import Accounts
from k3diff.telemetry.engines import SOURCE_SGLANG
from k3diff.telemetry.model import PositionRate, PositionTest


def position_rates(accounts: Accounts, sides: list[str], alpha: float) -> tuple[PositionRate, ...]:
    """Per side whose speculation source reports positions, one rate per position."""
    from scipy.stats import binomtest

    rates = []
    for side in sides:
        found = accounts.source(side)
        if found is None or not found[1].positions:
            continue
        counts = found[1]
        for index, accepted in enumerate(counts.at_least):
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
    at_least = [*counts.at_least, *[0] * (reported - len(counts.at_least))]
    unseen = [n for n in range(1, min(longest, reported) + 1) if at_least[n - 1] == 0]
    unreported = list(range(reported + 1, longest + 1))
    parts = []
    if unseen:
        parts.append(
            f"draft length {_lengths(unseen)} never accepted in {counts.drafts:,} drafts"
            if len(unseen) == 1
            else f"draft lengths {_lengths(unseen)} never accepted in {counts.drafts:,} drafts"
        )
    if unreported:
        parts.append(
            f"draft length {_lengths(unreported)} not reported"
            if len(unreported) == 1
            else f"draft lengths {_lengths(unreported)} not reported"
        )
        parts[-1] += f" ({found[0]} reports positions 1-{reported})"
    return "; ".join(parts) if parts else None
