"""A restart is a finding about a log as a whole: no one line holds it, so its place is the log
itself, never `FILE:0` (found by the new-user trial, newuser80: a `transformers serve` started
twice into one log read `patch/serve.log:0: server started 2 times in one log` in the report,
`restart at patch/serve.log:0` in the bundle's next step, and `line=0` in CI annotations).

The JSON keeps line 0 (its documented whole-log place); only what a reader sees changes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

START = "INFO:     Application startup complete.\n"
SERVING = 'INFO:     127.0.0.1:40000 - "POST /v1/completions HTTP/1.1" 200 OK\n'


def _logs(tmp_path: Path) -> tuple[str, str]:
    """base.log started once, patch.log twice, named relative to `tmp_path`."""
    (tmp_path / "base.log").write_text(START + SERVING, encoding="utf-8")
    (tmp_path / "patch.log").write_text(START + SERVING + START + SERVING, encoding="utf-8")
    return "base.log", "patch.log"


def test_the_text_report_places_a_restart_on_the_whole_log(tmp_path: Path) -> None:
    base, patch = _logs(tmp_path)
    result = run_k3diff("logs", base, patch, cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    assert f"{patch}:0" not in result.stdout
    assert f"    {patch} (the whole log): server started 2 times in one log\n" in result.stdout


def test_markdown_and_ci_formats_name_no_line_zero(tmp_path: Path) -> None:
    base, patch = _logs(tmp_path)
    markdown = run_k3diff("logs", base, patch, "--format", "markdown", cwd=tmp_path)
    assert markdown.exit_code == 1, markdown.stdout
    assert f"{patch} (the whole log)" in markdown.stdout
    assert f"{patch}:0" not in markdown.stdout
    junit = run_k3diff("logs", base, patch, "--format", "junit", cwd=tmp_path)
    assert junit.exit_code == 1, junit.stdout
    assert ">restart: restart (error) on the patch side: server started" in junit.stdout
    assert "restart:0" not in junit.stdout


def test_a_github_annotation_of_a_restart_names_the_file_and_no_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    base, patch = _logs(tmp_path)
    result = run_k3diff("logs", base, patch, cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    said = result.stdout + result.stderr
    assert f"::error file={patch},title=restart::" in said
    assert "line=0" not in said


def test_the_json_keeps_the_whole_log_place(tmp_path: Path) -> None:
    base, patch = _logs(tmp_path)
    result = run_k3diff("logs", base, patch, "--format", "json", cwd=tmp_path)
    (restart,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "restart"]
    assert [(e["file"], e["line"]) for e in restart["examples"]] == [(patch, 0)]


def test_the_bundle_next_step_names_the_log_not_line_zero(tmp_path: Path) -> None:
    base, patch = _logs(tmp_path)
    written = run_k3diff("logs", base, patch, "--format", "json", "-o", "logs.json", cwd=tmp_path)
    assert written.exit_code == 1, written.stderr
    result = run_k3diff("report", "logs.json", base, patch, "--out", "b", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    report = (tmp_path / "b" / "REPORT.md").read_text(encoding="utf-8")
    assert "the first line of each: restart at patch.log (the whole log)" in report
    assert "patch.log:0" not in report
