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
IDENTITY_FORMAT = 3
"""The first `log_format` whose header records `server_identity` (samples72)."""
NO_CHECK_RESUMED = "records no such check"
"""Why a resume marker without `server_identity` leaves a run unchecked (`resumed_fields`)."""


def check_identity(run: Mapping[str, Any], where: str, log_format: int | None) -> None:
    """`run.server_identity`, where written, as `sample` writes it and the schema states it: a
    `result` it gives with its `why`, `sent` GETs ≥ 1, one or two servers only where the
    header records both sides' `/metrics` read (review72c: a result edited to another word, or
    to `two-servers` in a run of `--metrics-url off`, dropped triage's unchecked note, and
    `one-server` its hold; review72e: `sent` of 0 was read), and two servers only in a header
    of `log_format` 3 on, the first whose run made the check (review73e: a header rewritten to
    format 2 with `two-servers` read as checked, with nothing said)."""
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
    if result == IDENTITY_TWO and (log_format is None or log_format < IDENTITY_FORMAT):
        written = "no log_format" if log_format is None else f"log_format {log_format}"
        raise InputError(
            f"{said} says {result} in a header of {written}: k3diff sample records the check "
            f"from log_format {IDENTITY_FORMAT} on, so {edited}"
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
    InputError where the marker's check is not as `sample` writes it. A marker without one (a
    resume by k3diff before samples73, or one whose check was deleted) ranks as `unchecked`:
    the samples after it were not checked (review73e: before, it changed nothing, and a
    `two-servers` header cleared them)."""
    when = str(marker.get("resumed", ""))[:WHEN_SHOWN]
    found = marker.get(IDENTITY_FIELD)
    if found is None:
        why = f"its resume marker {NO_CHECK_RESUMED} (k3diff sample records it from samples73 on)"
        found, result = {"result": IDENTITY_UNCHECKED, "why": why}, IDENTITY_UNCHECKED
    else:
        said = f"{where}: resume marker '{IDENTITY_FIELD}'"
        result = _checked(found, said, "the log was edited; give the log as sample wrote it")
    logged = fields.get(IDENTITY_FIELD)
    was = logged.get("result") if isinstance(logged, dict) else None
    if _RANK[result] <= _RANK.get(str(was), _RANK[IDENTITY_UNCHECKED]):
        return None
    header = f"said {was}" if was is not None else "recorded no such check"
    why = f"found by the resume of {when} (the log's header {header}): {found['why']}"
    return {**fields, IDENTITY_FIELD: {**found, "why": why}}
