"""A server that stops answering mid-run stops the run (exit 2, one line naming the URL, the
samples kept): `DEAD_AFTER` requests in a row to one URL that got no answer, each after its own
retries (connection refused, reset or closed without an answer, timed out, or a gateway's 502 or
504). Before, every later sample was retried and failed in turn: a 400-sample run against a
killed server went on for half an hour, printing nothing. A server that answers in between
(intermittently) is not dead, and an HTTP error answer such as a 500 is the server's answer."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from k3diff.sample.alive import DEAD_AFTER
from k3diff.sample.log import SampleLog

from .support import read_samples, resumes, sample, write_prompts


def _wait_refused(url: str) -> None:
    """Until a connection to `url` is refused (the killed server's socket closed)."""
    where = urlsplit(url)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection((where.hostname, where.port), timeout=1).close()
        except OSError:
            return
        time.sleep(0.02)
    raise AssertionError(f"{url} still accepts connections")


def test_a_server_killed_mid_run_stops_it_with_the_samples_kept(
    fault_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, patch = fault_server(), fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": f"k{i}", "prompt": f"p{i}"} for i in range(2)]
    )
    out = tmp_path / "out"
    writes: list[int] = []
    real = SampleLog._write

    def kill_the_patch_after_four(log: SampleLog, data: bytes) -> None:
        real(log, data)
        writes.append(1)
        if len(writes) == 4:  # the header and three samples
            os.kill(patch.pid, signal.SIGKILL)
            _wait_refused(patch.url)

    monkeypatch.setattr(SampleLog, "_write", kill_the_patch_after_four)
    started = time.monotonic()
    args = (
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "200",
        "--retries", "1", "--out", out,
    )  # fmt: skip
    result = sample(*args)
    assert result.exit_code == 2, result.stdout
    assert time.monotonic() - started < 60
    _, lines = read_samples(out)
    [line] = result.stderr.splitlines()
    assert line.startswith(f"k3diff: error: {patch.url}/v1/completions: {DEAD_AFTER} requests ")
    assert "in a row got no answer" in line and "connection error" in line
    assert line.endswith(
        f"; stopped, {len(lines)} samples kept in {out}/samples.jsonl {resumes(*args)}"
    )
    failed = [s for s in lines if s["error"] is not None]
    # The Kth failure stops the run before it is logged: --resume sends that request again.
    assert len(failed) == DEAD_AFTER - 1
    assert all(s["side"] == "patch" and s["attempts"] == 2 for s in failed)


def test_a_server_that_answers_intermittently_is_sampled_to_the_end(
    fault_server: Any, tmp_path: Path
) -> None:
    """Three requests of every four reset, the fourth answered: never DEAD_AFTER in a row, so
    the run takes every sample (the resets are failed samples: exit 1)."""
    assert DEAD_AFTER > 3
    server = fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": "k", "prompt": "p", "fault": {"reset": [1, 1, 1, 0]}}]
    )
    out = tmp_path / "out"
    result = sample(
        "--base", server.url, "--prompts", prompts, "--repeats", "16", "--retries", "0",
        "--out", out,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    _, lines = read_samples(out)
    assert len(lines) == 16
    assert sum(s["error"] is not None for s in lines) == 12


def test_requests_that_time_out_in_a_row_stop_the_run(fault_server: Any, tmp_path: Path) -> None:
    server = fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": "k", "prompt": "p", "fault": {"delay": 3}}]
    )
    out = tmp_path / "out"
    result = sample(
        "--base", server.url, "--prompts", prompts, "--repeats", "50", "--retries", "0",
        "--timeout", "0.2", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 2, result.stdout
    [line] = result.stderr.splitlines()
    assert f"{DEAD_AFTER} requests in a row got no answer" in line and "timed out" in line
    assert len(read_samples(out)[1]) == DEAD_AFTER - 1


@pytest.mark.parametrize(
    ("status", "stops"), [(500, False), (503, False), (502, True), (504, True)]
)
def test_error_answers_stop_only_when_a_gateway_got_no_answer(
    fault_server: Any, tmp_path: Path, status: int, stops: bool
) -> None:
    """A 500 or 503 is the server's own answer (a prompt it fails on is a finding, not a dead
    server); a 502 or 504 is a gateway saying the server behind it gave none."""
    server = fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [{"key": "k", "prompt": "p", "fault": {"status": status, "times": -1}}],
    )
    out = tmp_path / "out"
    result = sample(
        "--base", server.url, "--prompts", prompts, "--repeats", "8", "--retries", "0",
        "--out", out,
    )  # fmt: skip
    _, lines = read_samples(out)
    if stops:
        assert result.exit_code == 2, result.stdout
        assert f"got no answer (the last: HTTP {status}" in result.stderr
        assert len(lines) == DEAD_AFTER - 1
    else:
        assert result.exit_code == 1, result.stderr
        assert len(lines) == 8
