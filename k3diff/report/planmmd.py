"""The MMD test's own figure in `triage --plan`'s answer (`triage.mmdplan`): stated for a
base that gives one answer, and said not to cover one whose answers vary."""

from __future__ import annotations

from k3diff.triage.distribution import permutations_for
from k3diff.triage.model import Plan
from k3diff.triage.steadyn import MOST_PER_PROMPT


def mmd_clause(plan: Plan) -> str:
    """'; the MMD test … needs N … not covered' (the count test's figure is the plan's)."""
    covers = (
        "where the base's answers vary it needs more, by an amount only their texts tell (about "
        "twice on a real server's text, aa78): that case is not covered by the plan, each "
        "verdict states its own figure"
    )
    if plan.per_prompt_mmd is None:
        permutations = permutations_for(plan.tests, plan.level * plan.tests)
        if plan.level * (1 + permutations) < 1:
            return (
                "; the MMD test, which judges a sampled run whose texts are logged, rejects at "
                f"no n here: its least p, 1 / {1 + permutations:,} ({permutations:,} label "
                f"permutations, the most it draws), is above the level {plan.level:.3g}"
            )
        return (
            "; the MMD test, which judges a sampled run whose texts are logged, has no figure "
            f"here (more than {MOST_PER_PROMPT:,} per side per prompt); {covers}"
        )
    return (
        f"; the MMD test, which judges a sampled run whose texts are logged, needs "
        f"{plan.per_prompt_mmd:,} per side per prompt for the same shift, power and level where "
        "the base gives one answer (exact, with the label permutations it draws: its "
        f"permutation p is then the two-sided count test's); {covers}"
    )
