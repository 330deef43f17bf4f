"""Findings of a new-user trial of `k3diff sample`: a server that ignores `stream: true`
stops the run at its first answer with one line naming the URL (exit 2) instead of failing each
sample in turn; the help says what proves a batch."""

from __future__ import annotations

from pathlib import Path

import scripted_server
from cli_support import run_k3diff


def test_a_json_answer_to_a_stream_request_stops_the_run(tmp_path: Path) -> None:
    server = scripted_server.start("patch", tmp_path / "server")
    try:
        prompts = tmp_path / "p.jsonl"
        prompts.write_text('{"key": "a", "prompt": "a"}\n')
        out = tmp_path / "out"
        args = ("--base", server.url, "--prompts", prompts, "--repeats", "2", "--out", out)
        shown = run_k3diff("sample", *args, "--stream", "--retries", "3")
    finally:
        scripted_server.stop(server.pid)
    assert shown.exit_code == 2, shown.stdout
    assert shown.stderr.splitlines() == [
        f"k3diff: error: {server.url}/v1/completions: answered a stream request (stream: true) "
        "with one whole JSON completion as application/json, not an event stream: the server "
        "does not stream (sample it without --stream, in another --out); stopped, 0 samples "
        f"kept in {out}/samples.jsonl (--resume continues)"
    ]
    assert (out / "samples.jsonl").read_text().count("\n") == 1  # the header alone


def test_help_says_only_the_gauge_proves_a_batch() -> None:
    shown = run_k3diff("sample", "--help")
    text = " ".join(shown.stdout.split())
    assert "only that gauge proves a concurrent or loaded batch was exercised" in text
    assert "proves a concurrent batch was exercised; streams alone prove none" in text
