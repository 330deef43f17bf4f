"""What every subcommand shares: the format/output options, error-to-exit-code mapping."""

from __future__ import annotations

import errno
import functools
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from k3diff import bounded, escape
from k3diff.cli.gcthreshold import raise_gc_threshold, thaw
from k3diff.errors import ErrorBlock, K3diffError
from k3diff.exitcodes import ExitCode
from k3diff.output import CiFormat, OutputFormat, StdoutClosed, say

if TYPE_CHECKING:
    from k3diff.wheel.waivers import WaiverSet

F = TypeVar("F", bound=Callable[..., Any])


class FiniteFloatRange(click.FloatRange):
    """click's FloatRange that also refuses `nan` (which passes every range check, so
    `--alpha nan` made every comparison with α false: tracebacks and silent non-results) and
    an infinite value."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


def output_options(func: F) -> F:
    """Add `--format` (text, json, markdown) and `--output` to a command, and refuse an output
    that is an input."""
    return _output_options(func, [f.value for f in OutputFormat])


def finding_output_options(func: F) -> F:
    """`output_options` for a command that emits findings: `--format` also takes `sarif` and
    `junit` (see `k3diff.cli.ci`)."""
    return _output_options(func, [f.value for f in (*OutputFormat, *CiFormat)])


def waivers_option(func: F) -> F:
    """`--waivers FILE`: findings reviewed and accepted, each with its reason."""
    return click.option(
        "--waivers",
        type=InputPath(exists=False, dir_okay=False, path_type=Path),
        default=None,
        metavar="FILE",
        help="Waive reviewed findings (TOML: code, path glob (one exact path for W101-W103 and "
        "A103), reason, optional expires and artifact glob). A waived finding is listed with its reason and does not fail the run; "
        "an expired waiver does not apply; unused waivers are reported.",
    )(func)


def load_waiver_file(path: Path | None) -> WaiverSet | None:
    """The `--waivers` file read and checked, or None without one: a run given none loads
    neither the waiver reader nor TOML."""
    if path is None:
        return None
    from k3diff.wheel.waivers import load_waivers

    return load_waivers(path)


class _ReportPath(click.Path):
    """`--output`'s FILE: a bare `-` (the Unix spelling of standard output) is None, the default,
    decided on the text as given: `./-` names a file called "-" (pathlib makes it equal to
    `Path("-")`)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value == "-":
            return None
        return super().convert(value, param, ctx)


def _output_options(func: F, choices: list[str]) -> F:

    command = func

    @functools.wraps(command)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        output = kwargs.get("output")
        if output is not None:
            from k3diff.cli.outputtargets import (  # only when --output is given
                refuse_archive_target,
                refuse_output_in_evidence,
                refuse_output_over_input,
            )

            ctx = click.get_current_context()
            refuse_output_over_input(output, _input_paths(ctx))
            refuse_archive_target("--output", output, _inputs_noun(ctx))
            refuse_output_in_evidence(output, _evidence_dirs(ctx))
        return command(*args, **kwargs)

    func = cast(F, guarded)
    func = click.option(
        "--output",
        "-o",
        type=_ReportPath(dir_okay=False, writable=True, path_type=Path),
        default=None,
        help="Write the report to FILE (atomically, only after the run succeeds); - or none: "
        "standard output.",
    )(func)
    func = click.option(
        "--format",
        "output_format",
        type=click.Choice(choices),
        default=OutputFormat.TEXT.value,
        show_default=True,
        help="Report format.",
    )(func)
    return func


