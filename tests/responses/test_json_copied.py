"""The JSON report's records are copied from their spool as written (`output.Prewritten`), not
decoded, escaped and encoded again: what reaches a file, a pipe, a test's text stream and a
GitHub Actions log is still the same safe document, hostile keys and paths included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff, run_k3diff_process

from k3diff import escape

from .fixtures import completion, write_jsonl

HOSTILE = [
    "esc \x1b[2K\x1b[Gok",
    "cr \rover",
    "bidi \u202egnp.exe",
    "c1 \x9b31m",
    "del \x7f",
    "nul \x00",
    "zero\u200bwidth",
    "line\u2028sep",
    "lone \ud800 surrogate",
    "runner ##[error]forged",
    "::warning::forged",
    "\u00e9t\u00e9 \U0001f600",
]
"""Record ids (the report's `key`) that would drive a terminal or a CI runner if written raw."""


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    base = [completion(rid, f"text {n}", token_ids=[n, 2, 3]) for n, rid in enumerate(HOSTILE)]
    patch = [completion(rid, f"text {n}", token_ids=[n, 2, 3]) for n, rid in enumerate(HOSTILE)]
    patch[1] = completion(HOSTILE[1], "text changed \x1b[31m", token_ids=[1, 2, 4])
    patch[4] = completion(HOSTILE[4], "text 4", token_ids=[4, 2, 3], finish="length")
    # a path that needs escaping inside the document, for every record's location
    folder = tmp_path / "in ##[x] \u202e"
    folder.mkdir()
    return write_jsonl(folder / "base.jsonl", base), write_jsonl(folder / "patch.jsonl", patch)


def _safe(report: str) -> None:
    assert report.isascii()
    assert escape.terminal(report) == report
    assert all(c == "\n" or " " <= c < "\x7f" for c in report)


def test_json_report_alike_to_a_file_a_pipe_and_a_text_stream(tmp_path: Path) -> None:
    base, patch = _inputs(tmp_path)
    written = tmp_path / "report.json"
    to_file = run_k3diff_process("responses", base, patch, "--format", "json", "-o", written)
    to_pipe = run_k3diff_process("responses", base, patch, "--format", "json")
    in_process = run_k3diff("responses", base, patch, "--format", "json")
    assert to_file.exit_code == to_pipe.exit_code == in_process.exit_code == 1
    report = written.read_text(encoding="utf-8")
    assert to_pipe.stdout == in_process.stdout == report
    _safe(report)
    document = json.loads(report)
    assert [record["key"] for record in document["records"]] == HOSTILE
    statuses = [record["status"] for record in document["records"]]
    assert statuses.count("match") == len(HOSTILE) - 2
    assert document["records"][0]["base"]["location"] == f"{base}:1"


def test_json_report_under_github_actions_reads_as_no_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, patch = _inputs(tmp_path)
    plain = run_k3diff("responses", base, patch, "--format", "json")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    under_actions = run_k3diff("responses", base, patch, "--format", "json")
    assert under_actions.exit_code == plain.exit_code == 1
    assert "##[" in plain.stdout and "##[" not in under_actions.stdout
    assert not any(line.lstrip().startswith("::") for line in under_actions.stdout.splitlines())
    _safe(under_actions.stdout)
    # the same values: only how the runner's markers are written changed
    assert json.loads(under_actions.stdout) == json.loads(plain.stdout)


def test_a_prewritten_piece_is_still_checked_as_text_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last line of defence holds for bytes copied as they are: a block that would drive a
    terminal is escaped as `escape.terminal` escapes text, to a file and to stdout alike."""
    from k3diff import output

    blocks = [b'{"a": "x\x1b[2Ky"}', b"\r", b',\n    {"b": 1}']
    expected = "[" + escape.terminal(b"".join(blocks).decode("ascii")) + "]\n"
    assert "\x1b" not in expected and "\r" not in expected
    target = tmp_path / "r.json"
    output.emit_chunks(["[", output.Prewritten(lambda: blocks), "]\n"], target, "ok")
    assert target.read_text(encoding="utf-8") == expected
    output.emit_chunks(["[", output.Prewritten(lambda: blocks), "]\n"], None, "ok")
    assert capsys.readouterr().out == expected
