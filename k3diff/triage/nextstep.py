"""The next step after a triage that more samples would decide: how to take them. The run
that was triaged grows in place (`k3diff sample --resume` with a larger `--repeats`), unless it
is a sweep over several levels, whose repeats cannot grow: then a new run, pooled with
`triage --pool-runs`; or, where the run's log ends in a stop `--resume` cannot get past (a server
that does not stream), what to change instead."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from k3diff import escape, shellwords
from k3diff.program import program
from k3diff.sample.lines import SampleLine
from k3diff.sample.names import SIDES, Mode
from k3diff.sample.reader import SamplesLog
from k3diff.sample.stopline import StopLine, StopReason


@dataclass(frozen=True)
class MoreSamples:
    """Where and how many more samples a side the inconclusive records ask for."""

    log: str
    """The log to grow (the last one triage was given), as named."""
    more: int
    """The most more samples a side any inconclusive record asks for."""
    repeats: int | None
    """The run's repeats now (None where its header does not say)."""
    growable: bool
    """`sample --resume` can grow the run (it is no sweep over several levels)."""
    command: tuple[str, ...] | None = None
    """The run's `k3diff sample` command line as its header records it (`--header` values
    already hidden), None where the header does not record one."""
    stopped: str | None = None
    """Why the run cannot grow where its log's last line says it stopped for what its server
    cannot serve (a stop line not `resumable`: a server that does not stream, or answers
    404): `--resume` stops the same way, so the next step says what stopped it
    and what to change instead of a command that repeats it."""
    refused: str | None = None
    """What failed where a side of the run has no successful sample and every request it
    logged was refused for the request's own condition (an HTTP 4xx other than 429, which
    retrying cannot fix: `sample.retry.Final`): more of the same requests fail the same way,
    so the next step says this instead of a command that repeats them."""
    failing: str | None = None
    """What failed where a side of the run has no successful sample and every request it
    logged failed otherwise (a 5xx, a 429, no answer): more requests may get past once the
    server answers, so the next step says to make it answer first (newuser68: 60 more samples
    were asked of a server that answered HTTP 500 to every one), or where the log ends in a
    stop for a server that stopped answering (`_went_away`), or where a side logged requests
    for a record asking for more, none successful (`_failing_records`)."""
    grown_to: int | None = None
    """The `--repeats` a resume takes every wanted sample with: each inconclusive record's
    repeats logged (the fewest of any side and mode) plus the samples it asks for, at least
    the run's repeats. A run stopped part-way has repeats it never took, which a resume at
    its own `--repeats` takes (newuser65: a run stopped after 48 of 1,600 samples was told
    to grow from 100 repeats to 160 for records asking for 60); None where unknown (no
    repeats in the header)."""
    one_server: str | None = None
    """Where the run's base and patch were one server with the same parameters and triage was
    not told it is an A/A calibration run (`--allow-same-server`): its URLs, 'both WHERE', and
    the log ('http://localhost:8000 and http://127.0.0.1:8000, both loopback port 8000, in
    run/samples.jsonl'). Every record such a run would clear is held `same-server`, so more of
    its samples clear nothing and the next step says to sample the patch on a server of its own
    first (newuser71: it said only to grow the run, and the grown run was held again)."""

    @property
    def out(self) -> str:
        """The run's `--out` directory."""
        return str(Path(self.log).parent)


