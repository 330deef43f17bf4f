"""`sample --resume` takes the request options it was not given from the log's header
(samples74), and names an option given that differs by the option.

Before, a resume had to repeat every option of the run: `--resume --repeats 3` alone was
refused as differing from the logged one in `params`, `cache_salt`, `request_template`..., the
values the run was sampled with. Now the options that shape the requests and were left out
(`--endpoint`, `--stream`, `--cache-salt`, `--adaptive`, `--finish-reason`, and each field of
`--param`, `--base-param`, `--patch-param` not given) are the logged run's; one given is
compared with the header as before (`log.more_repeats`), and one that differs is refused (exit
2), named as the option with both values (`--param temperature (logged 0, now 0.5)`). The
run's shape left at its default (`--repeats`, `--mode`, `--concurrency`, `--levels`,
`--control`, `--control-repeats`: `SampleOptions.left_out`, click's parameter source) is the
logged run's too (review74e); `--base` and `--prompts` are required and compared as given. A header value that is not what `sample` writes (a `params` of `true` where
a number goes, a stream of "yes") is not taken: the comparison then refuses the resume, naming
both values.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from k3diff import bounded
from k3diff.errors import InputError, UsageError
from k3diff.sample.model import Endpoint, SampleOptions
from k3diff.sample.names import SAMPLING_MODES, SIDES, Mode
from k3diff.sample.options import CONTROLLED_FIELDS
from k3diff.sampling_params import boolean_number, non_finite

CONTROLS = ("seeds", "nonce")
"""The header's `control` values (`--control off`: none)."""
HEADER_BYTES = bounded.DEFAULT_MAX_RECORD_BYTES
"""The most of the log's first line read for its header (the reader's cap on a line)."""

OPTIONS = {
    "params": "--param",
    "side_params.base": "--base-param",
    "side_params.patch": "--patch-param",
    "side_params": "--base-param/--patch-param",
    "servers.base": "--base",
    "servers.patch": "--patch",
    "servers": "--base/--patch",
    "endpoint": "--endpoint",
    "stream": "--stream",
    "cache_salt": "--cache-salt",
    "adaptive": "--adaptive",
    "finish_reasons": "--finish-reason",
    "flush_url": "--flush-url",
    "modes": "--mode",
    "concurrency": "--concurrency",
    "levels": "--levels",
    "control": "--control",
    "control_repeats": "--control-repeats",
    "prompts_sha256": "--prompts (the file's prompts_sha256)",
    "header_names": "--header names",
    "flush_header_names": "--flush-header names",
    "proxy": "--proxy",
    "repeats": "--repeats",
    "request_template": "the request template's",
}
"""The option each header field (or object's key path) of a resume's comparison comes from."""


def option_named(where: str) -> str:
    """`params.temperature` as `--param temperature`: a compared header field's path named by
    the option it comes from, the rest of the path after it (the path itself where none)."""
    parts = where.split(".")
    for end in range(len(parts), 0, -1):
        option = OPTIONS.get(".".join(parts[:end]))
        if option is not None:
            rest = ".".join(parts[end:])
            return f"{option} {rest}" if rest else option
    return where


def resumed_options(options: SampleOptions, log: Path) -> SampleOptions:
    """`options` with each request option not given taken from the header of `log`, the log a
    resume continues (`options` as given without `--resume`, without a log, or where its first
    line is no header: the log's reader then says why)."""
    if not options.resume:
        return options
    run = _logged_run(log)
    if run is None:
        if "repeats" in options.left_out:
            raise UsageError(
                f"{log}: --resume without --repeats takes the logged run's, but there is no "
                "log header to take it from: give --repeats"
            )
        return options
    taken: dict[str, Any] = _run_shape(run, options.left_out)
    if "repeats" in options.left_out and "repeats" not in taken:
        raise UsageError(
            f"{log}: --resume without --repeats takes the logged run's, but the header "
            f"records none (repeats {_shown(run.get('repeats'))}): give --repeats"
        )
    if options.endpoint is None and run.get("endpoint") in tuple(Endpoint):
        taken["endpoint"] = Endpoint(run["endpoint"])
    for name in ("stream", "cache_salt", "adaptive"):
        if not getattr(options, name) and isinstance(run.get(name), bool):
            taken[name] = run[name]
    if _fields(run.get("params")) is not None:
        taken["params"] = {**run["params"], **options.params}
    sides = _side_fields(run.get("side_params"))
    if sides is not None:
        given = options.side_params
        merged = {side: {**sides.get(side, {}), **given.get(side, {})} for side in SIDES}
        taken["side_params"] = {side: fields for side, fields in merged.items() if fields}
    reasons = run.get("finish_reasons")
    if not options.finish_reasons and isinstance(reasons, list) and _strings(reasons):
        taken["finish_reasons"] = tuple(reasons)
    return dataclasses.replace(options, **taken) if taken else options


