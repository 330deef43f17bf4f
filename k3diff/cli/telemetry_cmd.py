"""`k3diff telemetry`: what the servers reported about a sampling run; was the axis exercised?"""

from __future__ import annotations

from pathlib import Path

import click

from k3diff.cli.common import FiniteFloatRange, input_cap_options, output_options
from k3diff.cli.summaries import SUMMARIES
from k3diff.output import OutputFormat, emit
from k3diff.report.telemetry import render, verdict_line
from k3diff.telemetry import Expectation, TelemetryOptions, summarize
from k3diff.telemetry.model import DEFAULT_ALPHA, Gate

MAX_DRAFT_LENGTH = 64
"""Longest draft length `--expect draft-lengths=1-K` may name."""


def parse_expectations(values: tuple[str, ...]) -> tuple[tuple[Expectation, ...], int | None]:
    """The `--expect` values as expectations, and K of `draft-lengths=1-K`; UsageError
    naming the value otherwise."""
    found: list[Expectation] = []
    longest: int | None = None
    for value in values:
        name, _, argument = value.partition("=")
        try:
            expectation = Expectation(name)
        except ValueError:
            raise click.UsageError(
                f"--expect {value!r}: not one of cache-reuse, speculation, draft-lengths=1-K"
            ) from None
        if expectation is Expectation.DRAFT_LENGTHS:
            first, _, last = argument.partition("-")
            if first != "1" or not last.isdigit() or not 1 <= int(last) <= MAX_DRAFT_LENGTH:
                raise click.UsageError(
                    f"--expect {value!r}: write draft-lengths=1-K, K from 1 to {MAX_DRAFT_LENGTH}"
                )
            longest = max(longest or 0, int(last))
        elif argument:
            raise click.UsageError(f"--expect {value!r}: {name} takes no value")
        if expectation not in found:
            found.append(expectation)
    return tuple(found), longest


@click.command("telemetry", short_help=SUMMARIES["telemetry"])
@click.argument("samples", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--expect",
    "expect",
    multiple=True,
    metavar="cache-reuse|speculation|draft-lengths=1-K",
    help="What the run was meant to exercise; a side showing none of it fails (repeatable). "
    "draft-lengths=1-K: every draft length 1..K accepted at least once on every side.",
)
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    type=click.Choice([g.value for g in Gate]),
    help="acceptance-drop: fail when the patch accepts fewer draft tokens than the base, pooled "
    "or at some draft position (one-sided permutation test over requests / vLLM windows, Holm, "
    "at --alpha); units too few for any p ≤ alpha fail too (acceptance-undecided).",
)
@click.option(
    "--alpha",
    type=FiniteFloatRange(min=0.0, max=1.0, min_open=True, max_open=True),
    default=DEFAULT_ALPHA,
    show_default=True,
    help="1 - confidence of the acceptance-rate intervals; the level of --fail-on's tests.",
)
@click.option(
    "--pool-runs",
    is_flag=True,
    help="Pool sample logs of different runs (a log given twice is refused either way).",
)
@click.option(
    "--allow-same-server",
    is_flag=True,
    help="Judge a run whose base and patch were one server (an A/A calibration run) with "
    "--fail-on acceptance-drop; without it such a run is held (acceptance-undecided).",
)
@input_cap_options
@output_options
def telemetry_command(
    samples: tuple[Path, ...],
    expect: tuple[str, ...],
    fail_on: tuple[str, ...],
    alpha: float,
    pool_runs: bool,
    allow_same_server: bool,
    output_format: str,
    output: Path | None,
) -> int:
    """Summarise what the servers reported about the run in SAMPLES logs (k3diff sample --out
    DIR/samples.jsonl, and DIR/perf_metrics.jsonl beside it): latency percentiles, cached
    prompt tokens and reused KV blocks per side and mode, speculative-decoding acceptance
    (TensorRT-LLM /perf_metrics, vLLM /metrics, SGLang meta_info) with Clopper-Pearson
    intervals and a base-vs-patch test, per draft position where the engine reports it.

    Exit 1 when an --expect axis was not exercised on a side (coverage debt, never a pass),
    or a --fail-on gate failed (acceptance-drop; acceptance-undecided: too few units, or no
    speculation counts, to decide, or base and patch one server without --allow-same-server),
    0 otherwise, 2 when a log cannot be read.

    \b
    Examples:
      k3diff telemetry run/samples.jsonl
      k3diff telemetry run/samples.jsonl --expect cache-reuse --format json -o telemetry.json
      k3diff telemetry run/samples.jsonl --expect speculation --expect draft-lengths=1-5
      k3diff telemetry run/samples.jsonl --fail-on acceptance-drop
    """
    expectations, longest = parse_expectations(expect)
    report = summarize(
        samples,
        TelemetryOptions(
            expect=expectations,
            alpha=alpha,
            draft_lengths=longest,
            fail_on=tuple(dict.fromkeys(Gate(g) for g in fail_on)),
            pool_runs=pool_runs,
            allow_same_server=allow_same_server,
        ),
    )
    fmt = OutputFormat(output_format)
    emit(render(report, fmt), output, verdict_line(report))
    return int(report.exit_code)
