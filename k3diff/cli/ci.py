"""Reports of commands that emit findings, in every format, and what a CI runner is told.

`--format sarif|junit` render the run's `CiRun`; the other formats the command's own renderer.
Under GitHub Actions (`GITHUB_ACTIONS=true`) every finding is also a workflow command on
stderr (`::error` / `::notice`) and the Markdown report is appended to `$GITHUB_STEP_SUMMARY`.
The exit code is the result's in every case.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from k3diff import escape
from k3diff.exitcodes import ExitCode
from k3diff.output import CiFormat, OutputFormat, emit, emit_chunks, say, say_command, short_verdict

if TYPE_CHECKING:  # the finding model is built (`ci_run`) only for SARIF, JUnit and Actions
    from k3diff.report.cifindings import CiRun

STEP_SUMMARY_LIMIT = 1 << 20
"""GitHub's limit on one step's summary (1 MiB); a longer report is cut with a note."""


def emit_findings(
    fmt: str,
    output: Path | None,
    *,
    render: Callable[[OutputFormat], str],
    ci_run: Callable[[], CiRun],
    verdict: Callable[[OutputFormat], str],
    exit_code: ExitCode,
    chunks: Callable[[OutputFormat], Iterable[str]] | None = None,
) -> None:
    """Write the report in `fmt` (to `output` or stdout), then tell GitHub Actions.
    `verdict(fmt)` is the line repeated on stderr after `-o` for the command's own formats;
    SARIF and JUnit repeat `short_verdict`. `chunks(fmt)`, when given, is the command's own
    report piece by piece, its last piece ending the last line (a large JSON document is then
    written without being joined whole); else `render(fmt)` is written."""
    run: CiRun | None = None
    if fmt in CiFormat.__members__.values():
        from k3diff.report import junit, sarif

        run = ci_run()
        text = sarif.render(run) if fmt == CiFormat.SARIF else junit.render(run)
        emit(text, output, short_verdict(exit_code))
    else:
        chosen = OutputFormat(fmt)
        if chunks is None:
            emit(render(chosen), output, verdict(chosen))
        else:
            emit_chunks(chunks(chosen), output, verdict(chosen))
    if os.environ.get("GITHUB_ACTIONS") == "true":
        _github(run or ci_run(), render)


def _github(run: CiRun, render: Callable[[OutputFormat], str]) -> None:
    from k3diff.report.github import workflow_commands

    for line in workflow_commands(run):
        say_command(line)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if not summary:
        return
    text = render(OutputFormat.MARKDOWN)
    if len(text.encode("utf-8", "surrogatepass")) > STEP_SUMMARY_LIMIT:
        cut = text.encode("utf-8", "surrogatepass")[: STEP_SUMMARY_LIMIT - 200]
        text = cut.decode("utf-8", "ignore") + "\n\n… cut at GitHub's 1 MiB step-summary limit.\n"
    try:
        with open(summary, "a", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(text.rstrip("\n") + "\n\n")
    except OSError as exc:
        # The verdict stands; the summary is a convenience. Say so in one line.
        message = f"k3diff: cannot append to GITHUB_STEP_SUMMARY {summary}: {exc.strerror or exc}"
        say(escape.text(message))
