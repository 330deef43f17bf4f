"""The header's `command` (the `k3diff sample` command line as run, as
`k3diff.sample.options.redacted_command` records it) read back against the `run` fields it
set that decide what the run owed its log: `repeats` (`--repeats N`) and `adaptive`
(`--adaptive`).

Before (review71c), a header whose `repeats` was lowered from 3 to 2, every side's repeat 2
deleted, owed the lines left and passed (a patch output the base never gave, on a deleted line,
went unseen); and one given `adaptive: true`, every record's rounds after two base outputs
deleted, read each as stopped by `--adaptive`'s rule. A header whose command is unknown (empty:
`sample` invoked outside the `k3diff` group) is checked by nothing here; one whose command was
edited alike is not told from a run that asked it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from k3diff.errors import InputError
from k3diff.sample.usage import shown


def check_command(run: Mapping[str, Any], where: str) -> None:
    """InputError where the header's recorded command gave `--repeats` or `--adaptive`
    otherwise than its `repeats` and `adaptive` say."""
    command = run.get("command")
    if not isinstance(command, list) or not all(isinstance(arg, str) for arg in command):
        return
    if "sample" not in command:
        return
    repeats = _value(command, "--repeats")
    if repeats is not None and repeats != run.get("repeats"):
        _edited(where, f"'run.repeats' is {shown(run.get('repeats'))}", f"--repeats {repeats}")
    adaptive = "--adaptive" in command
    if adaptive != (run.get("adaptive") is True):
        ran = "--adaptive" if adaptive else "no --adaptive"
        _edited(where, f"'run.adaptive' is {shown(run.get('adaptive'))}", ran)


def _value(command: Sequence[str], option: str) -> int | None:
    """The last integer `option` was given (`--repeats 3`, `--repeats=3`), as click reads it."""
    found = None
    for number, arg in enumerate(command):
        text = command[number + 1] if arg == option and number + 1 < len(command) else None
        if arg.startswith(option + "="):
            text = arg.partition("=")[2]
        if text is not None:
            try:
                found = int(text)
            except ValueError:
                continue
    return found


def _edited(where: str, field: str, ran: str) -> None:
    raise InputError(
        f"{where}: header {field}, but its command ran {ran}: the header was edited; give the "
        "log as sample wrote it"
    )
