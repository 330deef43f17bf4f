"""Triage pools samples only of identical requests.

Samples of one record key and side, across every log and every mode, must carry one
`request_sha256`: a log made at temperature 1 pooled with one made at temperature 0 would turn a
deterministic divergence into "both nondeterministic" (a wrong verdict in the passing direction).
Base and patch may differ (each server has its own `model`), so request hashes are compared
within a side only; across the sides, what each sample logs of its request must agree (gate74):
the prompt (`prompt_xxh3`) and every request field (`request_params`) but those the log's header
gives one side (`side_params`: `--base-param`/`--patch-param`, an A/B of those fields). A log
whose sides of one key asked other prompts (edited, or pooled with a run of another prompts
file) was judged as one request where the capture records no prompt (exit 0); it is refused,
whatever the capture holds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from k3diff.errors import InputError, UsageError
from k3diff.requestvalues import same_value
from k3diff.triage.samples import Sample, SampleLogs

IGNORED = frozenset({"cache_salt"})
"""Request fields that are no condition (`cache_salt` only keys the server's prefix cache)."""


def check_identical_requests(logs: SampleLogs) -> None:
    """Raise naming the key, side, logs and hashes when one key and side mixes requests, and
    naming the log and the key when its two sides asked other requests (`_sides_apart`)."""
    first: dict[tuple[str, str], Sample] = {}
    for sample in logs.samples:
        seen = first.setdefault((sample.key, sample.side), sample)
        if seen.request_sha256 != sample.request_sha256:
            raise UsageError(_message(logs, seen, sample))
    prompts: dict[str, Sample] = {}
    fields: dict[str, Sample] = {}
    for sample in logs.samples:
        if sample.prompt_xxh3 is not None:
            seen = prompts.setdefault(sample.key, sample)
            if seen.prompt_xxh3 != sample.prompt_xxh3:
                asked = f"{_prompt(seen)} and {_prompt(sample)}"
                raise InputError(_sides_apart(logs, seen, sample, f"prompts {asked}"))
        if sample.request_params is not None:
            seen = fields.setdefault(sample.key, sample)
            differing = _fields_apart(logs, seen, sample)
            if differing:
                raise InputError(_sides_apart(logs, seen, sample, differing))


def _prompt(sample: Sample) -> str:
    return f"{sample.prompt_preview!r} ({sample.side})"


def _fields_apart(logs: SampleLogs, one: Sample, two: Sample) -> str:
    """'request fields temperature 0 (base) and 1 (patch)': the fields two samples of one key
    sent differently, but those their logs' headers give one side; '' when none."""
    given = {name for sample in (one, two) for name in _given(logs, sample.order[0])}
    mine, theirs = one.request_params or {}, two.request_params or {}
    missing = object()
    differing = [
        f"{name} {_shown(mine.get(name, missing), missing)} ({one.side}) and "
        f"{_shown(theirs.get(name, missing), missing)} ({two.side})"
        for name in sorted((set(mine) | set(theirs)) - IGNORED - given)
        if not same_value(mine.get(name, missing), theirs.get(name, missing))
    ]
    return f"request fields {'; '.join(differing)}" if differing else ""


def _given(logs: SampleLogs, index: int) -> set[str]:
    """The fields a log's header gives one side only (`side_params`)."""
    sides = logs.side_params[index] if index < len(logs.side_params) else {}
    return {name for own in sides.values() if isinstance(own, Mapping) for name in own}


def _sides_apart(logs: SampleLogs, one: Sample, two: Sample, what: str) -> str:
    """The refusal of a record whose samples asked other requests."""
    where = logs.paths[two.order[0]]
    other = logs.paths[one.order[0]]
    also = "" if other == where else f" (and {other})"
    return (
        f"{where}: key {two.key!r}: its samples{also} asked other requests, {what}; a record is "
        "one request, and samples count only for the request they repeat: sample both sides "
        "from one prompts file, with --base-param/--patch-param for fields one side is sent"
    )


def _message(logs: SampleLogs, seen: Sample, other: Sample) -> str:
    one, two = seen.order[0], other.order[0]
    if seen.request_params is not None and other.request_params is not None:
        # What each request really carried (a capture's own fields included), not only the
        # header's --param: a log sampled from a capture at temperature 0 sent temperature 0.
        cause = _params_difference(seen.request_params, other.request_params)
    elif one != two:
        cause = _params_difference(
            _side_params(logs, one, seen.side), _side_params(logs, two, seen.side)
        )
    else:
        cause = ""
    return (
        f"{other.key!r} ({other.side}): {logs.paths[one]} ({seen.mode}) sent request "
        f"{seen.request_sha256}, {logs.paths[two]} ({other.mode}) sent request "
        f"{other.request_sha256}{cause}; triage pools only identical requests; give the logs "
        "of one request setting"
    )


def _side_params(logs: SampleLogs, index: int, side: str) -> Mapping[str, Any] | None:
    """The request fields a log's header says one side was sent (`--param`, then the side's)."""
    common = logs.params[index]
    own = logs.side_params[index].get(side) if index < len(logs.side_params) else None
    if common is None or not isinstance(own, dict):
        return common
    return {**common, **own}


def _params_difference(one: Mapping[str, Any] | None, two: Mapping[str, Any] | None) -> str:
    """`` (params differ: temperature 0 vs 1)`` when the run headers say why, else empty."""
    if one is None or two is None:
        return ""
    missing = object()
    differing = [
        f"{name} {_shown(one.get(name, missing), missing)} vs "
        f"{_shown(two.get(name, missing), missing)}"
        for name in sorted(set(one) | set(two))
        if one.get(name, missing) != two.get(name, missing)
    ]
    return f" (params differ: {', '.join(differing)})" if differing else ""


def _shown(value: Any, missing: object) -> str:
    return "unset" if value is missing else json.dumps(value)
