"""How to take the samples that decide records held for samples of another condition
(`Resample`, found by `k3diff.triage.rightcondition`): the run's own `k3diff sample` command with
the options of the right condition, in a new `--out`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from k3diff import shellwords

PARAMS = ("--param", "--base-param", "--patch-param")
"""The `sample` options that give a request field (`NAME=VALUE`)."""
NEW_DIR = "NEW_DIR"
"""The new `--out` the step names."""


@dataclass(frozen=True)
class Resample:
    """How to take the samples that decide the records held for samples of another condition."""

    names: tuple[str, ...]
    """The records held so, by name."""
    differences: tuple[str, ...]
    """How their samples differ, in words ('temperature: captured 0, sampled 1')."""
    give: tuple[str, ...]
    """`sample` options to give, each one shell-quoted string ('--param temperature=0')."""
    drop: tuple[str, ...]
    """`sample` options to leave out ('--stream', '--patch-param max_tokens')."""
    command: tuple[str, ...] | None
    """The run's logged `k3diff sample` command (None where the log records none)."""
    captured: bool = True
    """Some record's samples differ from its capture (else only its base's from its patch's:
    the step says to sample both sides under one condition)."""
    notes: tuple[str, ...] = ()
    """What the right condition needs that no option gives ('a patch server that answers as
    "m"', 'fault left out of the prompts' own fields where they hold it')."""
    left_out: tuple[tuple[str, str], ...] = ()
    """(field option, field name) pairs the run's command loses ('--patch-param',
    'max_tokens'): every field option of a field `give` sets or the capture did not send, only
    a side's own where the sides were sent otherwise (review80a: matched by the names parsed
    back out of `give` and `drop`, a `--param` both sides were given was left out with them,
    and a name the shell quotes by its codes matched nothing)."""

    def command_line(self, program: str) -> str:
        """The run's command with `drop` left out, `give` added and `--out NEW_DIR` (its own
        `--out` and any `--resume` left out), started by `program`; a placeholder for the run's
        options where the log records no command."""
        tail = [*self.give, "--out", NEW_DIR]
        if self.command is None:
            return f"{program} sample <its options, as before{self._without()}> {' '.join(tail)}"
        kept = _kept(
            self.command[2:] if self.command[1:2] == ("sample",) else self.command[1:], self
        )
        return f"{program} sample {shellwords.join(kept)} {' '.join(tail)}"

    def _without(self) -> str:
        return f", without {', '.join(self.drop)}" if self.drop else ""


def _kept(args: Sequence[str], step: Resample) -> list[str]:
    """`args` less `--out`, `--resume`, `--stream` and `--endpoint` where the step sets them,
    and the field options `step.left_out` names."""
    flags = {option.split(" ", 1)[0] for option in (*step.give, *step.drop)}
    kept: list[str] = []
    skip = False
    for index, arg in enumerate(args):
        if skip:
            skip = False
            continue
        option, _, inline = arg.partition("=")
        if arg == "--resume" or (arg == "--stream" and "--stream" in flags):
            continue
        if option in ("--out", "--endpoint") and (option == "--out" or option in flags):
            skip = not inline
            continue
        if option in PARAMS:
            value = inline or (args[index + 1] if index + 1 < len(args) else "")
            if (option, value.partition("=")[0]) in step.left_out:
                skip = not inline
                continue
        kept.append(arg)
    return kept
