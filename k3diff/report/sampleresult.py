"""The last line of `k3diff sample`'s text and Markdown summary: what decides its exit code, as
`triage` and `responses` end with `result: ... (exit N)` (more80: the summary said `OK:` or
`FAILED:` at the head of its headline and never which exit code followed, nor, of a run that
took every sample, why it failed)."""

from __future__ import annotations

from k3diff.numbers import all_of
from k3diff.sample.model import SampleResult


def result_line(result: SampleResult, unproven: bool) -> str:
    """'result: every planned sample taken, none failed (exit 0)', or 'result: FAIL: 2 of 6
    samples failed; 4 of 10 planned samples not taken (exit 1)' naming each cause of exit 1
    (`SampleResult.ok`); `unproven`: the headline says CONCURRENCY NOT PROVEN, which exit 0
    does not clear (triage holds those modes)."""
    code = int(result.exit_code)
    if result.ok:
        held = "; triage holds the unproven batches' modes" if unproven else ""
        return f"result: every planned sample taken, none failed{held} (exit {code})"
    causes = []
    if result.failed:
        failed = (
            f"{all_of(result.failed)} samples"
            if result.failed == result.taken and result.failed > 1
            else f"{result.failed:,} of {result.taken:,} samples"
        )
        causes.append(f"{failed} failed (their errors are in the log)")
    if result.taken < result.planned:
        causes.append(
            f"{result.planned - result.taken:,} of {result.planned:,} planned samples not taken"
        )
    if result.vacuous:
        causes.append(
            f"the {' and '.join(result.vacuous)} control came back identical (vacuous: the run "
            "could not have shown a difference)"
        )
    if result.mixed_models:
        causes.append("a side answered one record as several models (triage refuses the log)")
    return f"result: FAIL: {'; '.join(causes)} (exit {code})"
