"""Every range and list of words a document's schema states, `k3diff report` holds too: walked
over every schema, not listed by hand.

For each document of the example (`make demo`: every command on the example engine), each
field's bounds are read from the schema itself (the subschemas that validate the field:
`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `enum`, a string's `const`,
`pattern`), the document is edited
one step past each bound, and where the schema refuses the edit, `report` must too: exit 2, one
line naming the file. Stop 71 left `report` reading a logs document's `base.size` of -1, a KV
side's `missed_blocks` of -1, a gate's per-unit counts below 0 and a triage record's `p` of 1.5
(bounded in the schema, never read), so a pipeline that validated by the schema and one that
read through `report` disagreed on what the evidence was (readers72).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import demo
import jsonschema
import pytest
from cli_support import run_k3diff
from wheels.wheelset_support import release_sets

import k3diff.documents
from documents.test_schema_ranges_runs import _telemetry

Path_ = tuple[str | int, ...]

DOCUMENTS = ("wheels.json", "cmp.json", "triage.json", "audit.json", "logs.json", "telemetry.json")
"""The example's documents `report` reads (its own `summary.json` it writes, never reads)."""

BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum", "const", "pattern")


MORE = ("telemetry-gate", "wheelset")
"""Documents the example does not write: a telemetry run with its acceptance gate and a KV
side (`test_schema_ranges_runs`), a release set's."""


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The example of `make demo`, run once, and the documents of `MORE`."""
    directory = tmp_path_factory.mktemp("example") / "demo"
    assert demo.run(directory) == 0
    found = {name: json.loads((directory / name).read_text()) for name in DOCUMENTS}
    found["telemetry-gate"] = _telemetry(tmp_path_factory.mktemp("telemetry"))
    sets = tmp_path_factory.mktemp("sets")
    release_sets(sets, native_change=True)
    result = run_k3diff("wheels", "base", "patch", "--format", "json", cwd=sets)
    assert result.exit_code == 1, result.stderr
    found["wheelset"] = json.loads(result.stdout)
    found["samples.jsonl"] = {
        "lines": [json.loads(line) for line in (directory / "run/samples.jsonl").open()]
    }
    return found


def _leaves(value: Any, path: Path_ = ()) -> Iterator[Path_]:
    """Every scalar's path (null included: an optional number's bound holds where it is
    written)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    else:
        yield path


def _shape(path: Path_) -> Path_:
    """The path with its list indexes left out: one field of every record alike."""
    return tuple("[]" if isinstance(key, int) else key for key in path)


def _set(document: Any, path: Path_, value: Any) -> Any:
    """Set the field at `path`; what it held."""
    *outer, last = path
    target = document
    for key in outer:
        target = target[key]
    was = target[last]
    target[last] = value
    return was


def _subschemas(validator: Any, document: Any, path: Path_) -> list[dict[str, Any]]:
    """The subschemas that validate the field at `path`: those whose type check fails on an
    object put there (an object is no scalar field's type), nested errors (`oneOf`) included."""
    was = _set(document, path, {"probe": [None]})
    found: list[dict[str, Any]] = []
    stack = list(validator.iter_errors(document))
    while stack:
        error = stack.pop()
        if tuple(error.absolute_path) == path and isinstance(error.schema, dict):
            found.append(error.schema)
        stack.extend(error.context or ())
    _set(document, path, was)
    return found


