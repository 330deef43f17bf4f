"""The `k3diff` command group. Each subcommand lives in its own module and stays thin:
parse options, call one library function, render, exit."""

from __future__ import annotations

import click

from k3diff import __version__
from k3diff.cli.common import run_main


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="k3diff")
def cli() -> None:
    """Artifact-diff and determinism forensics for inference-engine patches.

    \b
    Examples:
      k3diff wheels base.whl patch.whl
      k3diff wheels base.whl patch.whl --source ~/src/engine --commit HEAD --format json
      k3diff responses base.jsonl patch.jsonl
    """


def _register() -> None:
    from k3diff.cli.responses_cmd import responses
    from k3diff.cli.wheels_cmd import wheels

    for command in (wheels, responses):
        cli.add_command(command)


_register()


def main() -> None:
    """Console-script entry point."""
    run_main(cli)
