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
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any

import click

from k3diff import __version__, program
from k3diff.cli import quickexit
from k3diff.cli.common import record_argv, run_main
from k3diff.cli.summaries import SUMMARIES

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
"""Subcommand name -> (module, attribute); `SUMMARIES` holds each one's short help."""


@contextmanager
def _aborted_on_interrupt() -> Iterator[None]:
    """A Ctrl-C as click's `Abort`, raised before click's own handler sees the interrupt: that
    one writes a blank line to stderr first (closing a terminal's ``^C`` echo), so the error
    line came second (w408b). `run_main` says it: one line, exit 2."""
    try:
        yield
    except KeyboardInterrupt as exc:
        raise click.exceptions.Abort() from exc


class _Context(click.Context):
    """The group's context, whose closing says a Ctrl-C as `_aborted_on_interrupt` does: click
    closes it (its `call_on_close` callbacks) as its `main` leaves it, after `invoke` returned,
    so a Ctrl-C there still came after click's blank line (w408c)."""

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        with _aborted_on_interrupt():
            return super().__exit__(exc_type, exc_value, tb)


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use, and that keeps the arguments it
    parses for the commands that record their own command line (`sample`)."""

    context_class = _Context

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        given = list(args)  # parsing consumes `args`
        with _aborted_on_interrupt():
            ctx = super().make_context(info_name, args, parent, **extra)
        record_argv(ctx, given)
        return ctx

    def invoke(self, ctx: click.Context) -> Any:
        with _aborted_on_interrupt():
            return super().invoke(ctx)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if set(COMMANDS) - set(SUMMARIES):
            super().format_commands(ctx, formatter)
            return
        # click's own layout, from the summaries: each command's `short_help`, so no import.
        with formatter.section("Commands"):
            formatter.write_dl(sorted(SUMMARIES.items()))

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

    The console script exits with it; tests call it in-process. Run as the process (`argv`
    None), a command that held its result ends the process here (`quickexit`)."""
    if argv is None:
        quickexit.arm()
        program.from_process()
    code = run_main(cli, argv)
    if argv is None:
        quickexit.leave(code)
    return code
