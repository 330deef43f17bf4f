"""How readers take the one-server check (`k3diff.sample.identity`) from a log: the header's
`run.server_identity`, checked as `sample` writes it, and each resume marker's (samples73).

`--resume` keeps the log's header, and runs the check again: before, its answer was dropped,
so a run whose header said `two-servers` (or `unchecked`, or a log written before the check)
and whose resume found `one-server` (the servers' counters now counting the patch's GETs on the
base) passed triage with the resumed samples, exit 0 (a resume that found one server is
refused since review72c; a resume refused leaves the log as it was, passing). Now the marker
records the resume's answer, and readers take the run as the worse of the header's and every
marker's: `one-server` over `unchecked` (or none recorded) over `two-servers`. A marker can
only hold a run, never clear one: its `two-servers` never replaces the header's `unchecked`,
since the samples logged before it were not checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from k3diff.errors import InputError
from k3diff.sample.names import SIDES
from k3diff.sample.oneserver import (
    IDENTITY_FIELD,
    IDENTITY_ONE,
    IDENTITY_RESULTS,
    IDENTITY_TWO,
    IDENTITY_UNCHECKED,
)

_IDENTITY_KEYS = frozenset({"result", "why", "sent", "series"})
_RANK = {IDENTITY_TWO: 0, IDENTITY_UNCHECKED: 1, IDENTITY_ONE: 2}
"""How far each result is from clearing a run: a reader takes the highest seen (none recorded
ranks as `unchecked`)."""
WHEN_SHOWN = 40
"""Characters of a marker's `resumed` time a sentence shows (the log's text: hostile)."""


def check_identity(run: Mapping[str, Any], where: str) -> None:
    """`run.server_identity`, where written, as `sample` writes it and the schema states it: a
    `result` it gives with its `why`, `sent` GETs ≥ 1, and one or two servers only where the
    header records both sides' `/metrics` read (review72c: a result edited to another word, or
    to `two-servers` in a run of `--metrics-url off`, dropped triage's unchecked note, and
    `one-server` its hold; review72e: `sent` of 0 was read)."""
    identity = run.get(IDENTITY_FIELD)
    if identity is None:
        return
    said = f"{where}: header 'run.{IDENTITY_FIELD}'"
    edited = "the header was edited; give the log as sample wrote it"
    result = _checked(identity, said, edited)
    metrics = run.get("metrics")
    read = isinstance(metrics, dict) and all(isinstance(metrics.get(s), dict) for s in SIDES)
    if result != IDENTITY_UNCHECKED and not read:
        raise InputError(
            f"{said} says {result}, but the header records no /metrics of both sides for the "
            f"servers' counters to have said it: {edited}"
        )


def _checked(identity: Any, said: str, edited: str) -> str:
    """The result of a `server_identity` object as `sample` writes it; InputError else."""
    if not isinstance(identity, dict) or not _IDENTITY_KEYS.issuperset(identity):
        raise InputError(f"{said} is not an object of {', '.join(sorted(_IDENTITY_KEYS))}")
    result = identity.get("result")
    if result not in IDENTITY_RESULTS:
        raise InputError(
            f"{said} is not what k3diff sample writes (a result of {IDENTITY_ONE}, "
            f"{IDENTITY_TWO} or {IDENTITY_UNCHECKED}): {edited}"
        )
    sent = identity.get("sent")
    if isinstance(sent, bool) or not isinstance(sent, int) or sent < 1:
        raise InputError(f"{said}.sent is not a positive integer")
    for key in ("why", "series"):
        if not isinstance(identity.get(key, ""), str):
            raise InputError(f"{said}.{key} is not a string")
    if "why" not in identity:
        raise InputError(f"{said}.why missing")
    return str(result)


def resumed_fields(
    fields: Mapping[str, Any], marker: Mapping[str, Any], where: str
) -> Mapping[str, Any] | None:
    """The header's `run` fields with a resume marker's check where it is worse than the one
    they hold (its `why` saying which resume found it, and what the header said), else None.
    InputError where the marker's check is not as `sample` writes it."""
    found = marker.get(IDENTITY_FIELD)
    if found is None:
        return None
    said = f"{where}: resume marker '{IDENTITY_FIELD}'"
    result = _checked(found, said, "the log was edited; give the log as sample wrote it")
    logged = fields.get(IDENTITY_FIELD)
    was = logged.get("result") if isinstance(logged, dict) else None
    if _RANK[result] <= _RANK.get(str(was), _RANK[IDENTITY_UNCHECKED]):
        return None
    when = str(marker.get("resumed", ""))[:WHEN_SHOWN]
    header = f"said {was}" if was is not None else "recorded no such check"
    why = f"found by the resume of {when} (the log's header {header}): {found['why']}"
    return {**fields, IDENTITY_FIELD: {**found, "why": why}}
