"""SSE transcripts pair only --by-order (their chunks carry no key and no prompt), so the advice
for samples that cannot join a by-order comparison must not be "re-run with --key key", which
fails on them (`base.sse:1: no field 'key' (--key)`): it says to capture each answer beside its
request instead."""

from __future__ import annotations

from pathlib import Path

from cli_support import run_k3diff
from responses.fixtures import completion_chunks, sse_transcript

from .helpers import S, write_samples


def test_sse_by_order_comparison_says_capture_with_requests(tmp_path: Path) -> None:
    for side in ("base", "patch"):
        (tmp_path / f"{side}.sse").write_text(sse_transcript([completion_chunks("c", ["a"])]))
    made = run_k3diff(
        "responses", "base.sse", "patch.sse", "--by-order", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    write_samples(tmp_path / "run" / "samples.jsonl", [S("base", "q", "a"), S("patch", "q", "a")])

    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)

    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert "by-order keys cannot join samples" in line and "re-run" not in line, line
    assert "SSE transcripts carry no key or prompt" in line, line
    assert '{"key", "request", "response"}' in line, line
