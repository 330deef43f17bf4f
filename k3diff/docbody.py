"""A k3diff JSON document's body: its bytes read through the capped reader, decoded, parsed and
recognised by its `schema` key, with the top-level keys its kind must carry.

This is the first half of reading every JSON document k3diff writes, shared by every command
that reads one (`k3diff.documents.read.read_document` for `report`, the comparison reader
`k3diff.responses.document.read_comparison` for `triage`), so that one edited file is refused
with the same line by each. It sits below the library packages (it imports only `bounded`,
`errors`, `ids` and `jsonmembers`); the typed reader of each kind does the second half. The
object is read member by member (`k3diff.jsonmembers`), and the long array a reader names
(`Streams`: a comparison's `records`) item by item into that reader's typed items, so that the
document is never held as its raw dicts beside its typed view (stream79).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from k3diff import bounded, ids
from k3diff.errors import InputError
from k3diff.jsonmembers import Items, read_object

WHAT = "k3diff JSON document"
"""How the capped reader names the file in its refusals (too large, not a regular file)."""


class Kind(StrEnum):
    """The schemas k3diff reads back, by schema name."""

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

MOST_VALUES = 16_000_000
"""Most JSON values a document of a kind not in `VALUES` holds outside the items of its streamed
array (`jsonvalues.held`: commas and brackets counted), and each such item: about 1.2 GB of
dicts and lists at the most (review80f: `{"schema": "k3diff.triage/1", "records": [{}, ...]}`
of 4,000,000 items took 18.9 s and 828 MB, a 1 GiB one tens of GB). Genuine documents hold far
fewer: a responses document 89 outside its records (100,000 records a side), a record about 50."""

VALUES: Mapping[Kind, int] = {
    Kind.WHEELS: MOST_VALUES,  # 12,249 entries: 184,242 (15 an entry); 200,000 entries: 3M
    Kind.TRIAGE: 40_000_000,  # 118 to 350 a record: 100,000 records about 35M
}
"""Per kind, most JSON values a document holds where it is more than `MOST_VALUES`."""

_HINTS = {
    ids.SAMPLE.partition("/")[0]: (
        "it is `k3diff sample`'s end-of-run summary; give its samples.jsonl log"
    ),
    ids.REPORT.partition("/")[0]: (
        "it is a bundle's own summary; give the documents it was made from"
    ),
}
"""Documents k3diff writes but never reads back, by schema name (every version: a bundle's
summary.json of `k3diff.report/1`, written before report65, is no input either)."""


def read_bytes(path: Path) -> bytes:
    """The file's bytes, through the capped reader (regular files only, under the caps)."""
    return bounded.read_document(path, str(path), WHAT)


Streams = Mapping[Kind, tuple[str, Items]]
"""Per kind, the array member its reader reads item by item as the document is decoded (a
comparison's `records`), and how: the member is then a `jsonmembers.Streamed`."""


def decode(data: bytes, path: Path) -> str:
    """The document's text; InputError naming the file when it is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from exc


def parse_body(
    data: bytes | str, path: Path, streams: Streams | None = None
) -> tuple[Kind, dict[str, Any]]:
    """The document's kind and its top-level object; InputError naming the file when it is not
    UTF-8, not JSON, not an object, of no schema k3diff reads, or without a required key. The
    array member `streams` names for its kind is read item by item (`jsonmembers`). Given the
    text (`decode`), the caller need not hold the bytes while it is parsed."""
    text = data if isinstance(data, str) else decode(data, path)
    body = _parse(path, text, streams or {})
    kind = _kind(path, body.get("schema"))
    missing = [key for key in REQUIRED[kind] if key not in body]
    if missing:
        raise InputError(f"{path}: {kind.value} document without {', '.join(missing)}")
    return kind, body


def _parse(path: Path, text: str, streams: Streams) -> dict[str, Any]:
    def chosen(members: Mapping[str, Any]) -> Mapping[str, Items]:
        kind = _known(members.get("schema"))
        stream = None if kind is None else streams.get(kind)
        return {} if stream is None else {stream[0]: stream[1]}

    def caps(members: Mapping[str, Any]) -> tuple[str, int]:
        kind = _known(members.get("schema"))
        if kind is None:  # not yet known (or none): the most any kind holds
            return "k3diff", max(MOST_VALUES, *VALUES.values())
        return kind.value, VALUES.get(kind, MOST_VALUES)

    try:
        value = read_object(text, str(path), chosen, caps)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: not a k3diff JSON document (line {exc.lineno}: {exc.msg})"
        ) from exc
    if not isinstance(value, dict):
        raise InputError(f"{path}: not a k3diff document (a JSON {type(value).__name__})")
    if value.get("schema") == Kind.SAMPLES.value:
        raise InputError(f"{path}: a {Kind.SAMPLES.value} log must start with its header line")
    return value


def _known(schema: object) -> Kind | None:
    """The kind a `schema` value names, None for any other value."""
    return Kind(schema) if isinstance(schema, str) and schema in _SCHEMAS else None


_SCHEMAS = frozenset(kind.value for kind in Kind)


def _kind(path: Path, schema: object) -> Kind:
    if not isinstance(schema, str):
        raise InputError(f"{path}: no 'schema' key: not a document a k3diff command wrote")
    try:
        return Kind(schema)
    except ValueError:
        pass
    name, _, version = schema.partition("/")
    if name in _HINTS:
        raise InputError(f"{path}: schema {schema} is not read back: {_HINTS[name]}")
    for kind in Kind:
        if kind.value.partition("/")[0] == name:
            raise InputError(
                f"{path}: schema {schema}: version {version or '?'} is not readable by this "
                f"k3diff (it reads {kind.value})"
            )
    readable = ", ".join(kind.value for kind in Kind)
    raise InputError(f"{path}: unknown schema {schema!r} (k3diff reads {readable})")