def _past(schema: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """One value past each bound `schema` states."""
    types = schema.get("type", ())
    step = 1 if "integer" in types else 0.5
    if "minimum" in schema:
        yield "minimum", schema["minimum"] - step
    if "maximum" in schema:
        yield "maximum", schema["maximum"] + step
    if "exclusiveMinimum" in schema:
        yield "exclusiveMinimum", schema["exclusiveMinimum"]
    if "exclusiveMaximum" in schema:
        yield "exclusiveMaximum", schema["exclusiveMaximum"]
    words = schema.get("enum")
    if words and all(isinstance(word, str) for word in words):
        yield "enum", "no-such-word"
    if isinstance(schema.get("const"), str):  # a pair's `wheels.schema` (audit73)
        yield "const", f"{schema['const']}-renamed"
    if "pattern" in schema:  # a SHA-256 in capitals, or any text the pattern refuses (audit73)
        yield "pattern", "ABCDEF0123456789" * 4


def _edits(validator: Any, document: Any) -> Iterator[tuple[Path_, str, Any]]:
    """(path, bound, value) for the first field of each shape that a schema bound holds."""
    seen: set[Path_] = set()
    for path in list(_leaves(document)):
        if not path or _shape(path) in seen or path[0] == "schema":
            continue
        seen.add(_shape(path))
        for schema in _subschemas(validator, document, path):
            for bound, value in _past(schema):
                yield path, bound, value


def _named(path: Path_) -> str:
    named = ""
    for key in path:
        named += f"[{key}]" if isinstance(key, int) else f".{key}" if named else str(key)
    return named


def _refused(tmp_path: Path, name: str, path: Path_, bound: str, value: Any) -> str | None:
    """What is wrong with `report`'s answer to the document written to `name` (None: it
    refused it, exit 2, in one line naming the file and the field, or the list that holds it:
    `acceptance_units[1].tokens` for one of its pairs)."""
    result = run_k3diff("report", name, "--out", "bundle", cwd=tmp_path)
    said = result.stderr.splitlines()
    if (
        result.exit_code == 2
        and len(said) == 1
        and said[0].startswith(f"k3diff: error: {name}")
        and any(f"'{_named(path[:end])}'" in said[0] for end in range(len(path), 0, -1))
    ):
        return None
    return f"{_named(path)} {bound} {value!r}: exit {result.exit_code} {said[:1]}"


@pytest.mark.parametrize("name", DOCUMENTS + MORE)
def test_every_bound_the_schema_states_report_holds(
    documents: dict[str, dict[str, Any]], tmp_path: Path, name: str
) -> None:
    document = documents[name]
    printed = run_k3diff("schema", document["schema"].split("/")[0].split(".")[1], cwd=tmp_path)
    assert printed.exit_code == 0, printed.stderr
    validator = jsonschema.Draft202012Validator(json.loads(printed.stdout))
    assert validator.is_valid(document)
    tried, passed = 0, []
    for path, bound, value in _edits(validator, document):
        was = _set(document, path, value)
        refused = not validator.is_valid(document)
        if refused:
            (tmp_path / "doc.json").write_text(json.dumps(document))
            tried += 1
            wrong = _refused(tmp_path, "doc.json", path, bound, value)
            if wrong is not None:
                passed.append(wrong)
        _set(document, path, was)
    assert tried > 0
    assert passed == [], "\n".join(passed)


def test_every_bound_the_samples_schema_states_report_holds(
    documents: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    """A samples log is validated line by line: each kind of line (the header, a sample) edited
    past each bound its schema states, in a log otherwise as written."""
    lines = documents["samples.jsonl"]["lines"]
    printed = run_k3diff("schema", "samples", cwd=tmp_path)
    validator = jsonschema.Draft202012Validator(json.loads(printed.stdout))
    run = tmp_path / "run"
    run.mkdir()
    tried, passed = 0, []
    for number in (0, 1):  # the header, the first sample
        line = lines[number]
        assert validator.is_valid(line)
        for path, bound, value in _edits(validator, line):
            was = _set(line, path, value)
            if not validator.is_valid(line):
                text = "".join(json.dumps(each) + "\n" for each in lines)
                (run / "samples.jsonl").write_text(text)
                tried += 1
                wrong = _refused(tmp_path, "run/samples.jsonl", path, bound, value)
                if wrong is not None:
                    passed.append(f"line {number + 1}: {wrong}")
            _set(line, path, was)
    assert tried > 0
    assert passed == [], "\n".join(passed)


SCHEMA_MAPS = frozenset({"properties", "$defs", "patternProperties"})
"""Keywords whose value maps names to subschemas."""
SCHEMA_ONE = frozenset({"items", "additionalProperties", "if", "then", "else", "not"})
"""Keywords whose value is a subschema."""
SCHEMA_LISTS = frozenset({"prefixItems", "anyOf", "oneOf", "allOf"})
"""Keywords whose value lists subschemas."""
FOLLOWED = SCHEMA_MAPS | SCHEMA_ONE | SCHEMA_LISTS | {"$ref"}
"""What the walk above reaches a field's subschemas through: the validator's own errors,
which follow every one of these (`_subschemas`)."""
NOT_WALKED = frozenset({"minItems", "maxItems", "minLength", "maxLength"})
"""Bounds the walk does not edit past (a list's length needs a list edit). `pattern` and a
string's `const` are walked since audit73 (review72e: a `sha256` of no hex, a wheelset pair's
`wheels.schema` of another name, were read)."""
DATA = frozenset(
    {"type", "description", "title", "$schema", "$id", "required", "dependentRequired", "format"}
)
"""Keywords that state no subschema and no bound a value could pass."""


def _keywords(schema: Any) -> Iterator[str]:
    """Every keyword of `schema` and of each subschema in it."""
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        yield key
        if key in SCHEMA_MAPS:
            for sub in value.values():
                yield from _keywords(sub)
        elif key in SCHEMA_ONE:
            yield from _keywords(value)
        elif key in SCHEMA_LISTS:
            for sub in value:
                yield from _keywords(sub)


def test_every_schema_keyword_is_one_the_walk_knows() -> None:
    """A schema that states a field's bound through a construct the walk does not follow, or a
    bound it does not try, would leave that bound unheld unseen: every keyword the schemas use
    is one of those listed here (the walk's bounds, the constructs the validator follows, the
    bounds not walked, data)."""
    schemas = Path(k3diff.documents.__file__).parent / "schemas"
    found = {
        key
        for path in sorted(schemas.glob("*.json"))
        for key in _keywords(json.loads(path.read_text()))
    }
    assert found, schemas
    unknown = found - set(BOUNDS) - FOLLOWED - NOT_WALKED - DATA
    assert unknown == set(), f"schema keywords the walk does not know: {sorted(unknown)}"
