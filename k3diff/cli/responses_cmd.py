"""`k3diff responses`: compare captured base and patch server responses record by record."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import click

from k3diff.cli.common import FiniteFloatRange, input_cap_options, output_options
from k3diff.cli.progress import TerminalProgress
from k3diff.cli.samefile import refuse_same_file
from k3diff.cli.summaries import SUMMARIES
from k3diff.output import OutputFormat, emit_chunks
from k3diff.report.responses import DEFAULT_LIMIT, StreamedReport, verdict_text
from k3diff.responses import CompareOptions, Normalization, compare_streaming
from k3diff.responses.noise import noise_band
from k3diff.responses.scoregate import DEFAULT_TOLERANCE_POINTS, GATE, GateOptions
from k3diff.responses.scores import DEFAULT_ALPHA


def gate_options(fail_on: tuple[str, ...], tolerances: tuple[str, ...]) -> GateOptions | None:
    """`--fail-on score-drop` and its `--score-tolerance` values; UsageError naming a value that
    is not POINTS or NAME=VALUE (a finite number >= 0), or a tolerance without the gate."""
    if GATE not in fail_on:
        if tolerances:
            raise click.UsageError(f"--score-tolerance applies to --fail-on {GATE}; give both")
        return None
    points, named = DEFAULT_TOLERANCE_POINTS, {}
    bare = [value for value in tolerances if "=" not in value]
    if len(bare) > 1:
        raise click.UsageError(
            f"--score-tolerance given {len(bare)} bare POINTS values ({', '.join(bare)}): give "
            "one (a later value would silently replace an earlier one)"
        )
    for value in tolerances:
        name, sep, number = value.rpartition("=")
        # NAME=VALUE is in the metric's own units, NAME=VALUEpt in points (0.01 of a metric on
        # [0, 1]): never in units the data choose (one partial grade makes a binary metric
        # continuous). A bare POINTS keeps meaning points of accuracy.
        scale = 1.0
        if sep and number.endswith("pt"):
            number, scale = number[:-2], 0.01
        try:
            amount = float(number) * scale
        except ValueError:
            amount = math.nan
        if not math.isfinite(amount) or amount <= 0 or (sep and not name):
            raise click.UsageError(
                f"--score-tolerance {value!r}: write POINTS, NAME=VALUE or NAME=POINTSpt, a "
                "finite number > 0"
            )
        if sep and name in named:
            raise click.UsageError(
                f"--score-tolerance names {name!r} twice: give one tolerance for each metric (a "
                "later value would silently replace an earlier one)"
            )
        if sep:
            named[name] = amount
        else:
            points = amount
    return GateOptions(points, tuple(named.items()))


@click.command("responses", short_help=SUMMARIES["responses"])
@click.argument("base", type=click.Path(path_type=Path))
@click.argument("patch", type=click.Path(path_type=Path))
@click.option(
    "--key",
    metavar="FIELD",
    default=None,
    help="Pair records by this field (a name or a dotted path such as meta.qid). "
    "Default: a key/custom_id/request_id field both sides carry, else the prompt's hash, "
    "else the records' ids.",
)
@click.option(
    "--by-order",
    is_flag=True,
    help="Pair the Nth record of each side (for captures with per-run ids and no prompt: bare "
    "chat.completion objects, SSE streams). Refused when the sides hold different counts.",
)
@click.option(
    "--allow-unpaired",
    is_flag=True,
    help="Records on one side only do not fail the run (they are still reported). "
    "A run where nothing pairs fails regardless.",
)
@click.option(
    "--normalize",
    "normalize",
    multiple=True,
    type=click.Choice([n.value for n in Normalization]),
    help="Normalise texts before comparing (repeatable); reported in the output. "
    "Hashes stay of the exact text.",
)
@click.option(
    "--include-volatile",
    is_flag=True,
    help="Also compare ids, timestamps and fingerprints (ignored by default; latency and cache "
    "counters are run state, reported and never compared).",
)
@click.option(
    "--ignore-field",
    "ignore_fields",
    metavar="PATH",
    multiple=True,
    help="Leave this compared field out (repeatable; dotted as the report names it: model, "
    "usage.total_tokens, choice.message.role). Said in every output; the text, token ids, "
    "finish reason and logprobs cannot be ignored.",
)
@click.option(
    "--logprob-tol",
    type=FiniteFloatRange(min=0),
    default=0.0,
    show_default=True,
    help="Largest |Δ logprob| of a sampled token, over the common token prefix, that still "
    "agrees; beyond it a record with equal text is logprobs-differ (exit 1).",
)
@click.option(
    "--near-tie",
    type=FiniteFloatRange(min=0),
    default=0.1,
    show_default=True,
    help="Largest logprob gap (nats) at a divergence that is called a near tie.",
)
@click.option(
    "--text-field",
    metavar="PATH",
    default=None,
    help="Read the text at this path of each record (dotted, list indexes: outputs.0.text).",
)
@click.option(
    "--tokens-field",
    metavar="PATH",
    default=None,
    help="Read the token ids at this path of each record (e.g. outputs.0.token_ids).",
)
@click.option(
    "--beam",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Which beam of a TensorRT-LLM record (list-valued text/output_ids) to compare.",
)
@click.option(
    "--lm-eval-field",
    type=click.Choice(["resps", "filtered_resps"]),
    default="resps",
    show_default=True,
    help="lm-eval samples: compare the raw generations (resps, every repeat) or what the "
    "metrics were computed from (filtered_resps).",
)
@click.option(
    "--base-rerun",
    type=click.Path(path_type=Path),
    default=None,
    metavar="FILE",
    help="A second run of the base: the same statistics between the two base runs are shown "
    "beside base-vs-patch (the engine's own noise band; reported, never a failure).",
)
@click.option(
    "--score-alpha",
    type=FiniteFloatRange(min=0, max=1, min_open=True, max_open=True),
    default=DEFAULT_ALPHA,
    show_default=True,
    help="Family-wise error rate of the paired eval-score tests (McNemar's exact test, "
    "Wilcoxon signed-rank; Holm across metrics). A score significantly worse fails the run.",
)
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    type=click.Choice([GATE]),
    help="score-drop: gate on the eval scores, not the text. Text differences are reported "
    "and no longer fail by themselves; a metric fails when significantly worse (score-drop) "
    "and is held (score-undecided, exit 1) unless the run could detect a change of "
    "--score-tolerance at Holm's level with 80 % power. Metrics on one side only, prompts "
    "that differ, failed requests, unpaired records and logs without scores never pass.",
)
@click.option(
    "--score-tolerance",
    "score_tolerance",
    multiple=True,
    metavar="POINTS|NAME=VALUE|NAME=POINTSpt",
    help="With --fail-on score-drop: the smallest drop a pass must be able to detect. POINTS: "
    "binary metrics and per-sample means of epochs each scored 0 or 1, in points of accuracy "
    f"(default {DEFAULT_TOLERANCE_POINTS:g}); NAME=VALUE: one metric, in its own units "
    "(acc=0.02), or in points with pt (acc=2pt); a value of 1 or more on a metric scored in "
    "[0, 1] is held as ambiguous (any other continuous metric without one is held). "
    "Repeatable: one POINTS, each NAME once.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=DEFAULT_LIMIT,
    show_default=True,
    help="Rows in the text/Markdown table, worst first (0: all). JSON has every record.",
)
@output_options
@input_cap_options
def responses(
    base: Path,
    patch: Path,
    key: str | None,
    by_order: bool,
    allow_unpaired: bool,
    normalize: tuple[str, ...],
    include_volatile: bool,
    ignore_fields: tuple[str, ...],
    logprob_tol: float,
    near_tie: float,
    text_field: str | None,
    tokens_field: str | None,
    beam: int,
    lm_eval_field: str,
    base_rerun: Path | None,
    score_alpha: float,
    fail_on: tuple[str, ...],
    score_tolerance: tuple[str, ...],
    limit: int,
    output_format: str,
    output: Path | None,
) -> int:
    """Compare BASE and PATCH captured responses record by record.

    Reads JSON arrays, JSONL, {"responses": [...]} / {"records": [...]} documents, OpenAI
    completion and chat-completion objects (bare or wrapped with the request, n > 1 choices as
    KEY#i), SSE transcripts, vLLM RequestOutput dumps, TensorRT-LLM batch records, SGLang
    /generate answers, lm-eval samples_*.jsonl, inspect_ai logs (.eval or JSON) and vllm bench
    serve --save-detailed results. Eval scores (lm-eval metrics, inspect_ai scores) are
    compared as paired data (McNemar's exact test, Wilcoxon signed-rank; Holm across metrics).
    Exit 1 when any paired record differs (a failed request or a cut stream counts as a
    difference; so do logprobs beyond --logprob-tol), when a record is on one side only (unless
    --allow-unpaired), when nothing pairs, or when a score is significantly worse; 2 when an
    input cannot be read or paired (a pair whose requests differ is refused). With --fail-on
    score-drop, differing texts alone do not fail: each metric passes, fails (score-drop) or is
    held (score-undecided) on its scores and on what the run could have detected.

    \b
    Examples:
      k3diff responses base.jsonl patch.jsonl
      k3diff responses base.sse patch.sse --by-order --format json -o diff.json
      k3diff responses base.json patch.json --normalize trailing-whitespace --format markdown
      k3diff responses base.eval patch.eval --base-rerun base-again.eval
      k3diff responses base.jsonl patch.jsonl --ignore-field model
      k3diff responses base/samples_gsm8k.jsonl patch/samples_gsm8k.jsonl --fail-on score-drop
    """
    _refuse_one_file(base, patch, base_rerun)
    options = CompareOptions(
        key=key,
        normalize=tuple(Normalization(n) for n in normalize),
        include_volatile=include_volatile,
        ignore_fields=ignore_fields,
        allow_unpaired=allow_unpaired,
        by_order=by_order,
        logprob_tol=logprob_tol,
        near_tie=near_tie,
        text_field=text_field,
        tokens_field=tokens_field,
        beam=beam,
        lm_eval_field=lm_eval_field,
        score_alpha=score_alpha,
        score_gate=gate_options(fail_on, score_tolerance),
    )
    fmt = OutputFormat(output_format)
    progress = TerminalProgress("responses")
    with StreamedReport(fmt, limit) as report:
        try:
            overview = compare_streaming(
                base,
                patch,
                options,
                report.add,
                progress=progress.listener,
                on_match=report.add_match,
            )
            if base_rerun is not None:
                overview = replace(overview, noise=noise_band(base, base_rerun, options))
        finally:
            progress.close()
        verdict = verdict_text(overview)
        emit_chunks(report.chunks(overview), output, verdict)
    return int(overview.exit_code)


def _refuse_one_file(base: Path, patch: Path, base_rerun: Path | None) -> None:
    """BASE, PATCH and --base-rerun naming one file: exit 2. A log compared with itself differs
    nowhere and its scores moved nowhere, an exit 0 that says nothing of the patch."""
    give = "give each run's own log"
    refuse_same_file(base, patch, ("BASE", "PATCH"), give)
    if base_rerun is not None:
        refuse_same_file(base, base_rerun, ("BASE", "--base-rerun"), give)
        refuse_same_file(patch, base_rerun, ("PATCH", "--base-rerun"), give)
