# ruff: noqa: E402 (the collector is tuned before the imports below run)
"""The `k3diff` command group. Each subcommand lives in its own module and stays thin:
parse options, call one library function, render, exit.

Subcommands are imported only when invoked, so `k3diff wheels` never pays for the statistics
and HTTP libraries other commands use.
"""

from __future__ import annotations

from k3diff.cli.gcthreshold import raise_gc_threshold

raise_gc_threshold()  # before click and the command are imported: see gcthreshold

import importlib
from typing import Any

import click

from k3diff import __version__
from k3diff.cli.common import record_argv, run_main

COMMANDS = {
    "wheels": ("k3diff.cli.wheels_cmd", "wheels"),
    "responses": ("k3diff.cli.responses_cmd", "responses"),
    "sample": ("k3diff.cli.sample_cmd", "sample"),
    "triage": ("k3diff.cli.triage_cmd", "triage_command"),
    "audit": ("k3diff.cli.audit_cmd", "audit_command"),
    "report": ("k3diff.cli.report_cmd", "report_command"),
    "logs": ("k3diff.cli.logs_cmd", "logs_command"),
    "telemetry": ("k3diff.cli.telemetry_cmd", "telemetry_command"),
    "schema": ("k3diff.cli.schema_cmd", "schema_command"),
}
"""Subcommand name -> (module, attribute)."""

SUMMARIES = {
    "audit": "Audit release ARTIFACTS: every wheel's RECORD (hash and size of every entry, "
    "unlisted and absent files, weak algorithms, signatures), archive soundness (W6xx, shared "
    "with `wheels`) and the filename against the metadata; any other file is hashed only.",
    "logs": "Scan the BASE and PATCH servers' logs (each a log file or a directory of them, e.g. "
    "one server.log per case; .gz logs are read as they are) for tracebacks, CUDA/NCCL errors, "
    "out of memory, NaN/Inf reports, assertion failures, crashes and restarts, and the engines' "
    "own error and warning lines.",
    "report": "Write the evidence bundle from RESULT documents of the other commands.",
    "responses": "Compare BASE and PATCH captured responses record by record.",
    "sample": "Send each prompt's request REPEATS times per server and mode; log every sample.",
    "schema": "Print the JSON Schema (draft 2020-12) of the JSON document NAME, so a pipeline can "
    "validate what it reads; with no NAME, list the documents and their schema ids.",
    "telemetry": "Summarise what the servers reported about the run in SAMPLES logs (k3diff "
    "sample --out DIR/samples.jsonl, and DIR/perf_metrics.jsonl beside it): latency "
    "percentiles, cached prompt tokens and reused KV blocks per side and mode, "
    "speculative-decoding acceptance (TensorRT-LLM /perf_metrics, vLLM /metrics, SGLang "
    "meta_info) with Clopper-Pearson intervals and a base-vs-patch test, per draft position "
    "where the engine reports it.",
    "triage": "Classify each record of COMPARISON (k3diff responses --format json) from SAMPLES "
    "logs.",
    "wheels": "Compare two wheels (or two release sets) entry by entry, in place, without "
    "extracting.",
}
"""Subcommand name -> the first sentence of its help, which `k3diff --help` lists without
importing every command (that would load every library: 12x `import click`). A test checks each
against the command's own help; a command missing here is imported to ask."""


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use, and that keeps the arguments it
    parses for the commands that record their own command line (`sample`)."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        given = list(args)  # parsing consumes `args`
        ctx = super().make_context(info_name, args, parent, **extra)
        record_argv(ctx, given)
        return ctx

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if set(COMMANDS) - set(SUMMARIES):
            super().format_commands(ctx, formatter)
            return
        # click's own layout and short-help cut, from the summaries (a bare command per name).
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [
            (name, click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit))
            for name in COMMANDS
        ]
        with formatter.section("Commands"):
            formatter.write_dl(sorted(rows))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="k3diff")
def cli() -> None:
    """Artifact-diff and determinism forensics for inference-engine patches.

    \b
    Examples:
      k3diff wheels base.whl patch.whl
      k3diff wheels base.whl patch.whl --format json -o report.json
      k3diff responses base.jsonl patch.jsonl
      k3diff audit dist/*.whl --write-manifest SHA256SUMS
      k3diff schema wheels
    """


def main(argv: list[str] | None = None) -> int:
    """Run k3diff on `argv` (default: the process arguments) and return the exit code.

    The console script exits with it; tests call it in-process."""
    return run_main(cli, argv)
