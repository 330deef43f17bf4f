"""`k3diff triage`: classify every mismatch of a comparison as regression or nondeterminism."""

from __future__ import annotations

from pathlib import Path

import click

from k3diff.cli.common import FiniteFloatRange, input_cap_options, output_options
from k3diff.cli.summaries import SUMMARIES
from k3diff.errors import UsageError
from k3diff.output import OutputFormat, emit, short_verdict
from k3diff.sample.names import SAMPLING_MODES
from k3diff.triage.settings import DEFAULT_ALPHA, Correction, Settings

_UNIT = FiniteFloatRange(min=0.0, max=1.0, min_open=True, max_open=True)
# A level below 1e-308 halves (α / 2, a sampled test's) to 0 or past what a float divides by:
# an internal error until review78g's note; no run can reach such a level anyway (the least p
# of 99,999 permutations is 1e-5).
_ALPHA = FiniteFloatRange(min=1e-308, max=1.0, max_open=True)


@click.command("triage", short_help=SUMMARIES["triage"])
@click.argument("comparison", required=False, type=click.Path(path_type=Path))
@click.argument("samples", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--alpha",
    type=_ALPHA,
    default=DEFAULT_ALPHA,
    show_default=True,
    help="Significance level of bounds, intervals and tests.",
)
@click.option(
    "--bound",
    type=_UNIT,
    default=0.05,
    show_default=True,
    help="Non-modal mass a stable side must be bounded by to be decisive.",
)
@click.option(
    "--near-tie",
    "near_tie",
    metavar="GAP",
    type=FiniteFloatRange(min=0.0),
    default=0.1,
    show_default=True,
    help="Flag a divergence, and splits, whose top-1/top-2 logprob gap is below GAP (nats).",
)
@click.option(
    "--correction",
    type=click.Choice([c.value for c in Correction]),
    default=Correction.HOLM.value,
    show_default=True,
    help="Multiple-testing correction, one family per kind: the per-record Fisher p-values, the "
    "novelty tests, and the distribution tests (count, MMD, first-token, and their pooled tests).",
)
@click.option(
    "--fail-inconclusive",
    is_flag=True,
    help="Exit 1 when any record is inconclusive too (for gates that must decide every record).",
)
@click.option(
    "--pool-runs",
    is_flag=True,
    help="Pool sample logs of different runs (each run is listed in the output).",
)
@click.option(
    "--capture-mode",
    type=click.Choice(list(SAMPLING_MODES)),
    default=None,
    help="Count each side's captured response as one observation of this mode (only when it "
    "was taken under that mode's conditions; default: the capture counts in no mode).",
)
@click.option(
    "--allow-condition-mismatch",
    is_flag=True,
    help="Show samples whose request differs from the captured one (temperature, seed, "
    "stream, route, ...) or that were answered as another model, instead of refusing them "
    "(exit 2); their records clear nothing.",
)
@click.option(
    "--allow-same-server",
    is_flag=True,
    help="Base and patch were sampled from one server on purpose (an A/A calibration run): "
    "judge its records as any. Without it a log whose base and patch connect to one server "
    "with the same parameters (however the URLs are spelled) clears nothing: its records are "
    "held same-server (exit 1).",
)
@click.option(
    "--power",
    type=_UNIT,
    default=0.8,
    show_default=True,
    help="Each verdict states the smallest rate of a patch output its samples would have seen "
    "with this power (1 - (1 - power)^(1/n)).",
)
@click.option(
    "--shift",
    type=FiniteFloatRange(min=0.0, max=1.0, min_open=True),
    default=0.35,
    show_default=True,
    help="The share of a sampled mode's answers moved to one new answer its distribution test "
    "must have --power to detect: a sampled mode that did not reject and could detect only a "
    "larger shift (or none) is held no-power (inconclusive, fails the run); with --plan, the "
    "shift the samples per side per prompt are sized for.",
)
@click.option(
    "--prompts",
    type=click.IntRange(min=1),
    default=None,
    help="--plan: the prompts of the sampled run; its samples per side per prompt are sized at "
    "the level triage judges each test at, α / 2 over the run's distribution tests (default: "
    "one).",
)
@click.option(
    "--modes",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="--plan: the sampled modes of the run (each adds --prompts records and a pooled test).",
)
@click.option(
    "--plan",
    "plan_only",
    is_flag=True,
    help="Only print how many observations per side reach --bound at --alpha, and the samples "
    "per side per prompt a sampled run needs to detect --shift (exact Fisher power).",
)
@output_options
@input_cap_options
def triage_command(
    comparison: Path | None,
    samples: tuple[Path, ...],
    alpha: float,
    bound: float,
    near_tie: float,
    correction: str,
    fail_inconclusive: bool,
    pool_runs: bool,
    capture_mode: str | None,
    allow_condition_mismatch: bool,
    allow_same_server: bool,
    power: float,
    plan_only: bool,
    prompts: int | None,
    modes: int,
    shift: float,
    output_format: str,
    output: Path | None,
) -> int:
    """Classify each record of COMPARISON (k3diff responses --format json) from SAMPLES logs.

    Categories: match, base-nondeterminism (the patch's outputs all among the base's, at the
    base's rates), patch-outside-base, distribution-shift (the patch's outputs do not follow the
    base's distribution: an exact count test where outputs repeat, a permutation MMD test where
    requests sample), patch-nondeterminism, deterministic-divergence, both-nondeterministic,
    inconclusive. n in a mode counts the samples taken in that mode; the capture is evidence of
    its own (where each side's came back) unless --capture-mode. Serial parity (batch 1) heads
    the summary, and a serial deterministic divergence fails its record whatever other modes
    show. Each unstable side gets a split tree (where its outputs leave the modal one, with the
    logprob margin there when the samples carry logprobs). Exit 1 when any record is a
    regression candidate (deterministic-divergence, patch-outside-base, distribution-shift,
    or patch-nondeterminism significant after correction), 0 otherwise
    (inconclusive records are counted, not passed silently; --fail-inconclusive fails them
    too; a record its evidence could not clear fails: a mode not exercised or unproven,
    samples of another condition, a patch capture the samples do not explain, a differing
    record never sampled, lines a log lacks of what its header says its run owed, or a log
    that states no format and so cannot show them (unlogged), captures of different
    prompts, fields other than the text that
    differ (fields-unjudged), a patch that ends its answers otherwise than the base (its
    finish reasons: finish-reason-shift) or gives a text as other token ids
    (token-ids-differ) or fails requests more often (patch-errors), a sampled record
    whose distribution test did not reject and at its n could not have detected --shift of
    its answers moved (no-power), a greedy patch
    output the base never gave left undecided (novel-undecided), a vacuous control, base and
    patch sampled from one server with the same parameters (same-server, unless
    --allow-same-server: an A/A calibration run)), 2 on
    unreadable input. A sample counts only for the request it
    repeats: samples of another prompt, or whose route, stream or sampling fields differ from
    the captured request, are refused (exit 2) unless --allow-condition-mismatch.

    \b
    Examples:
      k3diff responses base.jsonl patch.jsonl --format json -o cmp.json
      k3diff triage cmp.json run/samples.jsonl
      k3diff triage cmp.json run/samples.jsonl --format markdown
      k3diff triage cmp.json serial/samples.jsonl loaded/samples.jsonl --pool-runs
      k3diff triage --plan --bound 0.05 --alpha 0.05
      k3diff triage --plan --bound 0.05 --alpha 0.05 --shift 0.2 --power 0.9 --prompts 3
    """
    # Imported here: `--help` does not load the statistics, readers and renderers.
    from k3diff.report.triage import render, verdict_text
    from k3diff.report.triageplan import render_plan
    from k3diff.triage.plan import plan
    from k3diff.triage.run import triage

    fmt = OutputFormat(output_format)
    if plan_only:
        if comparison is not None:
            raise UsageError("--plan takes no COMPARISON or SAMPLES")
        sized = plan(bound, alpha, shift, power, prompts, modes)
        emit(render_plan(sized, fmt), output, short_verdict(sized.exit_code))
        return int(sized.exit_code)
    if prompts is not None or modes != 1:
        raise UsageError("--prompts and --modes size a --plan (a run's come from its samples)")
    if comparison is None or not samples:
        raise UsageError("give a COMPARISON and at least one SAMPLES log (or --plan)")
    settings = Settings(
        alpha=alpha,
        bound=bound,
        near_tie=near_tie,
        correction=Correction(correction),
        fail_inconclusive=fail_inconclusive,
        capture_mode=capture_mode,
        allow_condition_mismatch=allow_condition_mismatch,
        allow_same_server=allow_same_server,
        power=power,
        shift=shift,
    )
    result = triage(comparison, samples, settings, pool_runs)
    # Every format written to -o is followed by the verdict line built from the result (never
    # read back out of the report: the Markdown one ends with its table of input keys).
    emit(render(result, fmt), output, verdict_text(result))
    return int(result.exit_code)
