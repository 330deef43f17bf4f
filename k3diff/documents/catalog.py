"""The JSON Schema of every document (`k3diff/documents/schemas/NAME.json`, package data), as
`k3diff schema NAME` prints it and the tests validate against it.

A schema file may refer to another document's schema as `{"$ref": "OTHER.json"}` (a
`k3diff.wheelset/1` document embeds whole `k3diff.wheels/1` documents); `load_schema` inlines
each such file under `$defs`, so the schema a user gets is one self-contained file.

Extending a schema when a writer gains a field: add the field under `properties` at its level
(and to `required` only when every writer of the version always emits it). Objects whose
fields the writer owns are closed (`"additionalProperties": false`), so a field a writer emits
without its schema fails the tests.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from k3diff.errors import UsageError
from k3diff.ids import DocumentId

DIALECT = "https://json-schema.org/draft/2020-12/schema"
NAMES = tuple(document.schema_name for document in DocumentId)
"""Every schema's name, in `DocumentId` order."""


def schema_id(name: str) -> str:
    """The `schema` value of the document a schema name describes."""
    return DocumentId[name.upper()].value


def _raw(name: str) -> dict[str, Any]:
    text = resources.files("k3diff.documents").joinpath("schemas", f"{name}.json").read_text()
    value = json.loads(text)
    assert isinstance(value, dict)
    return value


def load_schema(name: str) -> dict[str, Any]:
    """The self-contained JSON Schema of document `name` (UsageError naming the known names
    when there is none)."""
    if name not in NAMES:
        raise UsageError(f"no schema named {name!r}; known: {', '.join(NAMES)}")
    schema = _raw(name)
    defs: dict[str, Any] = schema.setdefault("$defs", {})
    pending = _file_refs(schema)
    while pending:
        other = pending.pop()
        if other in defs:
            continue
        inlined = _raw(other)
        inlined.pop("$schema", None)
        inner = inlined.pop("$defs", {})
        defs[other] = inlined
        for key, value in inner.items():
            defs.setdefault(key, value)
        pending |= _file_refs(inlined) - set(defs)
    _rewrite_refs(schema)
    return schema


def schema_text(name: str) -> str:
    """`load_schema(name)` as the indented JSON `k3diff schema NAME` prints."""
    return json.dumps(load_schema(name), indent=2, ensure_ascii=True) + "\n"


def _file_refs(value: Any) -> set[str]:
    """Names of the schema files `value` refers to (`"$ref": "NAME.json"`)."""
    if isinstance(value, dict):
        found = {value["$ref"][:-5]} if str(value.get("$ref", "")).endswith(".json") else set()
        for item in value.values():
            found |= _file_refs(item)
        return found
    if isinstance(value, list):
        return set().union(*map(_file_refs, value)) if value else set()
    return set()


def _rewrite_refs(value: Any) -> None:
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.endswith(".json"):
            value["$ref"] = f"#/$defs/{ref[:-5]}"
        for item in value.values():
            _rewrite_refs(item)
    elif isinstance(value, list):
        for item in value:
            _rewrite_refs(item)