def byte_count(text: str) -> int:
    """`64M`, `1G`, `512K`, `1048576`: a size in bytes (K/M/G are powers of 1024)."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    raw = text.strip().lower().removesuffix("ib").removesuffix("b")
    factor = units.get(raw[-1:], 1)
    digits = raw[:-1] if raw[-1:] in units else raw
    if not digits.isdigit() or int(digits) == 0:
        raise click.BadParameter(f"{text!r} is not a size in bytes (e.g. 64M, 1G, 4096)")
    return int(digits) * factor


def input_cap_options(func: F) -> F:
    """Add `--max-record-bytes` and `--max-document-bytes`, and run the command under those
    caps (`k3diff.bounded`): every line, record and whole-file document it reads is bounded."""
    command = func

    @functools.wraps(command)
    def capped(*args: Any, **kwargs: Any) -> Any:
        record = kwargs.pop("max_record_bytes")
        document = kwargs.pop("max_document_bytes")
        with bounded.caps(
            None if record is None else byte_count(record),
            None if document is None else byte_count(document),
        ):
            return command(*args, **kwargs)

    func = cast(F, capped)
    func = click.option(
        "--max-document-bytes",
        metavar="SIZE",
        default=None,
        help=f"Largest input file read whole (JSON arrays, documents); default "
        f"{bounded.size_text(bounded.DEFAULT_MAX_DOCUMENT_BYTES)}.",
    )(func)
    func = click.option(
        "--max-record-bytes",
        metavar="SIZE",
        default=None,
        help=f"Longest input line or record (e.g. 64M); default "
        f"{bounded.size_text(bounded.DEFAULT_MAX_RECORD_BYTES)}.",
    )(func)
    return func


class InputPath(click.Path):
    """An option naming a file the command reads (`--prompts`): a report must never replace it,
    just as it must never replace a path argument."""


class EvidenceDir(click.Path):
    """An option naming the directory a command writes its evidence into (`sample --out`): a
    report written inside it could replace a log the command appends to."""


def _values(ctx: click.Context, param: click.Parameter) -> list[Path]:
    value = ctx.params.get(param.name) if param.name is not None else None
    values = value if isinstance(value, (tuple, list)) else (value,)
    return [Path(v) for v in values if isinstance(v, (str, Path))]


def _input_paths(ctx: click.Context) -> list[Path]:
    """The command's path arguments (BASE, PATCH, …) and input options: the files a report must
    never replace."""
    paths: list[Path] = []
    for param in ctx.command.params:
        if isinstance(param, click.Argument) or isinstance(param.type, InputPath):
            paths.extend(_values(ctx, param))
    return paths


def _evidence_dirs(ctx: click.Context) -> list[Path]:
    return [
        path
        for param in ctx.command.params
        if isinstance(param.type, EvidenceDir)
        for path in _values(ctx, param)
    ]


def _inputs_noun(ctx: click.Context) -> str:
    return "wheels" if ctx.command.name in ("wheels", "audit") else "inputs"


def fail(message: str, *more: str) -> int:
    """Print one line on stderr (each of `more`, an `ErrorBlock`'s, indented on its own); the
    exit code to return (2). Whitespace runs fold to one space and any other control character
    is shown as an escape, in every line: a newline in a name never starts one."""
    for n, line in enumerate((message, *more)):
        say(("  " if n else "k3diff: error: ") + escape.text(" ".join(line.split())))
    return int(ExitCode.ERROR)


ARGV_KEY = "k3diff.argv"
"""`click.Context.meta` key of the arguments the `k3diff` group parsed (see `record_argv`)."""


def record_argv(ctx: click.Context, args: list[str]) -> None:
    """Keep `args`, the arguments after the program name as the group is about to parse them,
    in the context's `meta` (shared with every subcommand's context). Called by the group's
    `make_context`, so it holds what was parsed whichever way k3diff was entered: `main(argv)`,
    the console script (`sys.argv`), `cli.main(args)` or click's test runner."""
    ctx.meta[ARGV_KEY] = tuple(args)


def invoked_argv() -> list[str] | None:
    """The arguments of the running command (after the program name), as the `k3diff` group
    parsed them; None when a subcommand was invoked on its own, outside the group (then they
    are unknown, and the host process's `sys.argv` is never a stand-in for them)."""
    recorded = click.get_current_context().meta.get(ARGV_KEY)
    return None if recorded is None else list(recorded)


_CAP_OPTIONS = {"sample": "--max-response-bytes", "logs": "--max-inflated-bytes"}
"""The cap that bounds what a command holds, where it is not --max-record-bytes."""


_INTERRUPTED_NOTES = {
    "sample": "; the samples taken so far stay in the log (--resume continues)",
}
"""What an interrupted command keeps, said with the interruption."""


