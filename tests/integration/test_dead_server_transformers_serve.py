"""A real server killed mid-run stops `k3diff sample` (k3diff.sample.alive): exit 2, one line
naming the URL and the samples the log keeps, instead of every later sample retried and failed.

The test starts its own `transformers serve` (the suite's weights, copied), samples it with the
real CLI in a subprocess, kills the server by pid once a few samples are in the log, and reads
the log back.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from k3diff.sample.alive import DEAD_AFTER

from .serve import InferenceServer, start_server, stop_server

pytestmark = pytest.mark.xdist_group("inference_server")


def test_a_server_killed_mid_run_stops_the_run_with_the_samples_kept(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    own = start_server(tmp_path / "doomed", weights_from=Path(inference_server.model))
    try:
        prompts = tmp_path / "prompts.jsonl"
        prompts.write_text(json.dumps({"key": "fox", "prompt": "the quick brown fox"}) + "\n")
        out = tmp_path / "out"
        log = out / "samples.jsonl"
        args = [
            "sample", "--base", own.base_url, "--prompts", str(prompts), "--repeats", "200",
            "--param", "max_tokens=4", "--retries", "1", "--out", str(out),
        ]  # fmt: skip
        proc = subprocess.Popen(
            [sys.executable, "-m", "k3diff", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and proc.poll() is None:
                if log.exists() and log.read_bytes().count(b"\n") >= 4:  # header + 3 samples
                    break
                time.sleep(0.05)
            assert proc.poll() is None, proc.communicate()
            os.kill(own.pid, signal.SIGKILL)
            stop_server(own.pid)  # reaps it
            _, stderr = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    finally:
        stop_server(own.pid)
    assert proc.returncode == 2, stderr
    *lines, stop = [json.loads(line) for line in log.read_text().splitlines()][1:]
    assert (stop["reason"], stop["resumable"]) == ("no-answer", True)  # the log's stop line
    [said] = stderr.splitlines()
    assert said.startswith(f"k3diff: error: {own.base_url}/v1/completions: {DEAD_AFTER} requests")
    assert "in a row got no answer" in said
    assert f"; stopped, {len(lines)} samples kept in {log} (--resume continues: " in said
    assert said.endswith(" --resume)"), said  # the run's own command (more80)
    answered = [s for s in lines if s["error"] is None]
    assert len(answered) >= 3
    assert len(lines) - len(answered) <= DEAD_AFTER - 1  # at most the failures before the stop