class Asking(Protocol):
    """A triaged record, as triage holds it or its document records it."""

    @property
    def key(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def more_samples(self) -> int | None: ...


def asked_more(records: Iterable[Asking]) -> list[tuple[str, int]]:
    """(key, how many more samples a side) of each inconclusive record that asks for more."""
    return [
        (r.key, r.more_samples) for r in records if r.category == "inconclusive" and r.more_samples
    ]


def more_samples(
    wanted: Sequence[tuple[str, int]], logs: Sequence[SamplesLog], allow_same_server: bool
) -> MoreSamples | None:
    """The next step for records asking for more samples a side, `wanted` as (key, how many)
    (None: none asks, or no log was read); `allow_same_server`: triage's option (a run of one
    server is then no reason to sample elsewhere: `MoreSamples.one_server`)."""
    if not wanted or not logs:
        return None
    log = logs[-1]
    one = None if allow_same_server else log.header.same_server
    levels = log.header.fields.get("levels")
    sweep = isinstance(levels, list) and len(levels) > 1
    repeats = log.header.repeats
    growable = not sweep and repeats is not None
    command = logged_command(log.header.fields)
    return MoreSamples(
        log.path,
        max(more for _, more in wanted),
        repeats,
        growable,
        command,
        _stopped(log.stop),
        _refused(log),
        _failing(log, [key for key, _ in wanted]),
        None if repeats is None else _grown_to(wanted, log, repeats),
        None if one is None else escape.text(f"{one.urls}, both {one.where}, in {log.path}"),
    )


def _grown_to(wanted: Sequence[tuple[str, int]], log: SamplesLog, repeats: int) -> int:
    """`MoreSamples.grown_to` for a run of `repeats` logged in `log`."""
    modes = log.header.modes or tuple(
        sorted({s.mode for s in log.samples if s.mode != Mode.CONTROL.value})
    )
    slots: dict[tuple[str, str, str], set[int]] = {}
    for sample in log.samples:
        slots.setdefault((sample.key, sample.side, sample.mode), set()).add(sample.repeat)
    needed = repeats
    for key, more in wanted:
        logged = min(
            (len(slots.get((key, side, mode), ())) for side in SIDES for mode in modes),
            default=0,
        )
        needed = max(needed, logged + more)
    return needed


STOP_SHOWN = 400
"""Characters of a stop line's message the next step shows."""
_STOPS = {
    StopReason.NOT_STREAMED.value: (
        "does not stream",
        "sample without --stream, or point {flag} at a server that streams",
    ),
    StopReason.REFUSED.value: (
        "refused a request as it refuses every one",
        "correct the URL, --endpoint or the model (or the credentials, --header)",
    ),
}
"""Per stop reason `--resume` cannot get past (`StopReason.resumable`): what the server did,
what to change."""


def _stopped(stop: StopLine | None) -> str | None:
    """'the patch server does not stream (MESSAGE), so --resume stops the same way: sample
    without --stream, or point --patch at a server that streams', where the log ends in a stop
    that is not resumable; None otherwise."""
    if stop is None or stop.resumable:
        return None
    server = f"the {stop.side} server" if stop.side is not None else "a server"
    did, change = _STOPS.get(stop.reason, ("stopped the run", "change what stopped it"))
    flag = f"--{stop.side}" if stop.side is not None else "--base or --patch"
    return (
        f"{server} {did} ({_stop_message(stop)}), so --resume sends the same requests and "
        f"stops the same way: {change.format(flag=flag)}"
    )


def _stop_message(stop: StopLine) -> str:
    message = escape.text(stop.message)
    return message if len(message) <= STOP_SHOWN else message[: STOP_SHOWN - 1] + "…"


def _went_away(stop: StopLine | None) -> str | None:
    """'the run stopped part-way: the patch server stopped answering (MESSAGE)' where the log
    ends in a `no-answer` stop: `--resume` gets past it only once that server answers again
    (newuser80: a run stopped by a killed patch server was told only to grow the run, whose
    resume would have stopped the same way at once)."""
    if stop is None or stop.reason != StopReason.NO_ANSWER.value:
        return None
    server = f"the {stop.side} server" if stop.side is not None else "a server"
    return f"the run stopped part-way: {server} stopped answering ({_stop_message(stop)})"


REFUSED_SHOWN = 200
"""Characters of a refused request's logged error the next step shows."""


def _all_failed(log: SamplesLog) -> list[tuple[str, list[SampleLine]]]:
    """Each side that logged samples, none successful, with its samples."""
    sides = [(which, [s for s in log.samples if s.side == which]) for which in ("base", "patch")]
    return [(w, lines) for w, lines in sides if lines and all(s.error is not None for s in lines)]


def _first_error(lines: Sequence[SampleLine]) -> str:
    error = escape.text(lines[0].error or f"HTTP {lines[0].status}")
    return error if len(error) <= REFUSED_SHOWN else error[: REFUSED_SHOWN - 1] + "…"


def _failing(log: SamplesLog, keys: Sequence[str]) -> str | None:
    """'every patch request the run logged failed (HTTP 500: ...)' where a side logged
    samples, none successful, and `_refused` does not say it; else `_failing_records`."""
    if _refused(log) is not None:
        return None
    for which, lines in _all_failed(log):
        return f"every {which} request the run logged failed ({_first_error(lines)})"
    return _went_away(log.stop) or _failing_records(log, keys)


KEYS_SHOWN = 3
"""Records a failing next step names (a run may hold thousands)."""


def _failing_records(log: SamplesLog, keys: Sequence[str]) -> str | None:
    """'every patch request for b failed (HTTP 500: ...)' where a side logged requests for
    records of `keys` (those asking for more samples), none successful; None where none did.
    More of the same requests fail until the server answers them (newuser69: a patch server
    answering HTTP 500 to every request for one prompt was asked for 60 more of them, the
    record's own reason saying to make it answer first)."""
    wanted = set(keys)
    lines: dict[tuple[str, str], list[SampleLine]] = {}
    for sample in log.samples:
        if sample.key in wanted:
            lines.setdefault((sample.side, sample.key), []).append(sample)
    said = []
    for which in SIDES:
        failed = [
            key
            for key in keys
            if (which, key) in lines and all(s.error is not None for s in lines[which, key])
        ]
        if not failed:
            continue
        names = [escape.text(key) for key in failed[:KEYS_SHOWN]]
        if len(failed) > KEYS_SHOWN:
            names.append(f"{len(failed) - KEYS_SHOWN:,} more records")
        named = names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"
        first = _first_error(lines[which, failed[0]])
        said.append(f"every {which} request for {named} failed ({first})")
    return "; ".join(said) or None


def _refused(log: SamplesLog) -> str | None:
    """'every patch request was refused (HTTP 400: ...)' where a side logged samples, none
    successful, each refused with a 4xx other than 429 (the request's own condition), or each
    answered (2xx) with an answer k3diff could not use; None where every side has a success or
    a failure more requests could get past."""
    for which, lines in _all_failed(log):
        statuses = {s.status for s in lines}
        if all(s is not None and 400 <= s < 500 and s != 429 for s in statuses):
            how = "was refused"
        elif all(s is not None and 200 <= s < 300 for s in statuses):
            # The server answered each, and each answer was unusable (a model named as an
            # object, no text, a body k3diff refuses): the same requests get the same answers
            # (newuser64c: triage asked to grow a run whose every patch answer failed so).
            how = "was answered unusably"
        else:
            continue
        return f"every {which} request the run logged {how} ({_first_error(lines)})"
    return None


REPLACED = ("--out", "--repeats")
"""Options the next step gives anew (with `--resume`, a flag), dropped from the logged command."""
HIDDEN = ":***"
"""How the log records a `--header`'s value (`k3diff.sample.options.redacted_command`)."""


def logged_command(run: Any) -> tuple[str, ...] | None:
    """The run's `k3diff sample` command line as its header's fields record it (None where
    they record none, or not as one)."""
    command = run.get("command")
    if (
        not isinstance(command, list)
        or not all(isinstance(arg, str) for arg in command)
        or command[:1] != ["k3diff"]
        or "sample" not in command
    ):
        return None
    return tuple(command)


def command_line(step: MoreSamples, out: str, repeats: int, resume: bool) -> str | None:
    """The logged command with `--out OUT [--resume] --repeats N` in place of its own,
    shell-quoted (`shellwords.join`), started by the program the user ran (`k3diff.program`); None
    where the log records no command."""
    if step.command is None:
        return None
    kept: list[str] = []
    skip = False
    for arg in step.command:
        if skip:
            skip = False
        elif arg in REPLACED:
            skip = True
        elif arg != "--resume" and arg.partition("=")[0] not in REPLACED:
            kept.append(arg)
    tail = ["--out", out, *(["--resume"] if resume else []), "--repeats", str(repeats)]
    return f"{program()} {shellwords.join([*kept[1:], *tail])}"  # the k3diff the user ran


def hidden_values(command: Sequence[str] | None) -> tuple[str, ...]:
    """What the logged `command` hides (a `--header` value; a URL's user:password, review71c),
    which a step that prints it says to give again (review80a: the step for samples of another
    condition printed `--header 'Authorization:***'` and said nothing)."""
    command = command or ()
    kinds = (
        ("--header value", any(arg.endswith(HIDDEN) for arg in command)),
        ("URL user:password", any("://***@" in arg for arg in command)),
    )
    return tuple(kind for kind, hidden in kinds if hidden)