def _command(argv: list[str] | None) -> str:
    """The subcommand named in `argv` (default: the process arguments), "" when none."""
    args = sys.argv[1:] if argv is None else argv
    return next((a for a in args if not a.startswith("-")), "")


def _cap_option(argv: list[str] | None) -> str:
    """The option to name when a command ran out of memory: the one bounding its input."""
    return _CAP_OPTIONS.get(_command(argv), "--max-record-bytes")


def _interrupted(how: str, argv: list[str] | None) -> str:
    """`how` (click's "aborted" on Ctrl-C, or "interrupted") with what the command kept."""
    return f"{how} (Ctrl-C){_INTERRUPTED_NOTES.get(_command(argv), '')}"


def run_main(group: click.Group, argv: list[str] | None = None) -> int:
    """Run the click group on `argv` (default: the process arguments) and return the exit code,
    turning every K3diffError into one stderr line and exit 2."""
    raise_gc_threshold()
    if argv is None:  # the process exits next: what a command froze stays frozen
        return _run_group(group, argv)
    try:
        return _run_group(group, argv)
    finally:
        thaw()  # an in-process caller goes on: the collector sees the command's objects again


def _run_group(group: click.Group, argv: list[str] | None) -> int:
    try:
        # In-process callers get the installed name, not the test runner's argv[0].
        prog_name = "k3diff" if argv is not None else None
        result = group.main(args=argv, prog_name=prog_name, standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort:
        return fail(_interrupted("aborted", argv))
    except click.exceptions.NoArgsIsHelpError as exc:
        # Bare `k3diff`: the whole help as help reads, not squeezed into one error line.
        say(exc.ctx.get_help() if exc.ctx is not None else str(exc))
        return int(ExitCode.ERROR)
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        return fail(f"{exc.format_message()}{hint}")
    except click.ClickException as exc:
        return fail(exc.format_message())
    except K3diffError as exc:
        return fail(*exc.lines) if isinstance(exc, ErrorBlock) else fail(str(exc))
    except KeyboardInterrupt:
        return fail(_interrupted("interrupted", argv))
    except MemoryError:
        # The readers cap what they read and name the file; this is the last line of defence
        # for an input that fits the caps yet exhausts memory: exit 2, never a traceback.
        return fail(f"out of memory (an input too large for this machine; see {_cap_option(argv)})")
    except RecursionError:
        return fail("an input nested too deeply to process")
    except (BrokenPipeError, StdoutClosed):  # stdout's reader gone: nothing left to say
        return int(ExitCode.ERROR)
    except OSError as exc:
        return fail(_no_space(exc) if exc.errno in _NO_SPACE else _internal(exc))
    except Exception as exc:  # the last line of defence, said as one line
        return fail(_internal(exc))
    if not isinstance(result, int):
        # A command that returned no exit code is a bug: it must never pass as exit 0.
        raise TypeError(f"the command returned {result!r}, not its exit code")
    return int(result)


def _internal(exc: BaseException) -> str:
    """A bug in k3diff, never a verdict: exit 2 ("could not do its job"), not click's exit 1
    (which reads as "differences found") and not a traceback. The line names where it broke,
    enough for a report."""
    return f"internal error (a bug in k3diff; please report it): {_where(exc)}"


_NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
"""A write refused for want of room (a full disk, a quota, a file size limit): no bug."""


def _no_space(exc: OSError) -> str:
    """'a write failed (No space left on device): ...', naming where k3diff writes: its
    temporary files (anonymous, in $TMPDIR: `responses`'s spools, `report`'s run again of a
    comparison, review80e) and its output. A writer that knows its file says so itself."""
    import tempfile

    try:
        directory = tempfile.gettempdir()
    except OSError:  # a full disk refuses its probe file in each candidate too
        directory = "the temporary directory"
    written = f"{exc.filename}: " if exc.filename else ""
    return (
        f"{written}a write failed ({exc.strerror or exc}): k3diff's temporary files go to "
        f"{directory} ($TMPDIR), its output where it was asked; free space there or point "
        "TMPDIR at a larger disk"
    )


def _where(exc: BaseException) -> str:
    """`Type: message at file:line`, the innermost frame of `exc`'s traceback."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    place = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}: {exc}{place}"
