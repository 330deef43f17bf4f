"""Findings of a new-user trial of `k3diff sample`: a server that ignores `stream: true`
fails each sample once with a precise error named by the summary; the help says what proves a
batch."""

from __future__ import annotations

import json
from pathlib import Path

import scripted_server
from cli_support import run_k3diff


def test_a_json_answer_to_a_stream_request_fails_without_retries(tmp_path: Path) -> None:
    server = scripted_server.start("patch", tmp_path / "server")
    try:
        prompts = tmp_path / "p.jsonl"
        prompts.write_text('{"key": "a", "prompt": "a"}\n')
        out = tmp_path / "out"
        args = ("--base", server.url, "--prompts", prompts, "--repeats", "2", "--out", out)
        shown = run_k3diff("sample", *args, "--stream", "--retries", "3")
    finally:
        scripted_server.stop(server.pid)
    assert shown.exit_code == 1, shown.stderr
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    samples = [line for line in lines if "error" in line]
    assert len(samples) == 2
    for sample in samples:
        assert sample["attempts"] == 1  # deterministic: not retried
        assert sample["error"] == (
            f"asked for a stream (stream: true); the server at {server.url}/v1/completions "
            "answered application/json: it does not stream (sample without --stream)"
        )
    assert "all 2 failed (most common error, 2 of them: asked for a stream" in shown.stdout


def test_help_says_only_the_gauge_proves_a_batch() -> None:
    shown = run_k3diff("sample", "--help")
    text = " ".join(shown.stdout.split())
    assert "only that gauge proves a concurrent or loaded batch was exercised" in text
    assert "proves a concurrent batch was exercised; streams alone prove none" in text
