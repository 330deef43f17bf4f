"""The documents `k3diff report` reads, recognised by their `schema`.

A JSON document names its schema in a top-level `schema` key; a `k3diff.samples/1` log is JSON
Lines whose first line is the header. Anything else, or a known name at a version this k3diff
does not read, is refused naming the file. Fields the readers do not know are ignored (fields
are only ever added within a version).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from k3diff import bounded
from k3diff.errors import InputError, UsageError


class Kind(StrEnum):
    """The schemas `k3diff report` reads, by schema name."""

    WHEELS = "k3diff.wheels/1"
    WHEELSET = "k3diff.wheelset/1"
    RESPONSES = "k3diff.responses/1"
    SAMPLES = "k3diff.samples/1"
    TRIAGE = "k3diff.triage/1"
    AUDIT = "k3diff.audit/1"


REQUIRED: Mapping[Kind, tuple[str, ...]] = {
    Kind.WHEELS: ("base", "patch", "summary", "entries", "verdict"),
    Kind.WHEELSET: ("pairs", "verdict"),
    Kind.RESPONSES: ("summary", "records", "verdict"),
    Kind.SAMPLES: ("run",),
    Kind.TRIAGE: ("alpha", "bound", "summary", "records", "verdict"),
    Kind.AUDIT: ("artifacts", "verdict"),
}
"""Top-level keys each document must carry for the report to read it."""

_HINTS = {
    "k3diff.sample/1": "it is `k3diff sample`'s end-of-run summary; give its samples.jsonl log",
    "k3diff.report/1": "it is a bundle's own summary; give the documents it was made from",
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
    body: Mapping[str, Any]
    """The document; for a samples log, its header with the samples under `samples`."""


def read_inputs(paths: Sequence[Path]) -> tuple[Document, ...]:
    """Read every input; raise InputError naming the first file that cannot be used."""
    if not paths:
        raise UsageError("give at least one RESULT document (k3diff wheels/responses/... JSON)")
    documents: list[Document] = []
    seen: dict[str, str] = {}
    for path in paths:
        document = read_document(path)
        if document.sha256 in seen:
            raise UsageError(f"{path}: the same document as {seen[document.sha256]}; give it once")
        seen[document.sha256] = document.name
        documents.append(document)
    return tuple(documents)


def read_document(path: Path) -> Document:
    """Read one input and recognise its schema."""
    data = bounded.read_document(path, str(path), "k3diff JSON document")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    body = _parse(path, text)
    kind = _kind(path, body.get("schema"))
    missing = [key for key in REQUIRED[kind] if key not in body]
    if missing:
        raise InputError(f"{path}: {kind.value} document without {', '.join(missing)}")
    return Document(str(path), kind, hashlib.sha256(data).hexdigest(), len(data), body)


def _parse(path: Path, text: str) -> dict[str, Any]:
    try:
        value = bounded.loads(text, str(path))
    except json.JSONDecodeError as whole_error:
        return _parse_samples(path, text, whole_error)
    if not isinstance(value, dict):
        raise InputError(f"{path}: not a k3diff document (a JSON {type(value).__name__})")
    return value


def _parse_samples(path: Path, text: str, whole_error: json.JSONDecodeError) -> dict[str, Any]:
    """A JSON Lines samples log: the header, then samples (later header-like lines skipped)."""
    lines = text.split("\n")  # only newlines end a JSON line (not U+2028 inside a string)
    try:
        header = bounded.loads(lines[0], f"{path}:1") if lines else None
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or "schema" not in header:
        raise InputError(
            f"{path}: not a k3diff JSON document (line {whole_error.lineno}: {whole_error.msg})"
        )
    if header.get("schema") != Kind.SAMPLES.value:
        _kind(path, header.get("schema"))  # names the unknown or mismatched schema
        raise InputError(f"{path}: a {header['schema']} document must be one JSON object")
    samples: list[dict[str, Any]] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            sample = bounded.loads(line, f"{path}:{number}")
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: line {number}: malformed JSON ({exc.msg})") from exc
        if not isinstance(sample, dict):
            raise InputError(f"{path}: line {number}: a sample must be a JSON object")
        if "schema" in sample:
            continue
        for key in ("side", "key", "mode"):
            if not isinstance(sample.get(key), str):
                raise InputError(f"{path}: line {number}: sample without a {key!r} string")
        samples.append(sample)
    return {**header, "samples": samples}


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
