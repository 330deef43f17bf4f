"""A request field a log's samples sent otherwise than the capture: `Mismatch`, found field by
field (`differences`: route, stream and every request field but `IGNORED_FIELDS`), and said:
a log's condition in words (`in_words`) and the refusal, with the `sample` options a transport
mismatch needs (`refusal`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.requestvalues import same_value
from k3diff.responses.document import ResponsesDocument
from k3diff.responses.recordview import CapturedCondition, ResponsesRecord
from k3diff.triage.samples import Sample

IGNORED_FIELDS = frozenset({"cache_salt"})
"""Request fields that are no condition (`cache_salt` only keys the server's prefix cache)."""
_UNSET = "unset"


@dataclass(frozen=True)
class Mismatch:
    """One field where the samples' request differs from the captured one."""

    key: str
    """The record."""
    side: str
    """base or patch."""
    field: str
    """route, stream, or the request field's name."""
    captured: str
    """The captured request's value, as JSON (`unset` when it was not sent)."""
    sampled: str
    """The samples' value, as JSON (`unset` when it was not sent)."""
    log: str
    """The samples log, as the user named it."""

    def text(self) -> str:
        """'temperature: captured 0, sampled 1'."""
        return f"{self.field}: captured {self.captured}, sampled {self.sampled}"


def differences(
    record: ResponsesRecord,
    captured: CapturedCondition,
    sample: Sample,
    route: str | None,
    stream: bool | None,
    log: str,
    header: tuple[Mapping[str, Any] | None, set[str]] | None = None,
) -> list[Mismatch]:
    """The fields that differ. `header`, for a log without `request_params`: the request fields
    its header names and the only field names compared."""
    mine, only = (sample.request_params, None) if header is None else header
    found = []

    def differs(name: str, was: Any, now: Any) -> None:
        found.append(Mismatch(record.key, sample.side, name, _shown(was), _shown(now), log))

    if captured.route is not None and route is not None and captured.route != route:
        differs("route", captured.route, route)
    if captured.stream is not None and stream is not None and captured.stream != stream:
        differs("stream", captured.stream, stream)
    params = captured.params
    if params is None or mine is None:
        return found
    names = set(params) | set(mine) if captured.complete else set(params)
    if only is not None:
        names &= only
    for name in sorted(names - IGNORED_FIELDS):
        was, now = params.get(name, _MISSING), mine.get(name, _MISSING)
        if not same_value(was, now):
            differs(name, was, now)
    return found


_MISSING = object()


def _shown(value: Any) -> str:
    if value is _MISSING:
        return _UNSET
    text = json.dumps(value, ensure_ascii=True, sort_keys=True, default=str)
    return text if len(text) <= 60 else text[:59] + "…"


def in_words(params: Mapping[str, Any] | None, route: str | None, stream: bool | None) -> str:
    """'temperature 1, seed 7, streamed, completions route'."""
    parts = [
        f"{name} {_shown(value)}"
        for name, value in sorted((params or {}).items())
        if name not in IGNORED_FIELDS
    ]
    if params is None:
        parts.append("request fields not logged")
    if stream is not None:
        parts.append("streamed" if stream else "whole answers")
    if route is not None:
        parts.append(f"{route} route")
    return ", ".join(parts) or "no request fields"


def refusal(comparison: ResponsesDocument, mismatched: Mapping[str, list[Mismatch]]) -> str:
    first = next(iter(mismatched.values()))[0]
    more = sum(len(found) for found in mismatched.values()) - 1
    also = f" (and {more} more difference{'s' if more != 1 else ''})" if more else ""
    return (
        f"{first.log}: key {first.key!r} ({first.side}): the samples' {first.field} is "
        f"{first.sampled} but the captured request's in {comparison.name} is {first.captured}"
        f"{also}; samples count only for the request they repeat: sample with the capture's "
        f"request (k3diff sample --prompts CAPTURE{_transport(mismatched)}), or "
        "--allow-condition-mismatch to show them without clearing anything"
    )


def _transport(mismatched: Mapping[str, list[Mismatch]]) -> str:
    """The `sample` options a transport mismatch needs: `sample` sets `stream` from --stream and
    the route from --endpoint, never from the capture."""
    captured: dict[str, set[str]] = {"stream": set(), "route": set()}
    for found in mismatched.values():
        for mismatch in found:
            if mismatch.field in captured:
                captured[mismatch.field].add(mismatch.captured)
    options = []
    if len(captured["stream"]) == 1:
        options.append("with --stream" if captured["stream"] == {"true"} else "without --stream")
    if len(captured["route"]) == 1:
        options.append(f"--endpoint {json.loads(next(iter(captured['route'])))}")
    return "".join(f" {option}" for option in options)
