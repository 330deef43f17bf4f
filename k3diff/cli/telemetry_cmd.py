"""`k3diff telemetry`: what the servers reported about a sampling run; was the axis exercised?"""

from __future__ import annotations

from pathlib import Path

import click

from k3diff.cli.common import input_cap_options, output_options
from k3diff.output import OutputFormat, emit, verdict_for
from k3diff.report.telemetry import render, verdict_line
from k3diff.telemetry import Expectation, TelemetryOptions, summarize


@click.command("telemetry")
@click.argument("samples", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--expect",
    "expect",
    multiple=True,
    type=click.Choice([e.value for e in Expectation]),
    help="What the run was meant to exercise; a side showing none of it fails (repeatable).",
)
@click.option(
    "--alpha",
    type=click.FloatRange(min=0.0, max=1.0, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="1 - confidence of the acceptance-rate intervals.",
)
@input_cap_options
@output_options
def telemetry_command(
    samples: tuple[Path, ...],
    expect: tuple[str, ...],
    alpha: float,
    output_format: str,
    output: Path | None,
) -> int:
    """Summarise what the servers reported about the run in SAMPLES logs (k3diff sample --out
    DIR/samples.jsonl, and DIR/perf_metrics.jsonl beside it): latency percentiles and cached
    prompt tokens per side and mode, speculative-decoding acceptance with Clopper-Pearson
    intervals and a base-vs-patch test.

    Exit 1 when an --expect axis was not exercised on a side (coverage debt, never a pass),
    0 otherwise, 2 when a log cannot be read.

    \b
    Examples:
      k3diff telemetry run/samples.jsonl
      k3diff telemetry run/samples.jsonl --expect cache-reuse --format json -o telemetry.json
    """
    report = summarize(
        samples, TelemetryOptions(expect=tuple(Expectation(e) for e in expect), alpha=alpha)
    )
    fmt = OutputFormat(output_format)
    emit(render(report, fmt), output, verdict_for(fmt, report.exit_code, verdict_line(report)))
    return int(report.exit_code)
