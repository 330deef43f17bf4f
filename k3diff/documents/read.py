"""The one reader of k3diff's documents: `read_document(path)` recognises a file by its `schema`.

A JSON document names its schema in a top-level `schema` key; a `k3diff.samples/1` log is JSON
Lines whose first line is the header, read by `k3diff.sample.reader` (the one reader `sample
--resume` and `triage` use too). Anything else, or a known name at a version this k3diff does not
read, is refused naming the file. Every document is checked against itself
(`k3diff.documents.checks`): one whose summary or verdict disagrees with its records is refused.
Fields the readers do not know are ignored (fields are only ever added within a version).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from k3diff import bounded, ids
from k3diff.documents import audit, logs, responses, telemetry, triage, wheels, wheelset
from k3diff.documents.audit import AuditDocument
from k3diff.documents.checks import check_document
from k3diff.documents.logs import LogsDocument
from k3diff.documents.responses import ResponsesDocument
from k3diff.documents.telemetry import TelemetryDocument
from k3diff.documents.triage import TriageDocument
from k3diff.documents.wheels import WheelsDocument
from k3diff.documents.wheelset import WheelsetDocument
from k3diff.errors import InputError
from k3diff.sample.lines import SampleLine
from k3diff.sample.reader import SamplesLog, looks_like_samples_log, parse_samples_log

V = TypeVar("V")


class Kind(StrEnum):
    """The schemas `read_document` reads, by schema name."""

    WHEELS = ids.WHEELS
    WHEELSET = ids.WHEELSET
    RESPONSES = ids.RESPONSES
    SAMPLES = ids.SAMPLES
    TRIAGE = ids.TRIAGE
    AUDIT = ids.AUDIT
    LOGS = ids.LOGS
    TELEMETRY = ids.TELEMETRY


REQUIRED: Mapping[Kind, tuple[str, ...]] = {
    Kind.WHEELS: ("base", "patch", "summary", "entries", "verdict"),
    Kind.WHEELSET: ("pairs", "verdict"),
    Kind.RESPONSES: ("summary", "records", "verdict"),
    Kind.SAMPLES: ("run",),
    Kind.TRIAGE: ("alpha", "bound", "summary", "records", "verdict"),
    Kind.AUDIT: ("artifacts", "verdict"),
    Kind.LOGS: ("base", "patch", "findings", "verdict"),
    Kind.TELEMETRY: ("modes", "not_exercised", "verdict"),
}
"""Top-level keys each document must carry to be read."""

DocumentView = (
    WheelsDocument
    | WheelsetDocument
    | ResponsesDocument
    | TriageDocument
    | AuditDocument
    | LogsDocument
    | TelemetryDocument
)
"""What a JSON document's reader returns: a frozen view, each with its verdict."""

READERS: Mapping[Kind, Callable[[Mapping[str, Any], str], DocumentView]] = {
    Kind.WHEELS: wheels.read,
    Kind.WHEELSET: wheelset.read,
    Kind.RESPONSES: responses.read,
    Kind.TRIAGE: triage.read,
    Kind.AUDIT: audit.read,
    Kind.LOGS: logs.read,
    Kind.TELEMETRY: telemetry.read,
}
"""The typed reader of each kind: the self-check (`checks.check_document`) recounts its view, so
that a field missing or of another type is refused naming it (one line, exit 2) before any
number is compared, never read as a default."""

_HINTS = {
    ids.SAMPLE: "it is `k3diff sample`'s end-of-run summary; give its samples.jsonl log",
    ids.REPORT: "it is a bundle's own summary; give the documents it was made from",
}


@dataclass(frozen=True)
class Document:
    """One input file, as read."""

    name: str
    """The path exactly as given on the command line."""
    kind: Kind
    """Which schema it carries."""
    sha256: str
    """SHA-256 of the file's bytes: the input digest the bundle records."""
    size: int
    """Size of the file in bytes."""
    log: SamplesLog | None = None
    """A samples log as its one reader read it (None for the JSON documents)."""
    cross_checked: bool = False
    """Its counts and verdict were recomputed from its records and agree (for a samples log:
    every line checked, no duplicate, no second header)."""
    run_ids: tuple[str, ...] = ()
    """The sampling runs it holds or was made from (a log's run, a triage's logs' runs)."""
    view: DocumentView | None = None
    """The typed view its kind's reader built (`READERS`); None for a samples log (`log`)."""
    follows_from: str | None = None
    """For a triage: the comparison (its name as given) that triage, run again on it and the
    logs given beside it, reproduces it from (`k3diff.bundle.rederive`); None when it could
    not be run again (its comparison or logs not given)."""

    @property
    def fails(self) -> bool:
        """Whether the document's own verdict fails its policy (a samples log has none)."""
        return self.view is not None and not (self.view.ok and self.view.exit_code == 0)

    @property
    def samples(self) -> tuple[SampleLine, ...]:
        """A samples log's samples, typed (empty for the JSON documents)."""
        return () if self.log is None else self.log.samples

    def typed(self, view: type[V]) -> V:
        """The typed view, as the type its kind's reader returns (TypeError for another)."""
        if not isinstance(self.view, view):
            raise TypeError(f"{self.name}: a {self.kind.value} document has no {view.__name__}")
        return self.view


def read_document(path: Path) -> Document:
    """Read one input, recognise its schema and check it against itself."""
    data = bounded.read_document(path, str(path), "k3diff JSON document")
    digest = hashlib.sha256(data).hexdigest()
    if looks_like_samples_log(data):
        log = parse_samples_log(data, path)
        run_ids = (log.header.identity,)
        return Document(str(path), Kind.SAMPLES, digest, len(data), log, True, run_ids)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    body = _parse(path, text)
    kind = _kind(path, body.get("schema"))
    missing = [key for key in REQUIRED[kind] if key not in body]
    if missing:
        raise InputError(f"{path}: {kind.value} document without {', '.join(missing)}")
    reader = READERS.get(kind)
    view = None if reader is None else reader(body, str(path))
    checked = check_document(view, str(path))
    read_runs = view.run_ids if isinstance(view, TriageDocument) else ()
    return Document(str(path), kind, digest, len(data), None, checked, read_runs, view)


def _parse(path: Path, text: str) -> dict[str, Any]:
    try:
        value = bounded.loads(text, str(path))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: not a k3diff JSON document (line {exc.lineno}: {exc.msg})"
        ) from exc
    if not isinstance(value, dict):
        raise InputError(f"{path}: not a k3diff document (a JSON {type(value).__name__})")
    if value.get("schema") == Kind.SAMPLES.value:
        raise InputError(f"{path}: a {Kind.SAMPLES.value} log must start with its header line")
    return value


def _kind(path: Path, schema: object) -> Kind:
    if not isinstance(schema, str):
        raise InputError(f"{path}: no 'schema' key: not a document a k3diff command wrote")
    try:
        return Kind(schema)
    except ValueError:
        pass
    name, _, version = schema.partition("/")
    readable = ", ".join(kind.value for kind in Kind)
    if schema in _HINTS:
        raise InputError(f"{path}: schema {schema} is not a report input: {_HINTS[schema]}")
    for kind in Kind:
        if kind.value.partition("/")[0] == name:
            raise InputError(
                f"{path}: schema {schema}: version {version or '?'} is not readable by this "
                f"k3diff (it reads {kind.value})"
            )
    raise InputError(f"{path}: unknown schema {schema!r} (k3diff report reads {readable})")