def _run_shape(run: Mapping[str, Any], left_out: frozenset[str]) -> dict[str, Any]:
    """The logged `repeats`, `modes`, `concurrency`, `levels`, `control` and
    `control_repeats` of those a resume left out, each where the header holds what `sample`
    writes (review74e: before, each left out was its default, compared with the header and
    refused, `--mode serial` against a run of concurrent and loaded)."""
    taken: dict[str, Any] = {}
    for name, least in (("repeats", 1), ("concurrency", 1), ("control_repeats", 2)):
        if name in left_out and _count(run.get(name), least):
            taken[name] = run[name]
    modes = _modes(run.get("modes"))
    if "modes" in left_out and modes is not None:
        taken["modes"] = modes
    levels = _levels(run.get("levels"))
    if "levels" in left_out and levels is not None:
        taken["levels"] = levels
    if "control" in left_out and run.get("control") in (None, *CONTROLS):
        taken["control"] = run.get("control")
    return taken


def _modes(value: Any) -> tuple[Mode, ...] | None:
    """The header's `modes` as `--mode` gave them (the control's, which `--control` adds,
    left out); None where they are not what `sample` writes."""
    if not isinstance(value, list):
        return None
    sampled = [mode for mode in value if mode != Mode.CONTROL.value]
    if not sampled or not all(isinstance(mode, str) and mode in SAMPLING_MODES for mode in sampled):
        return None
    return tuple(map(Mode, sampled)) if len(set(sampled)) == len(sampled) else None


def _levels(value: Any) -> tuple[int, ...] | None:
    """`levels` as `sample` writes them (distinct positive integers), None else."""
    if not isinstance(value, list) or not value or not all(_count(v, 1) for v in value):
        return None
    return tuple(value) if len(set(value)) == len(value) else None


def _count(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _shown(value: Any) -> str:
    return "absent" if value is None else str(value)[:40]


def _side_fields(value: Any) -> Mapping[str, Mapping[str, Any]] | None:
    """`side_params` as `sample` writes it (per side, its `--base-param`/`--patch-param`)."""
    if not isinstance(value, dict) or not set(value) <= set(SIDES):
        return None
    return value if all(_fields(fields) is not None for fields in value.values()) else None


def _strings(values: list[Any]) -> bool:
    return all(isinstance(value, str) for value in values)


def _fields(value: Any) -> Mapping[str, Any] | None:
    """Request fields as `--param` gives them (no field `sample` sets itself, no boolean
    number, nothing a JSON request cannot hold); None for anything else."""
    if not isinstance(value, dict) or set(value) & set(CONTROLLED_FIELDS):
        return None
    if boolean_number(value) or any(non_finite(v, k) for k, v in value.items()):
        return None
    return value


def _logged_run(path: Path) -> Mapping[str, Any] | None:
    """The `run` object of `path`'s first line, None where it has none."""
    if not path.is_file():  # a FIFO would block; the reader names what it is
        return None
    try:
        with path.open("rb") as log:
            first = log.readline(HEADER_BYTES)
    except OSError:
        return None
    value = None
    with contextlib.suppress(InputError, ValueError, UnicodeDecodeError):
        value = bounded.loads(first, f"{path}:1", written=True)
    if not isinstance(value, dict) or not isinstance(value.get("run"), dict):
        return None
    run: Mapping[str, Any] = value["run"]
    return run
