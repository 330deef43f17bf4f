"""The next step triage prints for the samples its inconclusive records ask for: the triaged run
grown in place (`sample --resume` with a larger `--repeats`), a new run pooled with
`--pool-runs`, or why neither can take them, and a run under the right condition for records
held for samples of another (`next_step_lines`; the bundle's steps call
`more_samples_step`).
"""

from __future__ import annotations

from k3diff import escape, shellwords
from k3diff.program import program
from k3diff.triage.model import TriageResult
from k3diff.triage.nextstep import KEYS_SHOWN, MoreSamples, command_line, hidden_values
from k3diff.triage.resample import NEW_DIR, Resample


def next_step_lines(result: TriageResult) -> list[str]:
    """The commands that take the samples the inconclusive records ask for: the triaged run
    grown in place (`sample --resume` with a larger `--repeats`), or, for a sweep, a new run
    pooled with `--pool-runs`; and, for records held for samples of another condition, a run
    under the right one (`resample_step`)."""
    lines = []
    step = result.more_samples_run
    if step is not None:
        lines.append("next: " + more_samples_step(step, program(), step.out, logged=True))
    if result.resample_run is not None:
        lines.append("next: " + resample_step(result.resample_run, program()))
    return lines


def resample_step(step: Resample, k3diff: str) -> str:
    """'1 record held for samples of another condition (k0) asks for no more samples of this
    run ...: sample under the captured condition: COMMAND, then ...'."""
    count = len(step.names)
    records = f"{count:,} record{'s' if count != 1 else ''}"
    ask = "asks" if count == 1 else "ask"
    shown = ", ".join(escape.text(name) for name in step.names[:KEYS_SHOWN]) + (
        f" and {count - KEYS_SHOWN:,} more" if count > KEYS_SHOWN else ""
    )
    return (
        f"{records} held for samples of another condition ({shown}) {ask} for no more samples "
        f"of this run, which are of that condition too ({escape.text('; '.join(step.differences))}): "
        f"{_under(step)}, in a new --out: {step.command_line(k3diff)}{_hidden(step)}"
        f"{_notes(step)}, then run this triage with {NEW_DIR}/samples.jsonl in place of this "
        "run's"
    )


def _under(step: Resample) -> str:
    return (
        "sample under the captured condition"
        if step.captured
        else "sample base and patch under one condition"
    )


def _hidden(step: Resample) -> str:
    """' (each --header value the log hides as *** given again)', where the command hides one."""
    kinds = hidden_values(step.command)
    return f" (each {' and '.join(kinds)} the log hides as *** given again)" if kinds else ""


def _notes(step: Resample) -> str:
    """' (with a patch server that answers as "m"; ...)': what no option gives."""
    return f" (with {escape.text('; '.join(step.notes))})" if step.notes else ""


def more_samples_step(step: MoreSamples, k3diff: str, out: str, logged: bool) -> str:
    """`next_step_lines`' first step: `k3diff` the program named, `out` the run's directory; the run's
    own command where its log records it and `logged` (shell-quoted by `k3diff.shellwords`,
    runnable as printed), else a placeholder for its options (the bundle's, which names no
    machine's path). A run of one server (`MoreSamples.one_server`) says first that more of its
    samples clear nothing."""
    said = _step(step, k3diff, out, logged)
    if step.one_server is None:
        return said
    return (
        f"base and patch were sampled from one server ({step.one_server}), so more samples of "
        "this run clear nothing: sample the patched build on a server of its own, in a new "
        f"--out, and triage that; only for an A/A calibration run (triage --allow-same-server), "
        f"{said}"
    )


def _step(step: MoreSamples, k3diff: str, out: str, logged: bool) -> str:
    more = f"{step.more:,} more sample{'s' if step.more != 1 else ''} a side"
    if step.stopped is not None:
        return (
            f"the {more} the inconclusive records ask for cannot be taken by resuming this "
            f"run: {step.stopped}, in a new --out, then run this triage again with its "
            "samples.jsonl"
        )
    if step.refused is not None:
        return (
            f"the {more} the inconclusive records ask for cannot be taken as this run took "
            f"its samples: {step.refused}, and the same requests fail the same way; change "
            f"what the server refused or answered (its --param, --stream, --endpoint, the "
            "server itself) and sample in a new "
            "--out, then run this triage again with its samples.jsonl"
        )
    first = ""
    if step.failing is not None:
        first = (
            f"{step.failing}: make that server answer first (its own log says why), since "
            "the same requests fail until it does; then, "
        )
    return first + _take_more(step, more, k3diff, out, logged)


def _take_more(step: MoreSamples, more: str, k3diff: str, out: str, logged: bool) -> str:
    placeholder = f"{k3diff} sample <its options, as before>"
    kinds = hidden_values(step.command) if logged else ()
    hidden = f" (each {' and '.join(kinds)} the log hides as *** given again)" if kinds else ""
    if step.growable:
        total = step.grown_to
        if total is None and step.repeats is not None:
            total = step.repeats + step.more
        logged_command = command_line(step, out, total, resume=True) if logged and total else None
        repeats = f"{total}" if total is not None else f"<its repeats + {step.more:,}>"
        command = logged_command or (
            f"{placeholder} --out {shellwords.quote(out)} --resume --repeats {repeats}"
        )
        if total is not None and total == step.repeats:
            # A run stopped part-way: its own repeats, taken to the end, hold them.
            how = (
                f"finish the run (it stopped part-way; its {total:,} repeats, taken to the "
                "end, hold them)"
            )
        else:
            how = "grow the run"
        return (
            f"to take the {more} the inconclusive records ask for, {how}: "
            f"{command}{hidden} (only --repeats may grow; the samples logged are "
            "kept), then run this triage again"
        )
    logged_command = command_line(step, "NEW_DIR", step.more, resume=False) if logged else None
    command = logged_command or f"{placeholder} --out NEW_DIR --repeats {step.more:,}"
    return (
        f"to take the {more} the inconclusive records ask for (this run's repeats "
        f"cannot grow): {command}{hidden}, then run this triage again with "
        "NEW_DIR/samples.jsonl added and --pool-runs"
    )
