"""Triage pools samples only of identical requests.

Samples of one record key and side, across every log and every mode, must carry one
`request_sha256`: a log made at temperature 1 pooled with one made at temperature 0 would turn a
deterministic divergence into "both nondeterministic" (a wrong verdict in the passing direction).
Base and patch may differ (each server has its own `model`), so requests are compared within a
side only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from k3diff.errors import UsageError
from k3diff.triage.samples import Sample, SampleLogs


def check_identical_requests(logs: SampleLogs) -> None:
    """Raise naming the key, side, logs and hashes when one key and side mixes requests."""
    first: dict[tuple[str, str], Sample] = {}
    for sample in logs.samples:
        seen = first.setdefault((sample.key, sample.side), sample)
        if seen.request_sha256 != sample.request_sha256:
            raise UsageError(_message(logs, seen, sample))


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
