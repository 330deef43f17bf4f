"""`k3diff logs`: scan the base and patch servers' logs; fail on error findings new on the patch."""

from __future__ import annotations

from pathlib import Path

import click

from k3diff.cli.ci import emit_findings
from k3diff.cli.common import FiniteFloatRange, InputPath, byte_count, finding_output_options
from k3diff.cli.progress import TerminalProgress
from k3diff.cli.summaries import SUMMARIES
from k3diff.errors import UsageError
from k3diff.logs import LogsOptions, Severity, parse_user_rule, scan_logs
from k3diff.logs.caps import MAX_INFLATED_BYTES, MAX_SECONDS
from k3diff.report.cifindings import from_logs
from k3diff.report.logs import render, verdict_line


@click.command("logs", short_help=SUMMARIES["logs"])
@click.argument("base", type=click.Path(path_type=Path), required=False)
@click.argument("patch", type=click.Path(path_type=Path), required=False)
@click.option(
    "--base",
    "base_files",
    multiple=True,
    type=InputPath(path_type=Path),
    metavar="FILE",
    help="A base log file (repeat for each: one side of several files, e.g. the engine's and "
    "the API server's); with --patch, instead of BASE PATCH.",
)
@click.option(
    "--patch",
    "patch_files",
    multiple=True,
    type=InputPath(path_type=Path),
    metavar="FILE",
    help="A patch log file (repeat for each); with --base.",
)
@click.option(
    "--rule",
    "rules",
    metavar="NAME=REGEX",
    multiple=True,
    help="An error rule of your own, tried before the built-in ones (repeatable).",
)
@click.option(
    "--warn-rule",
    "warn_rules",
    metavar="NAME=REGEX",
    multiple=True,
    help="A warning rule of your own: listed and counted, never failing (repeatable).",
)
@click.option(
    "--ignore-rule",
    "ignored",
    metavar="NAME",
    multiple=True,
    help="Leave a rule out (built-in or your own; repeatable).",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Fail on any error finding on either side, not only on those new on the patch.",
)
@click.option(
    "--max-inflated-bytes",
    metavar="SIZE",
    default=str(MAX_INFLATED_BYTES),
    show_default=True,
    help="Bytes all .gz logs of both sides may inflate to (K/M/G; one .gz past 1000:1 is "
    "refused as a bomb whatever this says).",
)
@click.option(
    "--max-seconds",
    type=FiniteFloatRange(min=0, min_open=True),
    default=MAX_SECONDS,
    show_default=True,
    help="Wall time the scan of both sides may take; past it the run is refused (exit 2).",
)
@finding_output_options
def logs_command(
    base: Path | None,
    patch: Path | None,
    base_files: tuple[Path, ...],
    patch_files: tuple[Path, ...],
    rules: tuple[str, ...],
    warn_rules: tuple[str, ...],
    ignored: tuple[str, ...],
    strict: bool,
    max_inflated_bytes: str,
    max_seconds: float,
    output_format: str,
    output: Path | None,
) -> int:
    """Scan the BASE and PATCH servers' logs (each a log file or a directory of them, e.g. one
    server.log per case; .gz logs are read as they are) for tracebacks, CUDA/NCCL errors, out of memory,
    NaN/Inf reports, assertion failures, crashes and restarts, and the engines' own error and
    warning lines. Messages are matched across runs with timestamps, pids, addresses, request
    ids, ports and numbers masked.

    Exit 1 when the patch has an error finding the base does not (--strict: any error finding
    on either side) or an entry of either side was not read (a binary file, a FIFO, a link out
    of the directory: never followed; a link to a file the directory holds is read once, as
    that file), 0 otherwise, 2 when a log cannot be
    read, holds no line, or passes a cap (--max-inflated-bytes, --max-seconds, a .gz bomb).

    A side of several files: --base FILE and --patch FILE, each repeated (every file is read
    as one side's; the JSON records each by name, SHA-256 and size, as for a directory).

    \b
    Examples:
      k3diff logs base/server.log patch/server.log
      k3diff logs --base b/api.log --base b/engine.log --patch p/api.log --patch p/engine.log
      k3diff logs runs/base/ runs/patch/ --format markdown -o logs.md
      k3diff logs b.log.gz p.log.gz --rule kv-evict='evicted \\d+ blocks'
      k3diff logs base/ patch/ --format junit -o logs.xml
    """
    user = tuple(parse_user_rule(r, Severity.ERROR) for r in rules) + tuple(
        parse_user_rule(r, Severity.WARNING) for r in warn_rules
    )
    sides = _sides(base, patch, base_files, patch_files)
    progress = TerminalProgress("logs")
    try:
        report = scan_logs(
            *sides,
            LogsOptions(
                rules=user,
                ignored=ignored,
                strict=strict,
                progress=progress.listener,
                max_inflated=byte_count(max_inflated_bytes),
                max_seconds=max_seconds,
            ),
        )
    finally:
        progress.close()
    line = verdict_line(report)
    emit_findings(
        output_format,
        output,
        render=lambda fmt: render(report, fmt),
        ci_run=lambda: from_logs(report, line),
        verdict=lambda fmt: line,
        exit_code=report.exit_code,
    )
    return int(report.exit_code)


def _sides(
    base: Path | None,
    patch: Path | None,
    base_files: tuple[Path, ...],
    patch_files: tuple[Path, ...],
) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """The paths of each side: BASE PATCH (a file or directory each), or the files given with
    --base and --patch; UsageError for a mix, a side missing, a directory given with --base or
    --patch, or a file given twice on one side."""
    if not (base_files or patch_files):
        if base is None or patch is None:
            raise UsageError(
                "give BASE and PATCH (a log file or directory each), or --base/--patch"
            )
        return (base,), (patch,)
    if base is not None or patch is not None:
        raise UsageError("give BASE PATCH or --base/--patch files, not both")
    for option, files, other in (("base", base_files, "patch"), ("patch", patch_files, "base")):
        if not files:
            raise UsageError(f"--{other} needs --{option}: give the {option} side's log files too")
        seen: dict[Path, Path] = {}
        for path in files:
            if path.is_dir():
                raise UsageError(
                    f"--{option} {path}: a directory; give a side's directory as BASE PATCH, or "
                    f"its files with --{option}"
                )
            resolved = path.resolve()
            if resolved in seen:
                raise UsageError(f"--{option} {path}: given twice (also as {seen[resolved]})")
            seen[resolved] = path
    return base_files, patch_files
