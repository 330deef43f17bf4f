"""Every JSON document k3diff writes validates against its schema (`k3diff schema NAME`,
k3diff/documents/schemas/NAME.json), and a field a writer adds without its schema fails here:
the objects a writer owns are closed (`additionalProperties: false`).

The documents come from the real commands: every JSON golden, the example (`make demo`: wheels,
responses, samples.jsonl, triage, audit, logs, telemetry and the bundle's summary.json), and a
release set, a triage plan and `sample`'s end-of-run summary run here.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import demo
import jsonschema
import pytest
import scripted_server
from bundle.helpers import wheels_json
from cli_support import GOLDEN_DIR, ROOT, run_k3diff
from wheels.wheelset_support import release_sets

from k3diff.documents.catalog import NAMES, load_schema, schema_id
from k3diff.ids import DocumentId
from k3diff.sample.lines import SampleLine

SCHEMAS = ROOT / "k3diff/documents/schemas"


def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(load_schema(name))


def _name_of(document: dict[str, Any]) -> str:
    return DocumentId(document["schema"]).schema_name


def _problems(document: Any, name: str) -> list[str]:
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message[:300]}"
        for error in _validator(name).iter_errors(document)
    ]


def _assert_valid(document: dict[str, Any], where: str) -> None:
    problems = _problems(document, _name_of(document))
    assert not problems, f"{where} does not match its schema: {problems[:5]}"


def _samples_lines(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text().splitlines():
        if line.strip():
            yield json.loads(line)


# ------------------------------------------------------------------- the schemas themselves


def test_one_schema_per_document_id_each_naming_its_id() -> None:
    assert sorted(p.stem for p in SCHEMAS.glob("*.json")) == sorted(NAMES)
    for name in NAMES:
        schema = load_schema(name)
        jsonschema.Draft202012Validator.check_schema(schema)
        consts = re.findall(r'"const": "(k3diff\.[a-z]+/\d+)"', json.dumps(schema))
        assert schema_id(name) in consts, name
        assert schema["title"] == schema_id(name)


def test_schemas_are_package_data() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "documents/schemas/*.json" in pyproject["tool"]["setuptools"]["package-data"]["k3diff"]


CONDITIONS = frozenset({"if", "then", "else"})
"""Keywords whose subschema states a condition on an object described elsewhere (a sample line
without an error has status 200), not an object of its own."""


def _objects(value: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(value, dict):
        if "properties" in value:
            yield where, value
        for key, item in value.items():
            if key not in CONDITIONS:
                yield from _objects(item, f"{where}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _objects(item, f"{where}/{index}")


@pytest.mark.parametrize("name", NAMES)
def test_every_object_a_schema_describes_is_closed(name: str) -> None:
    """An object whose fields are listed lists all of them: a writer's new field fails the
    documents' validation until the schema declares it."""
    open_objects = [
        where
        for where, schema in _objects(load_schema(name), name)
        if schema.get("additionalProperties") is not False
    ]
    assert not open_objects


def test_the_sample_line_schema_is_sampleline() -> None:
    """The samples.jsonl line schema lists SampleLine's fields; those without a default are
    required (DESIGN's list), the others optional."""
    line = load_schema("samples")["$defs"]["sample_line"]
    fields = dataclasses.fields(SampleLine)
    assert list(line["properties"]) == [f.name for f in fields]
    assert sorted(line["required"]) == sorted(
        f.name for f in fields if f.default is dataclasses.MISSING
    )


def test_schema_ids_are_defined_once() -> None:
    """No module but k3diff/ids.py spells a document id; writers and readers import it."""
    pattern = re.compile(r"^k3diff\.[a-z]+/\d+$")
    spelled = []
    for path in sorted((ROOT / "k3diff").rglob("*.py")):
        if path == ROOT / "k3diff" / "ids.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Constant):
                continue
            if isinstance(node.value, str) and pattern.match(node.value):
                spelled.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value}")
    assert not spelled


# ----------------------------------------------------------------------- `k3diff schema`


