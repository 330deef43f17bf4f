"""Inputs `k3diff report` refuses: exit 2, one line naming the file, no bundle written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from .helpers import wheels_json


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            {"schema": "k3diff.nonsense/1"},
            "doc.json: unknown schema 'k3diff.nonsense/1' (k3diff reads k3diff.wheels/1, "
            "k3diff.wheelset/1, k3diff.responses/1, k3diff.samples/1, k3diff.triage/1, "
            "k3diff.audit/2, k3diff.logs/1, k3diff.telemetry/1)",
        ),
        (
            {"schema": "k3diff.triage/2"},
            "doc.json: schema k3diff.triage/2: version 2 is not readable by this k3diff (it "
            "reads k3diff.triage/1)",
        ),
        (
            {"schema": "k3diff.sample/1", "records": []},
            "doc.json: schema k3diff.sample/1 is not read back: it is `k3diff sample`'s "
            "end-of-run summary; give its samples.jsonl log",
        ),
        ({"records": []}, "doc.json: no 'schema' key: not a document a k3diff command wrote"),
        (
            {"schema": "k3diff.wheels/1"},
            "doc.json: k3diff.wheels/1 document without base, patch, summary, entries, verdict",
        ),
        ([1, 2], "doc.json: not a k3diff document (a JSON list)"),
    ],
)
def test_unusable_documents_exit_2_naming_the_file(
    tmp_path: Path, content: object, message: str
) -> None:
    (tmp_path / "doc.json").write_text(json.dumps(content))
    result = run_k3diff("report", "doc.json", "--out", "bundle", cwd=tmp_path)
    assert (result.exit_code, result.stderr) == (2, f"k3diff: error: {message}\n")
    assert not (tmp_path / "bundle").exists()


def test_a_broken_samples_log_names_its_line(tmp_path: Path) -> None:
    log = tmp_path / "samples.jsonl"
    log.write_text('{"schema": "k3diff.samples/1", "run": {}}\n{"side": "base"\n')
    result = run_k3diff("report", "samples.jsonl", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == "k3diff: error: samples.jsonl:2: not JSON (Expecting ',' delimiter)\n"


def test_a_bad_input_among_good_ones_writes_nothing(tmp_path: Path) -> None:
    wheels = wheels_json(tmp_path)
    result = run_k3diff("report", wheels, "missing.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == "k3diff: error: missing.json: no such file\n"
    assert not (tmp_path / "bundle").exists()


def test_the_same_document_twice_is_refused(tmp_path: Path) -> None:
    wheels = wheels_json(tmp_path)
    (tmp_path / "copy.json").write_bytes((tmp_path / wheels).read_bytes())
    result = run_k3diff("report", wheels, "copy.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2
    assert "copy.json: the same document as wheels.json" in result.stderr


def test_out_dash_is_refused_not_a_directory_named_dash(tmp_path: Path) -> None:
    # Found by the new-user trial: `--out -` made a bundle directory named "-"; the bundle is
    # three files, not a stream, so `-` is refused as `audit --write-manifest -` is.
    wheels = wheels_json(tmp_path)
    result = run_k3diff("report", wheels, "--out", "-", cwd=tmp_path)
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("k3diff: error: --out -: ")
    assert not (tmp_path / "-").exists()
