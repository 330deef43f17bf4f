"""The clause `k3diff sample`'s summary gives a sampled run: how many samples per side per
prompt triage's distribution test needs at its default shift, level and power, what the run
took, which records it judges as greedy (seeded one-draw runs, base repeating one output), and
the `triage --plan` command that sizes a run."""

from __future__ import annotations

from k3diff.program import program
from k3diff.report.sampledlevel import level_clause
from k3diff.report.sampletook import took_clause
from k3diff.sample.model import RecordStats, SampleResult
from k3diff.triage.plan import plan_alpha, sampled_figure, test_kind

SIZE = "size a run with: "
"""The sizing hint's last clause; in text its command stands unquoted on a line of its own."""


def sampled_text(result: SampleResult) -> str:
    """'; the requests sampled (base, patch): triage judges ...' for a sampled run, with the
    samples a side triage requires of the records it tests by distribution, at its level
    (`triage.plan.sampled_figure`, a no-power hold's figure): its sampled records and the greedy
    ones whose outputs vary. Records that sent a fixed seed and repeated one output a side are
    one draw, judged as greedy (no distribution test; a run of only those is said to be one)."""
    if not result.sampled:
        return ""
    draws = _seeded_draws(result)
    kinds = _tested(result, draws)
    sampled = any(key in result.sampled_keys for key, _mode in kinds.keys() - draws)
    figure = sampled_figure(kinds, PLAN_ALPHA, PLAN_SHIFT, PLAN_POWER, sampled)
    if figure is None or not any(kind == "mmd" for kind in kinds.values()):
        if not draws:
            return ""
        return (
            f"; the requests sampled ({', '.join(result.sampled)}) with a fixed seed and each "
            "side repeated one output on every record: one draw, not independent draws, so "
            "triage judges them by their exact outputs, as greedy requests (no distribution test)"
        )
    needed = figure.per_prompt
    took = took_clause([r for r in result.records if (r.key, r.mode) in kinds], needed)
    unit = "records" if len({r.mode for r in result.records}) == 1 else "record/mode pairs"
    total = len({(r.key, r.mode) for r in result.records})
    if draws:
        took += (
            f"; {len(draws)} of {total} {unit} sent a fixed seed and repeated one output a side: "
            f"triage judges {'it' if len(draws) == 1 else 'them'} as greedy (one draw)"
        )
    untested = total - len(kinds) - len(draws - kinds.keys())
    if untested:
        took += (
            f"; {untested} of {total} {unit} sent greedy requests and repeated one output on "
            f"the base: {'it needs' if untested == 1 else 'they need'} no distribution test"
        )
    if figure.grid:
        command = f"{program()} triage --plan --shift {PLAN_SHIFT:g} --prompts {figure.prompts}"
        command += f" --modes {figure.modes}" if figure.modes != 1 else ""
    else:
        command = (
            f"{program()} triage --plan --shift {PLAN_SHIFT:g} "
            f"--alpha {plan_alpha(figure.level):.6g} --power {PLAN_POWER:g}"
        )
    return (
        f"; the requests sampled ({', '.join(result.sampled)}): every output may be new, so "
        "triage judges them by their output distribution (MMD test); moving "
        f"{100 * PLAN_SHIFT:.3g} % of the answers to one new answer is seen with "
        f"{100 * PLAN_POWER:.3g} % power at "
        f"{level_clause(PLAN_ALPHA, figure.level, figure.records, figure.pooled, sampled)} from "
        f"{needed} samples per side per prompt (exact power of the one-sided Fisher test on that "
        f"answer's count; fewer are held no-power, and the MMD test on real answers can need "
        f"more: a held mode's reason says how many){took}; {SIZE}{command}"
    )


def _tested(result: SampleResult, draws: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(key, mode) -> the distribution test triage will run on it (`plan.test_kind`): every
    record sampled on every side (not a seeded draw), whatever its samples so far; a greedy one
    where both sides took 2 or more and the base varied, or every output was new (as far as
    the counts tell: an output both sides gave is not seen here)."""
    sides: dict[tuple[str, str], dict[str, RecordStats]] = {}
    for r in result.records:
        sides.setdefault((r.key, r.mode), {})[r.side] = r
    kinds: dict[tuple[str, str], str] = {}
    for pair, found in sides.items():
        base, patch = found.get("base"), found.get("patch")
        if pair[0] in result.sampled_keys and pair not in draws:
            kinds[pair] = "mmd"
        elif base is not None and patch is not None and min(base.n, patch.n) >= 2:
            every_new = base.distinct == base.n and patch.distinct == patch.n
            kind = test_kind(False, every_new, base.distinct)
            if kind is not None:
                kinds[pair] = kind
    return kinds


def _seeded_draws(result: SampleResult) -> set[tuple[str, str]]:
    """(key, mode) of the records that sent a fixed seed on every side and repeated one output
    on each (2 or more samples, one text): one draw, which triage judges as greedy
    (`k3diff.triage.shift.seeded_draws`)."""
    sides: dict[tuple[str, str], list[bool]] = {}
    for r in result.records:
        if r.key in result.seeded:
            sides.setdefault((r.key, r.mode), []).append(r.n >= 2 and r.distinct == 1)
    return {pair for pair, one in sides.items() if all(one)}


PLAN_SHIFT, PLAN_ALPHA, PLAN_POWER = 0.35, 0.05, 0.8
"""The sampled-run figure of the summary: `triage`'s default shift, α and power."""
