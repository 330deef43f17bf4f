"""The header's `command` (the `k3diff sample` command line as run, as
`k3diff.sample.options.redacted_command` records it) read back against the `run` fields it
set that decide what the run owed its log: `repeats` (`--repeats N`), `adaptive`
(`--adaptive`), `side_params` (`--base-param`, `--patch-param`: sides that differ by them are
no same server), under it `concurrency` (`--concurrency`, default 8: the batch it stops
between), and a sweep's `levels` (`--levels`, default 1,2,4,8).

Before (review71c), a header whose `repeats` was lowered from 3 to 2, every side's repeat 2
deleted, owed the lines left and passed (a patch output the base never gave, on a deleted line,
went unseen); one given `adaptive: true`, every record's rounds after two base outputs deleted,
read each as stopped by `--adaptive`'s rule; and `concurrency` lowered made a batch cut short
read as whole. `stream` (`--stream`) and `endpoint` (`--endpoint`, where given) are the route
and stream triage compares with the captured request: each must be of its type whatever the
command (review78c: `"stream": "false"` was present, so not refused as missing, and skipped the
check as a deleted one did) and as the command gave it (`"stream": false` of a `--stream` run
cleared streamed samples against a whole answer's capture, exit 0). A header whose command is unknown (empty: `sample` invoked outside the `k3diff`
group) is checked by nothing here; one whose command was edited alike is not told from a run
that asked it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from k3diff.errors import InputError, UsageError
from k3diff.sample.names import SIDES, Endpoint
from k3diff.sample.options import parse_levels, parse_params
from k3diff.sample.usage import shown

OPTIONS: tuple[tuple[str, str, Callable[[str], Any], str | None], ...] = (
    ("--repeats", "repeats", int, None),
    ("--concurrency", "concurrency", int, "8"),
    ("--levels", "levels", lambda text: list(parse_levels(text)), "1,2,4,8"),
)
"""(option, header field, the value as click reads it, the option's default)."""
ADAPTIVE_ONLY = frozenset({"concurrency"})
"""Fields that decide what a run owed only under `--adaptive` (a batch it stops between)."""


def check_header(run: Mapping[str, Any], where: str) -> None:
    """InputError where the header's fields disagree with its recorded command (`OPTIONS`,
    `--adaptive`, the side params), or its `stream`/`endpoint` are not well-typed or not what
    the command gave (`--stream`, `--endpoint`): the command read once (`recorded_command`),
    every check of it here."""
    command = recorded_command(run)
    if command is not None:
        _check_options(run, command, where, marker=False)
        _check_side_params(run, command, where)
        _check_adaptive(run, command, where)
    _check_transport(run, command, where)


def check_marker(marker: Mapping[str, Any], where: str) -> None:
    """InputError where a resume marker's `--repeats` is not its `repeats` (review71c: a
    marker's repeats lowered, the last repeat's lines deleted, passed)."""
    command = recorded_command(marker)
    if command is not None:
        _check_options(marker, command, where, marker=True)


def recorded_command(run: Mapping[str, Any]) -> Sequence[str] | None:
    """The recorded `k3diff sample` command line, or None where there is none to check
    against (not a list of strings, or `sample` invoked outside the `k3diff` group)."""
    command = run.get("command")
    if not isinstance(command, list) or not all(isinstance(arg, str) for arg in command):
        return None
    return command if "sample" in command else None


def _check_options(
    run: Mapping[str, Any], command: Sequence[str], where: str, marker: bool
) -> None:
    """Each option of `OPTIONS` (a marker's `--repeats` alone) as the command gave it."""
    for option, field, read, default in OPTIONS[:1] if marker else OPTIONS:
        text = _value(command, option) or default
        if (
            text is None
            or field not in run
            or (field in ADAPTIVE_ONLY and run.get("adaptive") is not True)
        ):
            continue
        try:
            given = read(text)
        except (ValueError, UsageError):
            continue  # not what click took: nothing to compare
        if given != run[field]:
            name = "resume marker 'repeats'" if marker else f"header 'run.{field}'"
            _edited(where, f"{name} is {shown(run[field])}", f"{option} {text}")


def _check_adaptive(run: Mapping[str, Any], command: Sequence[str], where: str) -> None:
    adaptive = "--adaptive" in command
    if adaptive != (run.get("adaptive") is True):
        ran = "--adaptive" if adaptive else "no --adaptive"
        _edited(where, f"header 'run.adaptive' is {shown(run.get('adaptive'))}", ran)


def _check_transport(run: Mapping[str, Any], command: Sequence[str] | None, where: str) -> None:
    """The header's `stream` a bool and its `endpoint` a route, each as its recorded command
    gave it (`--stream`, `--endpoint`) where there is one."""
    stream, endpoint = run.get("stream"), run.get("endpoint")
    if not isinstance(stream, bool):
        _edited_field(where, f"header 'run.stream' is {shown(stream)}, not true or false")
    routes = tuple(route.value for route in Endpoint)
    if endpoint not in routes:
        _edited_field(
            where, f"header 'run.endpoint' is {shown(endpoint)}, not one of {', '.join(routes)}"
        )
    if command is None:
        return
    if ("--stream" in command) != stream:
        ran = "--stream" if stream is False else "no --stream"
        _edited(where, f"header 'run.stream' is {shown(stream)}", ran)
    given = _value(command, "--endpoint")
    if given in routes and given != endpoint:
        _edited(where, f"header 'run.endpoint' is {shown(endpoint)}", f"--endpoint {given}")


def _check_side_params(run: Mapping[str, Any], command: Sequence[str], where: str) -> None:
    """`side_params` as `--base-param`/`--patch-param` gave them: a header given them of a run
    of one server (review71c) read as an A/B of request fields, and passed."""
    servers = run.get("servers")
    sides = [side for side in SIDES if isinstance(servers, dict) and servers.get(side)]
    try:
        given = {s: parse_params(_values(command, f"--{s}-param"), f"--{s}-param") for s in sides}
    except (UsageError, ValueError):
        return  # not what click took: nothing to compare
    expected = given if any(given.values()) else None
    if run.get("side_params") != expected:
        flags = " and ".join(f"--{side}-param" for side in sides if given[side])
        ran = flags or "neither --base-param nor --patch-param"
        _edited(where, f"header 'run.side_params' is {shown(run.get('side_params'))}", ran)


def _value(command: Sequence[str], option: str) -> str | None:
    """The last value `option` was given (`--repeats 3`, `--repeats=3`), as click takes it."""
    found = _values(command, option)
    return found[-1] if found else None


def _values(command: Sequence[str], option: str) -> tuple[str, ...]:
    """Each value `option` was given, in order."""
    found = []
    for number, arg in enumerate(command):
        if arg == option and number + 1 < len(command):
            found.append(command[number + 1])
        elif arg.startswith(option + "="):
            found.append(arg.partition("=")[2])
    return tuple(found)


def _edited_field(where: str, problem: str) -> None:
    raise InputError(f"{where}: {problem}: the log was edited; give the log as sample wrote it")


def _edited(where: str, field: str, ran: str) -> None:
    raise InputError(
        f"{where}: {field}, but its command ran {ran}: the log was edited; give the log as "
        "sample wrote it"
    )
