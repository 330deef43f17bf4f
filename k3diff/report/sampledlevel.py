"""The level a sampled run's distribution tests are judged at, in words: the plan
(`triage --plan --prompts P`) and `k3diff sample`'s end summary say the same."""

from __future__ import annotations


def level_clause(alpha: float, records: int, pooled: int) -> str:
    """'α / 4 distribution tests = 0.0125 (3 records and their pooled test, triage's level;
    first-token tests, where the samples carry logprobs, add to them)'; 'α = 0.05 (one
    record, triage's level; ...)' for one record and no pooled test."""
    tests = records + pooled
    parts = [f"{records:,} record{'s' if records != 1 else ''}"]
    if pooled == 1:
        parts.append("their pooled test")
    elif pooled:
        parts.append(f"{pooled:,} pooled tests")
    level = (
        f"α = {alpha:g}"
        if tests == 1
        else f"α / {tests:,} distribution tests = {alpha / tests:.3g}"
    )
    return (
        f"{level} ({' and '.join(parts)}, triage's level; first-token tests, where the samples "
        "carry logprobs, add to them)"
    )
