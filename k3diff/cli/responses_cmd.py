"""`k3diff responses`: compare captured base and patch server responses record by record."""

from __future__ import annotations

from pathlib import Path

import click

from k3diff.cli.common import input_cap_options, output_options
from k3diff.output import OutputFormat, Progress, emit_chunks
from k3diff.report.responses import DEFAULT_LIMIT, StreamedReport
from k3diff.responses import CompareOptions, Normalization, compare_streaming


@click.command("responses")
@click.argument("base", type=click.Path(path_type=Path))
@click.argument("patch", type=click.Path(path_type=Path))
@click.option(
    "--key",
    metavar="FIELD",
    default=None,
    help="Pair records by this field (a name or a dotted path such as meta.qid). "
    "Default: the records' ids when both sides have unique, shared ids, else the prompt's hash.",
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
    help="Also compare ids, timestamps, latency and fingerprints (ignored by default).",
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
    limit: int,
    output_format: str,
    output: Path | None,
) -> int:
    """Compare BASE and PATCH captured responses record by record.

    Reads JSON arrays, JSONL, {"responses": [...]} / {"records": [...]} documents, OpenAI
    completion and chat-completion objects (bare or wrapped with the request), SSE transcripts
    and lm-eval samples_*.jsonl. Exit 1 when any paired record differs (a failed request, an
    {"error": ...} record, counts as a difference), when a record is on one side only (unless
    --allow-unpaired) or when nothing pairs; 2 when an input cannot be read or paired.

    \b
    Examples:
      k3diff responses base.jsonl patch.jsonl
      k3diff responses base.sse patch.sse --by-order --format json -o diff.json
      k3diff responses base.json patch.json --normalize trailing-whitespace --format markdown
    """
    options = CompareOptions(
        key=key,
        normalize=tuple(Normalization(n) for n in normalize),
        include_volatile=include_volatile,
        allow_unpaired=allow_unpaired,
        by_order=by_order,
    )
    progress = Progress("responses")
    with StreamedReport(OutputFormat(output_format), limit) as report:
        try:
            overview = compare_streaming(base, patch, options, report.add, progress=progress)
        finally:
            progress.close()
        emit_chunks(report.chunks(overview), output)
    return overview.exit_code
