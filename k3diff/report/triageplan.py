"""Render triage's `--plan` answer: the observations per side that bound a side's non-modal mass,
and the samples per prompt a sampled run needs to detect the shift asked for, as text, Markdown
or JSON (`documents.triage.write_plan`).
"""

from __future__ import annotations

from typing import assert_never

from k3diff.documents import triage as triage_document
from k3diff.output import OutputFormat
from k3diff.report.planmmd import mmd_clause
from k3diff.report.sampledlevel import level_clause
from k3diff.triage.model import Plan


def _share(value: float) -> str:
    """A bound to four decimals, or to three significant digits where four decimals would
    print 0.0000 (a plan for --bound 1e-11 achieves about 1e-11, not zero); a plan prints the
    bound it achieves and the one asked for alike, so the first never reads above the second."""
    return f"{value:.4f}" if value >= 0.001 else f"{value:.3g}"


def render_plan(plan: Plan, fmt: OutputFormat) -> str:
    """A `--plan` answer in the chosen format."""
    if fmt is OutputFormat.JSON:
        return triage_document.write_plan(plan)
    if plan.prompts is None:
        run = ""
        assumed = (
            "; that is one prompt in one mode: triage judges each of P prompts' tests at "
            "α / 2 / (P + 1), with their pooled test; give --prompts P (and --modes M)"
        )
    else:
        modes = f" in {plan.modes:,} modes" if plan.modes != 1 else ""
        run = f" of {plan.prompts:,} prompt{'s' if plan.prompts != 1 else ''}{modes}"
        assumed = ""
    records = (plan.prompts or 1) * plan.modes
    line = (
        f"{plan.per_side:,} observations per side, all agreeing, bound a side's non-modal mass "
        f"by {_share(plan.achieved_bound)} ≤ {_share(plan.bound)} at α = {plan.alpha:g} "
        f"(run --repeats {plan.per_side}; the captured response is not one of them); "
        f"a sampled run (temperature > 0){run} needs {plan.per_prompt:,} samples per side per "
        f"prompt to detect {100 * plan.shift:.3g} % of the answers moved to one new answer with "
        f"{100 * plan.power:.3g} % power at "
        f"{level_clause(plan.alpha, plan.level, records, plan.tests - records, True)} (exact "
        "power of the "
        f"one-sided Fisher test on that answer's count, at n and up to 2n{assumed})"
    ) + mmd_clause(plan)
    if fmt is OutputFormat.MARKDOWN:
        return f"## k3diff triage --plan\n\n{line}.\n"
    if fmt is OutputFormat.TEXT:
        return line + "\n"
    assert_never(fmt)