def test_schema_lists_the_documents_and_prints_each() -> None:
    listing = run_k3diff("schema")
    assert listing.exit_code == 0, listing.stderr
    rows = [line.split() for line in listing.stdout.splitlines()]
    assert rows == [[name, schema_id(name)] for name in NAMES]
    printed = run_k3diff("schema", "wheelset")
    assert printed.exit_code == 0, printed.stderr
    assert json.loads(printed.stdout) == load_schema("wheelset")
    assert "wheels" in json.loads(printed.stdout)["$defs"]  # self-contained


def test_schema_of_an_unknown_document_is_a_usage_error() -> None:
    result = run_k3diff("schema", "wheel")
    assert result.exit_code == 2
    assert "wheel" in result.stderr and "wheels" in result.stderr
    assert "Traceback" not in result.stderr


def test_schema_help_has_an_example() -> None:
    result = run_k3diff("schema", "--help")
    assert result.exit_code == 0
    assert "k3diff schema wheels" in result.stdout


# ------------------------------------------------------------------ the real documents


def _golden_documents() -> list[Path]:
    found = []
    for path in sorted(GOLDEN_DIR.rglob("*.stdout")):
        try:
            value = json.loads(path.read_text())
        except ValueError:
            continue
        if isinstance(value, dict) and "schema" in value:
            found.append(path)
    return found


def test_there_are_json_goldens() -> None:
    assert len(_golden_documents()) >= 3


@pytest.mark.parametrize("path", _golden_documents(), ids=lambda p: str(p.relative_to(GOLDEN_DIR)))
def test_every_json_golden_validates(path: Path) -> None:
    _assert_valid(json.loads(path.read_text()), str(path))


