"""The typed readers of `audit`, `responses`, `logs` and `telemetry` documents read what their
command wrote and refuse a malformed field with one line naming the file and the field; any
field of any document made the wrong type is refused or left unread, never a pass
(`test_readers.py` has the wheels, release-set, triage, sample and bundle readers)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bundle.helpers import seed, wheels_json
from cli_support import run_k3diff

from documents.readers_support import Edit, edited, refused, triage_json
from k3diff.documents import audit, logs, telemetry
from k3diff.responses import document as responses


def _audit_json(tmp_path: Path) -> str:
    wheels_json(tmp_path)
    (tmp_path / "SHA256SUMS").write_text(f"{'0' * 64}  pkg-1.0-py3-none-any.whl\n")
    result = run_k3diff(
        "audit", "base/pkg-1.0-py3-none-any.whl", "--manifest", "SHA256SUMS",
        "--format", "json", "-o", "audit.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    return "audit.json"


def test_the_audit_reader_reads_what_audit_wrote(tmp_path: Path) -> None:
    name = _audit_json(tmp_path)
    body = json.loads((tmp_path / name).read_text())
    view = audit.read(body, name)
    (artifact,) = view.artifacts
    assert (artifact.path, artifact.sha256, artifact.size) == tuple(
        body["artifacts"][0][k] for k in ("path", "sha256", "size")
    )
    written = body["findings"] + body["artifacts"][0]["findings"]
    assert [(f.code, f.severity) for f in view.all_findings()] == [
        (f["code"], f["severity"]) for f in written
    ]
    assert view.manifest is not None and view.manifest.mismatched == 1
    assert (view.ok, view.exit_code) == (False, 1)


AUDIT_DAMAGE: list[tuple[str, Edit, str]] = [
    (
        "an artifact's size a string",
        lambda d: d["artifacts"][0].__setitem__("size", "12"),
        "field 'artifacts[0].size' must be an integer",
    ),
    (
        "a finding without its code",
        lambda d: d["findings"][0].pop("code"),
        "field 'findings[0].code' is missing",
    ),
    (
        "the manifest's matched names a count",
        lambda d: d["manifest"].__setitem__("matched", 3),
        "field 'manifest.matched' must be a list of strings",
    ),
    (
        "the verdict's exit code a bool",
        lambda d: d["verdict"].__setitem__("exit_code", False),
        "field 'verdict.exit_code' must be an integer",
    ),
]


@pytest.mark.parametrize(
    ("edit", "message"), [d[1:] for d in AUDIT_DAMAGE], ids=[d[0] for d in AUDIT_DAMAGE]
)
def test_a_malformed_audit_field_is_refused_naming_it(
    tmp_path: Path, edit: Edit, message: str
) -> None:
    name = _audit_json(tmp_path)
    edited(tmp_path, name, edit)
    refused(tmp_path, name, message)


def test_the_responses_reader_reads_what_responses_wrote(tmp_path: Path) -> None:
    name = seed(tmp_path)[0]
    body = json.loads((tmp_path / name).read_text())
    view = responses.read(body, name)
    assert view.summary == body["summary"]
    assert (view.paired, view.differing, view.exact_match) == (8, 4, 4)
    assert [(r.key, r.status, r.similarity) for r in view.records] == [
        (r["key"], r["status"], r["similarity"]) for r in body["records"]
    ]
    offsets = [(r["divergence"] or {}).get("char_offset") for r in body["records"]]
    assert [r.char_offset for r in view.records] == offsets and offsets.count(0) == 4
    assert (view.ok, view.exit_code) == (False, 1)


RESPONSES_DAMAGE: list[tuple[str, Edit, str]] = [
    (
        "paired a string",
        lambda d: d["summary"].__setitem__("paired", "8"),
        "field 'summary.paired' must be an integer",
    ),
    (
        "differing missing",
        lambda d: d["summary"].pop("differing"),
        "field 'summary.differing' is missing",
    ),
    (
        "a divergence a list",
        lambda d: d["records"][0].__setitem__("divergence", [3]),
        "field 'records[0].divergence' must be an object or null",
    ),
    (
        "a record without its key",
        lambda d: d["records"][0].pop("key"),
        "field 'records[0].key' is missing",
    ),
]


@pytest.mark.parametrize(
    ("edit", "message"), [d[1:] for d in RESPONSES_DAMAGE], ids=[d[0] for d in RESPONSES_DAMAGE]
)
def test_a_malformed_responses_field_is_refused_naming_it(
    tmp_path: Path, edit: Edit, message: str
) -> None:
    name = seed(tmp_path)[0]
    edited(tmp_path, name, edit)
    refused(tmp_path, name, message)


PATCH_LOG = """\
INFO:     Application startup complete.
ERROR 05-12 10:02:05 [core.py:1] EngineCore encountered a fatal error.
ERROR 05-12 10:02:05 [core.py:1] RuntimeError: CUDA error: an illegal memory access was encountered
"""


def _logs_json(tmp_path: Path) -> str:
    (tmp_path / "b.log").write_text("INFO:     Application startup complete.\n")
    (tmp_path / "p.log").write_text(PATCH_LOG)
    result = run_k3diff(
        "logs", "b.log", "p.log", "--format", "json", "-o", "logs.json", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr
    return "logs.json"


def test_the_logs_reader_reads_what_logs_wrote(tmp_path: Path) -> None:
    name = _logs_json(tmp_path)
    body = json.loads((tmp_path / name).read_text())
    view = logs.read(body, name)
    assert [(f.side, f.severity, f.count, f.new) for f in view.findings] == [
        (f["side"], f["severity"], f["count"], f.get("new")) for f in body["findings"]
    ]
    assert any(f.new for f in view.findings)
    assert view.lines == {"base": 1, "patch": 3} and view.strict is False
    assert (view.ok, view.exit_code) == (False, 1)


LOGS_DAMAGE: list[tuple[str, Edit, str]] = [
    (
        "a finding's count a string",
        lambda d: d["findings"][0].__setitem__("count", "2"),
        "field 'findings[0].count' must be an integer",
    ),
    (
        "new a string",
        lambda d: d["findings"][0].__setitem__("new", "yes"),
        "field 'findings[0].new' must be true, false or null",
    ),
    (
        "strict missing",
        lambda d: d["verdict"].pop("strict"),
        "field 'verdict.strict' is missing",
    ),
    (
        "a side's lines a float",
        lambda d: d["patch"].__setitem__("lines", 3.5),
        "field 'patch.lines' must be an integer",
    ),
]


@pytest.mark.parametrize(
    ("edit", "message"), [d[1:] for d in LOGS_DAMAGE], ids=[d[0] for d in LOGS_DAMAGE]
)
def test_a_malformed_logs_field_is_refused_naming_it(
    tmp_path: Path, edit: Edit, message: str
) -> None:
    name = _logs_json(tmp_path)
    edited(tmp_path, name, edit)
    refused(tmp_path, name, message)


def _telemetry_json(tmp_path: Path) -> str:
    log = seed(tmp_path)[1]
    result = run_k3diff(
        "telemetry", log, "--expect", "speculation", "--format", "json", "-o", "tel.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    return "tel.json"


def test_the_telemetry_reader_reads_what_telemetry_wrote(tmp_path: Path) -> None:
    name = _telemetry_json(tmp_path)
    body = json.loads((tmp_path / name).read_text())
    view = telemetry.read(body, name)
    assert view.expected == ("speculation",)
    assert [m.samples for m in view.modes] == [m["samples"] for m in body["modes"]]
    assert [(g.expectation, g.side) for g in view.not_exercised] == [
        (g["expectation"], g["side"]) for g in body["not_exercised"]
    ]
    assert view.not_exercised and (view.ok, view.exit_code) == (False, 1)


TELEMETRY_DAMAGE: list[tuple[str, Edit, str]] = [
    (
        "a mode's samples a string",
        lambda d: d["modes"][0].__setitem__("samples", "24"),
        "field 'modes[0].samples' must be an integer",
    ),
    (
        "a gap without its side",
        lambda d: d["not_exercised"][0].pop("side"),
        "field 'not_exercised[0].side' is missing",
    ),
    (
        "a gap of an axis telemetry does not know",
        lambda d: d["not_exercised"][0].__setitem__("expectation", "warp-speed"),
        "field 'not_exercised[0].expectation' must be one of \"cache-reuse\", "
        '"draft-lengths", "speculation", not "warp-speed"',
    ),
    (
        "expected an object",
        lambda d: d.__setitem__("expected", {"speculation": True}),
        "field 'expected' must be a list of strings",
    ),
]


@pytest.mark.parametrize(
    ("edit", "message"), [d[1:] for d in TELEMETRY_DAMAGE], ids=[d[0] for d in TELEMETRY_DAMAGE]
)
def test_a_malformed_telemetry_field_is_refused_naming_it(
    tmp_path: Path, edit: Edit, message: str
) -> None:
    name = _telemetry_json(tmp_path)
    edited(tmp_path, name, edit)
    refused(tmp_path, name, message)


def _leaves(value: Any, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every path to a field of `value` (in the first item of each list)."""
    if isinstance(value, dict):
        return [path] + [p for k, v in value.items() for p in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [path] + [p for i, v in enumerate(value[:1]) for p in _leaves(v, (*path, i))]
    return [path]


def _replace(document: Any, path: tuple[str | int, ...], value: object) -> None:
    for step in path[:-1]:
        document = document[step]
    document[path[-1]] = value


def _failing_wheels_json(tmp_path: Path) -> str:
    return wheels_json(tmp_path, native_changed=True)


def _responses_json(tmp_path: Path) -> str:
    return seed(tmp_path)[0]


@pytest.mark.parametrize(
    "make", [_failing_wheels_json, triage_json, _responses_json, _audit_json, _logs_json]
)
def test_any_field_of_the_wrong_type_is_refused_or_left_unread(
    tmp_path: Path, make: Callable[[Path], str]
) -> None:
    """Each field in turn made a string (or, where it is one, a list): `report` exits 2 with one
    line, or, for a field the bundle does not read, exactly as on the document as written;
    never a traceback, and never a pass the written document would not get."""
    name = make(tmp_path)
    written = (tmp_path / name).read_text()
    expected = run_k3diff("report", name, "--out", "bundle", cwd=tmp_path).exit_code
    for path in _leaves(json.loads(written))[1:]:
        document = json.loads(written)
        value = document
        for step in path:
            value = value[step]
        _replace(document, path, [] if isinstance(value, str) else "x")
        (tmp_path / name).write_text(json.dumps(document))
        result = run_k3diff("report", name, "--out", "bundle", cwd=tmp_path)
        assert result.exit_code in (2, expected), (path, result.stderr)
        if result.exit_code == 2:
            assert len(result.stderr.splitlines()) == 1, (path, result.stderr)
            assert result.stderr.startswith(f"k3diff: error: {name}: "), (path, result.stderr)
