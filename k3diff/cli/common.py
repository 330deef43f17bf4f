"""What every subcommand shares: the format/output options, error-to-exit-code mapping."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from k3diff.errors import K3diffError
from k3diff.exitcodes import ExitCode
from k3diff.output import OutputFormat

F = TypeVar("F", bound=Callable[..., Any])


def output_options(func: F) -> F:
    """Add `--format` and `--output` to a command."""
    func = click.option(
        "--output",
        "-o",
        type=click.Path(dir_okay=False, writable=True, path_type=Path),
        default=None,
        help="Write the report to FILE (atomically, only after the run succeeds).",
    )(func)
    func = click.option(
        "--format",
        "output_format",
        type=click.Choice([f.value for f in OutputFormat]),
        default=OutputFormat.TEXT.value,
        show_default=True,
        help="Report format.",
    )(func)
    return func


def fail(message: str) -> None:
    """Print one line on stderr and exit 2."""
    line = " ".join(message.split())
    click.echo(f"k3diff: error: {line}", err=True)
    sys.exit(ExitCode.ERROR)


GC_YOUNG_THRESHOLD = 100_000
"""Allocations between young-generation collections. A run builds tens of thousands of small,
acyclic, long-lived objects (entries, results, records); at Python's default of 700 the cycle
collector keeps re-walking them, which cost 3-4% of a large wheel comparison."""


def run_main(group: click.Group) -> None:
    """Run the click group, turning every K3diffError into one stderr line and exit 2."""
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    try:
        result = group.main(standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        fail("aborted")
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        fail(f"{exc.format_message()}{hint}")
    except click.ClickException as exc:
        fail(exc.format_message())
    except K3diffError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted")
    except BrokenPipeError:
        sys.exit(ExitCode.ERROR)
    sys.exit(int(result) if isinstance(result, int) else ExitCode.OK)
