"""The level a sampled run's distribution tests are judged at, in words: the plan
(`triage --plan --prompts P`) and `k3diff sample`'s end summary say the same."""

from __future__ import annotations

from k3diff.triage.sampledlevel import alpha_text, over_text


def level_clause(alpha: float, level: float, records: int, pooled: int, sampled: bool) -> str:
    """'α / 2 / 4 distribution tests = 0.00625 (3 records and their pooled test, triage's
    level, the novelty test having the other half of α; first-token tests, where the samples
    carry logprobs, add to them)'; 'α / 2 = 0.025 (one record, ...)' for one record and no
    pooled test. `level` is the one the figure was sized at (`plan.sampled_figure`,
    `Plan.level`); `sampled`: halved (`sampledlevel`)."""
    tests = records + pooled
    parts = [f"{records:,} record{'s' if records != 1 else ''}"]
    if pooled == 1:
        parts.append("their pooled test")
    elif pooled:
        parts.append(f"{pooled:,} pooled tests")
    stated = (
        alpha_text(alpha, sampled)
        if tests == 1
        else f"{over_text(sampled)}{tests:,} distribution tests = {level:.3g}"
    )
    shared = ", the novelty test having the other half of α" if sampled else ""
    return (
        f"{stated} ({' and '.join(parts)}, triage's level{shared}; first-token tests, where "
        "the samples carry logprobs, add to them)"
    )