DEMO_DOCUMENTS = (
    "wheels.json", "cmp.json", "triage.json", "audit.json", "logs.json", "telemetry.json",
    "bundle/summary.json",
)  # fmt: skip


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example of `make demo`, run once: every command on the example engine."""
    directory = tmp_path_factory.mktemp("example") / "demo"
    assert demo.run(directory) == 0
    return directory


@pytest.mark.parametrize("name", DEMO_DOCUMENTS)
def test_the_examples_documents_validate(example: Path, name: str) -> None:
    _assert_valid(json.loads((example / name).read_text()), name)


def test_every_line_of_the_examples_samples_log_validates(example: Path) -> None:
    lines = list(_samples_lines(example / "run/samples.jsonl"))
    assert len(lines) > 1
    for number, line in enumerate(lines, start=1):
        assert not _problems(line, "samples"), f"samples.jsonl:{number}"


@pytest.fixture(scope="module")
def more_documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Documents the example does not write: a release set (with and without file hashes, a
    misnamed `.whl` in it), a changed native entry explained, a triage plan, `sample`'s
    summary, a resumed log."""
    tmp = tmp_path_factory.mktemp("more")
    documents: dict[str, dict[str, Any]] = {}
    release_sets(tmp, native_change=True)
    wheel = next((tmp / "patch").glob("*.whl"))
    (tmp / "patch/copy.whl").write_bytes(wheel.read_bytes())  # `misnamed`
    for label, extra in (("wheelset", ()), ("wheelset-no-hash", ("--no-file-hash",))):
        result = run_k3diff("wheels", "base", "patch", *extra, "--format", "json", cwd=tmp)
        assert result.exit_code == 1, result.stderr
        documents[label] = json.loads(result.stdout)
        assert documents[label]["misnamed"][0]["path"] == "patch/copy.whl"
    explained = tmp / "explained"
    explained.mkdir()
    wheels_json(explained, native_changed=True)
    result = run_k3diff(
        "wheels", "base/pkg-1.0-py3-none-any.whl", "patch/pkg-1.0-py3-none-any.whl",
        "--explain", "--format", "json", cwd=explained,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    documents["wheels-explained"] = json.loads(result.stdout)
    result = run_k3diff("triage", "--plan", "--bound", "0.2", "--alpha", "0.05", "--format", "json")
    assert result.exit_code == 0, result.stderr
    documents["triage-plan"] = json.loads(result.stdout)
    servers = [scripted_server.start(role, tmp / "servers") for role in scripted_server.ROLES]
    try:
        urls = {server.role: server.url for server in servers}
        scripted_server.capture(urls, tmp / "responses")
        common = (
            "sample", "--base", urls["base"], "--patch", urls["patch"],
            "--prompts", "responses/base.jsonl", "--out", "run", "--format", "json",
        )  # fmt: skip
        log = tmp / "run/samples.jsonl"
        for label, resume in (("sample", ()), ("sample-resumed", ("--resume",))):
            result = run_k3diff(*common, "--repeats", "2", *resume, cwd=tmp)
            assert result.exit_code == 0, result.stderr
            documents[label] = json.loads(result.stdout)
            kept = log.read_bytes().splitlines(keepends=True)[:-2]
            if not resume:  # as if killed two samples before the end
                log.write_bytes(b"".join(kept))
    finally:
        for server in servers:
            scripted_server.stop(server.pid)
    documents["samples-log"] = {"lines": list(_samples_lines(tmp / "run/samples.jsonl"))}
    return documents


@pytest.mark.parametrize(
    "label",
    ["wheelset", "wheelset-no-hash", "wheels-explained", "triage-plan", "sample", "sample-resumed"],
)
def test_more_documents_validate(more_documents: dict[str, dict[str, Any]], label: str) -> None:
    _assert_valid(more_documents[label], label)


def test_a_resumed_log_validates_line_by_line(more_documents: dict[str, dict[str, Any]]) -> None:
    lines = more_documents["samples-log"]["lines"]
    assert any("resumed" in line for line in lines)
    for number, line in enumerate(lines, start=1):
        assert not _problems(line, "samples"), f"samples.jsonl:{number}"


# ------------------------------------------------- a field added without its schema fails


def _first(document: dict[str, Any], *path: str | int) -> dict[str, Any]:
    value: Any = document
    for step in path:
        value = value[step]
    assert isinstance(value, dict)
    return value


ADDED_AT: dict[str, list[tuple[str | int, ...]]] = {
    "wheels.json": [(), ("base",), ("entries", 0), ("verdict",), ("summary", "python")],
    "cmp.json": [(), ("summary",), ("records", 0), ("verdict",)],
    "triage.json": [(), ("records", 0), ("records", 0, "modes", 0, "base"), ("verdict",)],
    "audit.json": [(), ("artifacts", 0), ("verdict",)],
    "logs.json": [(), ("base",), ("summary",), ("verdict",)],
    "telemetry.json": [(), ("modes", 0), ("verdict",)],
    "bundle/summary.json": [(), ("stages", 0), ("inputs", 0), ("verdict",)],
}


@pytest.mark.parametrize("name", DEMO_DOCUMENTS)
def test_a_field_the_schema_does_not_declare_fails(example: Path, name: str) -> None:
    document = json.loads((example / name).read_text())
    for path in ADDED_AT[name]:
        changed = copy.deepcopy(document)
        _first(changed, *path)["added_without_schema"] = 1
        problems = _problems(changed, _name_of(document))
        assert any("added_without_schema" in p for p in problems), (name, path)


def test_a_sample_line_field_the_schema_does_not_declare_fails(example: Path) -> None:
    header, line, *_ = _samples_lines(example / "run/samples.jsonl")
    for value in (header, header["run"], line):
        value["added_without_schema"] = 1
    assert _problems(header, "samples") and _problems(line, "samples")


def test_a_wheelset_pair_embeds_a_checked_wheels_document(
    more_documents: dict[str, dict[str, Any]],
) -> None:
    changed = copy.deepcopy(more_documents["wheelset"])
    changed["pairs"][0]["wheels"]["entries"][0]["added_without_schema"] = 1
    assert _problems(changed, "wheelset")


def test_a_header_written_before_run_ids_still_validates(example: Path) -> None:
    """Fields are only added within a version: a log from before run ids (and the fields added
    since DESIGN's list) is still a k3diff.samples/1 log."""
    header = next(_samples_lines(example / "run/samples.jsonl"))
    design = {"command", "servers", "modes", "k3diff_version", "started"}
    header["run"] = {key: value for key, value in header["run"].items() if key in design}
    assert not _problems(header, "samples")
    del header["run"]["started"]
    assert _problems(header, "samples")
