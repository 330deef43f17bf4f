"""`k3diff sample`'s option values read into what `SampleOptions` holds: `--param` KEY=VALUE
pairs, `--header` K:V pairs, `--levels`, `--metrics-url`, the `--control` default, a server's
root URL, and the command line as the log records it (credentials hidden). Each bad value is a
`UsageError` naming the option (exit 2)."""

from __future__ import annotations

import json
import sys
from typing import Any

from k3diff.errors import UsageError
from k3diff.sample.credentials import redacted_url
from k3diff.sample.names import SIDES, Mode
from k3diff.sampling_params import boolean_number, non_finite


def server_root(url: str) -> str:
    """The server's root URL: an OpenAI-SDK style base URL (`http://host:8000/v1`) is accepted
    too, since the endpoint paths k3diff requests (`/v1/completions`, …) carry the `/v1`."""
    root = url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


CONTROLLED_FIELDS = ("stream", "stream_options")
"""Request fields `k3diff sample` sets itself (from `--stream`): a prompts file's are dropped,
and a `--param` naming one is refused (newuser64b: `--patch-param stream=true` streamed one side
while the log said no side streamed, and the answer was read as one JSON object)."""


def parse_params(values: tuple[str, ...], option: str = "--param") -> dict[str, Any]:
    """`key=value` pairs; a value is JSON where it parses (`temperature=0` is a number)."""
    params: dict[str, Any] = {}
    for item in values:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise UsageError(f"{option} {item!r}: expected key=value")
        if name in CONTROLLED_FIELDS:
            raise UsageError(
                f"{option} {item!r}: {name} is set by k3diff sample itself: give --stream to "
                "stream every request of both sides (a server that does not stream is sampled "
                "without it, in another --out)"
            )
        try:
            params[name] = json.loads(raw)
        except json.JSONDecodeError:
            params[name] = raw
        except ValueError:  # review71e: an integer past Python's digits, an internal error
            digits = f"{sys.get_int_max_str_digits():,}"
            raise UsageError(
                f"{option} {name}=...: an integer of more than {digits} digits"
            ) from None
        if problem := boolean_number({name: params[name]}) or non_finite(params[name], name):
            raise UsageError(f"{option} {item!r}: {problem}: give the number the request means")
    return params


def parse_headers(values: tuple[str, ...], option: str = "--header") -> dict[str, str]:
    """`Name: value` pairs."""
    headers: dict[str, str] = {}
    for item in values:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"{option} {item!r}: expected K:V")
        headers[name.strip()] = value.strip()
    return headers


SECRET_OPTIONS = ("--header", "--flush-header")
"""Options whose values may hold credentials: only their header names are logged."""


def redacted_command(argv: list[str]) -> tuple[str, ...]:
    """The command line with `--header`/`--flush-header` values and every URL's credentials
    (`--base`, `--patch`, `--proxy`, `--metrics-url`, `--flush-url`) hidden."""
    command = ["k3diff"]
    hide_next: str | None = None
    side_url = False
    for arg in argv:
        if hide_next is not None:
            arg = arg.partition(":")[0] + ":***"
        elif side_url:
            arg = _side_url(arg)
        else:
            option, equals, value = arg.partition("=")
            if equals and option in SECRET_OPTIONS:
                arg = f"{option}={value.partition(':')[0]}:***"
            elif equals and option == SIDE_URL_OPTION:
                arg = f"{option}={_side_url(value)}"
            elif equals and option.startswith("--"):
                arg = f"{option}={redacted_url(value)}"
            else:
                arg = redacted_url(arg)
        hide_next = arg if arg in SECRET_OPTIONS else None
        side_url = hide_next is None and arg == SIDE_URL_OPTION
        command.append(arg)
    return tuple(command)


SIDE_URL_OPTION = "--metrics-url"
"""The option whose value is `SIDE=URL`: no URL to `redacted_url` as a whole (review80a: the
log's command, and a resumable stop's resume command, kept `base=http://user:pw@host`)."""


def _side_url(value: str) -> str:
    """`base=http://***@host/metrics` of `base=http://user:pw@host/metrics`."""
    side, equals, url = value.partition("=")
    return f"{side}={redacted_url(url)}" if equals else redacted_url(value)


NEW_MODES = frozenset({Mode.COLD_WARM.value, Mode.SWEEP.value, Mode.NEEDLE.value, Mode.MIXED.value})
"""Modes whose runs get the control unless `--control off`."""


def control_choice(control: str | None, modes: tuple[str, ...]) -> str | None:
    """`--control`: seeds, nonce or None (off); by default seeds when a mode in NEW_MODES runs."""
    if control is None:
        return "seeds" if NEW_MODES & set(modes) else None
    return None if control == "off" else control


def parse_levels(text: str) -> tuple[int, ...]:
    """`--levels 1,2,4,8`: distinct positive integers, in the order given."""
    try:
        levels = tuple(int(part) for part in text.split(","))
    except ValueError:
        levels = ()
    if not levels or min(levels) < 1 or len(set(levels)) != len(levels):
        raise UsageError(f"--levels {text!r}: give distinct positive integers, e.g. 1,2,4,8")
    return levels


def parse_metrics_urls(values: tuple[str, ...], two_sides: bool) -> dict[str, str]:
    """`--metrics-url base=URL` / `patch=URL` (or `off`)."""
    found: dict[str, str] = {}
    for value in values:
        if value == "off":
            continue
        side, sep, url = value.partition("=")
        if not sep or side not in SIDES or not url:
            raise UsageError(f"--metrics-url {value!r}: expected base=URL, patch=URL or off")
        if side == "patch" and not two_sides:
            raise UsageError("--metrics-url patch=URL needs --patch (the side it reads)")
        found[side] = url
    if "off" in values and found:
        raise UsageError("--metrics-url off reads no metrics; leave out the SIDE=URL values")
    return found
