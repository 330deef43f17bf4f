"""A samples log line's HTTP `status` is what a status line's three digits can say, 100 to 999
(RFC 9110 defines 100-599; httpx hands on a server's 799, and `sample` logs it as answered):
a log edited to 0, -1 or 1000 is refused by every reader of the log, one line naming the file
and line (exit 2). Any integer was read before, and `report` passed the log, exit 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_support import run_k3diff
from triage.helpers import S, compare_texts, write_samples

from .support import read_samples, sample, write_prompts


def _log(tmp_path: Path, status: int) -> None:
    """A log of one answered sample and one that failed with `status`."""
    samples = [S("base", "k", "x"), S("base", "k", None, status=status, error=f"HTTP {status}")]
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    compare_texts(tmp_path, {"k": ("x", "x")})


@pytest.mark.parametrize("status", [0, -1, 99, 1000, 2**40])
def test_a_status_no_status_line_holds_is_refused_naming_the_line(
    tmp_path: Path, status: int
) -> None:
    _log(tmp_path, status)
    for command in (
        ["report", "run/samples.jsonl", "--out", "bundle"],
        ["triage", "cmp.json", "run/samples.jsonl"],
    ):
        result = run_k3diff(*command, cwd=tmp_path)
        assert result.exit_code == 2, result.stderr
        assert result.stderr == (
            "k3diff: error: run/samples.jsonl:3: 'status' is neither null nor an HTTP status "
            f"(100 to 999): {status}\n"
        )


@pytest.mark.parametrize("status", [100, 404, 503, 799, 999])
def test_a_status_a_server_can_answer_is_read(tmp_path: Path, status: int) -> None:
    _log(tmp_path, status)
    result = run_k3diff("report", "run/samples.jsonl", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr


def test_the_log_of_a_server_answering_799_is_read_back(fault_server: Any, tmp_path: Path) -> None:
    """What `sample` writes, its readers read: a server's status past RFC 9110's 599."""
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [{"key": "odd", "prompt": "o", "fault": {"status": 799, "times": -1}}],
    )
    made = sample(
        "--base", fault_server().url, "--prompts", prompts, "--repeats", "1", "--retries", "0",
        "--out", tmp_path / "out",
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    _, (logged,) = read_samples(tmp_path / "out")
    assert logged["status"] == 799 and logged["error"].startswith("HTTP 799")
    result = run_k3diff("report", "out/samples.jsonl", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr


def _answered_with(tmp_path: Path, status: int | None) -> None:
    """Base and patch answer `x` three times; the patch's last answer logged with `status`
    and no error, as no run of `sample` logs it (an answer is only ever taken from a 200)."""
    log = write_samples(
        tmp_path / "run" / "samples.jsonl",
        [S("base", "k", "x")] * 3 + [S("patch", "k", "x")] * 3,
    )
    lines = log.read_text().splitlines(keepends=True)
    edited = json.loads(lines[-1])
    assert (edited["side"], edited["status"], edited["error"]) == ("patch", 200, None)
    edited["status"] = status
    log.write_text("".join(lines[:-1]) + json.dumps(edited) + "\n")
    compare_texts(tmp_path, {"k": ("x", "x")})


@pytest.mark.parametrize("status", [503, 404, 204, None])
def test_an_answer_logged_with_a_status_other_than_200_is_refused(
    tmp_path: Path, status: int | None
) -> None:
    """review71e: a 503 line whose error was removed was read as the patch's answer, and
    `triage` passed the record on it (exit 0): `sample` logs a failure with its error always."""
    _answered_with(tmp_path, status)
    for command in (
        ["triage", "cmp.json", "run/samples.jsonl"],
        ["report", "run/samples.jsonl", "--out", "bundle"],
    ):
        result = run_k3diff(*command, cwd=tmp_path)
        assert result.exit_code == 2, result.stderr
        assert result.stderr == (
            f"k3diff: error: run/samples.jsonl:7: status {json.dumps(status)} with no 'error': "
            "sample logs an answer only from a 200, and every other status with its error\n"
        )


def test_an_answer_logged_with_200_is_read(tmp_path: Path) -> None:
    _answered_with(tmp_path, 200)
    assert run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path).exit_code == 0


@pytest.mark.parametrize("status", [503, 404, 204, None])
def test_the_schema_refuses_the_answer_the_readers_refuse(
    tmp_path: Path, status: int | None
) -> None:
    """`k3diff schema samples` states it too (readers72: it took any status from 100 to 999,
    or null, on a line without an error, so a pipeline validating by the schema took the
    edited line the readers refuse)."""
    _answered_with(tmp_path, status)
    printed = run_k3diff("schema", "samples", cwd=tmp_path)
    assert printed.exit_code == 0, printed.stderr
    validator = jsonschema.Draft202012Validator(json.loads(printed.stdout))
    *lines, edited = (tmp_path / "run" / "samples.jsonl").read_text().splitlines()
    assert all(validator.is_valid(json.loads(line)) for line in lines)
    assert not validator.is_valid(json.loads(edited))
    edited_200 = {**json.loads(edited), "status": 200}
    assert validator.is_valid(edited_200)
