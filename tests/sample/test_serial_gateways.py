"""A server that generates one request at a time is never certified as co-batching by what its
streams look like at the client. The engine of tests/sample/gateway_server.py holds one lock for
each whole generation (its log shows no two overlapping); its front end reshapes the streams:

(a) `pace`, a token-rate-limited gateway that buffers each answer and trickles it out: the next
    request is generated while the previous answer is still being paced out;
(b) `hold`, an HTTP layer that keeps a finished stream open while the next one streams: with the
    last tokens held back and sent at the end, or with only the end delayed;
(c) `burst`, a proxy that flushes every stream's buffered chunks together every tick.

Under the old rule (streams that each received two token chunks while the other was open proved
overlap) (a), (b) with held tokens and (c) read as exercised, 4 (a, b) or 2-3 (c) requests
"proven" in flight together, and triage passed the record (`match`, exit 0): a serial server
certified as co-batching. Nothing in such a stream tells generation from delivery, so
interleaved streams now prove nothing: `unproven`, cleared by nothing, exit 1. Streams that
never interleave ((b) with only the end delayed) still show the batch was not exercised."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from .support import read_samples, report_exit, sample, triage_samples, write_prompts

FRONTS = {
    "pace": ("--front", "pace"),
    "hold-tokens": ("--front", "hold", "--held-tokens", "2"),
    "burst": ("--front", "burst", "--tokens", "10", "--token-s", "0.04", "--tick-s", "0.3"),
}
"""The front ends that interleave a serial engine's streams at the client."""


def _concurrent(url: str, tmp_path: Path) -> tuple[Path, Any]:
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}])
    out = tmp_path / "out"
    result = sample(
        "--base", url, "--patch", url, "--prompts", prompts, "--repeats", "4",
        "--mode", "concurrent", "--concurrency", "4", "--control", "off", "--stream",
        "--out", out, "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out, json.loads(result.stdout)


def _one_at_a_time(generations: list[tuple[float, float]]) -> bool:
    """No generation started before the previous one ended."""
    return all(end <= start for (_, end), (start, _) in pairwise(generations))


def _answer_text(out: Path) -> str:
    _, lines = read_samples(out)
    return str(lines[0]["text"])


@pytest.mark.parametrize("front", FRONTS)
def test_a_serial_engine_whose_streams_a_front_end_interleaves_is_never_exercised(
    gateway_server: Any, tmp_path: Path, front: str
) -> None:
    server = gateway_server(*FRONTS[front])
    out, summary = _concurrent(server.url, tmp_path)
    generations = server.generations()
    assert len(generations) == 8 and _one_at_a_time(generations), generations
    _, lines = read_samples(out)
    # The client saw streams interleave: what the old rule took for the server's overlap ...
    interleaved = [line for line in lines if line["streams_overlapped"]]
    assert interleaved, [line["streams_overlapped"] for line in lines]
    assert {line["overlap_proof"] for line in interleaved} == {"unproven"}
    # ... proves nothing now: no batch exercised, and at least one unproven.
    records = summary["records"]
    for record in records:
        assert record["batches"] == 1, record
        assert record["batches_unproven"] + record["batches_one_at_a_time"] == 1, record
        assert record["in_flight"] in (None, 1), record
    assert sum(record["batches_unproven"] for record in records) >= 1
    text = _answer_text(out)
    code, document = triage_samples(tmp_path, out, texts=(text, text))
    verdict = document["records"][0]
    assert (code, verdict["category"]) == (1, "inconclusive"), verdict["reason"]
    assert {"unproven", "not-exercised"} & set(verdict["flags"])
    assert report_exit(tmp_path, out) == 1
    if "unproven" in verdict["flags"]:  # its why and fix said once, the headlines refer to it
        report = (tmp_path / "bundle" / "REPORT.md").read_text()
        # The fix, said once: add the gauge's URL, or (telem68: the server was asked and has
        # none) sample one that exports it.
        assert report.count("--metrics-url") + report.count("exports the gauge") == 1, report
        assert "unproven (no running-requests gauge reading proves their batches: see " in report


def test_a_stream_held_open_after_its_last_token_is_not_exercised(
    gateway_server: Any, tmp_path: Path
) -> None:
    """(b) with only the end delayed: the held stream receives no token while the next one is
    open (its finishing chunk carries none), so no two streams interleave: not exercised, as
    under the old rule."""
    server = gateway_server("--front", "hold", "--held-tokens", "0")
    out, summary = _concurrent(server.url, tmp_path)
    assert _one_at_a_time(server.generations())
    _, lines = read_samples(out)
    assert {line["streams_overlapped"] for line in lines} == {0}
    assert {line["overlap_proof"] for line in lines} == {"token-windows"}
    # The client saw the windows open together all the same.
    assert max(line["in_flight"] for line in lines) >= 2
    records = summary["records"]
    assert {(r["batches_one_at_a_time"], r["batches_by_token_windows"]) for r in records} == {
        (1, 1)
    }
    text = _answer_text(out)
    code, document = triage_samples(tmp_path, out, texts=(text, text))
    verdict = document["records"][0]
    assert (code, verdict["category"]) == (1, "inconclusive")
    assert "not-exercised: they were answered one at a time" in verdict["reason"]
