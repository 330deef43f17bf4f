"""Every way a `k3diff sample` run stops part-way (exit 2) says how many samples the log keeps,
counted from the log: a full disk after some samples, a cache flush that keeps failing, a server
that is no completion server or does not stream (tests/sample/test_unstreamed.py), Ctrl-C
(tests/sample/test_durability.py). A problem found before the log is opened touched no log and
says nothing of one."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from k3diff.errors import OutputError
from k3diff.sample.log import SampleLog, read_log

from .support import read_samples, sample, write_prompts


def _prompts(tmp_path: Path) -> Path:
    return write_prompts(
        tmp_path / "p.jsonl", [{"key": f"k{i}", "prompt": f"p{i}"} for i in (0, 1)]
    )


def _closed_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def test_a_disk_that_fills_mid_run_stops_it_with_the_samples_kept(
    fault_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = fault_server()
    out = tmp_path / "out"
    written: list[bytes] = []
    real = SampleLog._write

    def full_after_two(log: SampleLog, data: bytes) -> None:
        if len(written) == 2:
            raise OutputError(f"{log.path}: cannot append: No space left on device")
        written.append(data)
        real(log, data)

    monkeypatch.setattr(SampleLog, "_write", full_after_two)
    args = ["--base", server.url, "--prompts", _prompts(tmp_path), "--repeats", "3", "--out", out]
    result = sample(*args)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.splitlines() == [
        f"k3diff: error: {out}/samples.jsonl: cannot append: No space left on device; stopped, "
        f"2 samples kept in {out}/samples.jsonl (--resume continues)"
    ]
    assert len(read_samples(out)[1]) == 2
    monkeypatch.undo()
    resumed = sample(*args, "--resume", "--format", "json")
    assert resumed.exit_code == 0, resumed.stderr
    assert len(read_log(out / "samples.jsonl").samples) == 6


def test_a_flush_that_keeps_failing_stops_the_run_with_the_samples_kept(
    fault_server: Any, tmp_path: Path
) -> None:
    server = fault_server()
    out = tmp_path / "out"
    result = sample(
        "--base", server.url, "--prompts", _prompts(tmp_path), "--repeats", "1", "--out", out,
        "--flush-url", f"{_closed_port()}/flush", "--retries", "0",
    )  # fmt: skip
    assert result.exit_code == 2, result.stdout
    [line] = result.stderr.splitlines()
    assert "/flush: the cache flush failed: " in line
    assert line.endswith(f"; stopped, 0 samples kept in {out}/samples.jsonl (--resume continues)")


def test_a_problem_before_the_log_is_opened_says_nothing_of_one(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = sample(
        "--base", _closed_port(), "--prompts", _prompts(tmp_path), "--repeats", "1",
        "--retries", "0", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert "cannot reach the server" in line and "kept" not in line
    assert not (out / "samples.jsonl").exists()


def test_a_log_that_cannot_be_resumed_is_refused_as_before(
    fault_server: Any, tmp_path: Path
) -> None:
    server = fault_server()
    out = tmp_path / "out"
    args = ["--base", server.url, "--prompts", _prompts(tmp_path), "--out", out]
    assert sample(*args, "--repeats", "1").exit_code == 0
    refused = sample(*args, "--repeats", "2", "--resume")
    assert refused.exit_code == 2
    assert "cannot resume" in refused.stderr and "kept" not in refused.stderr


@pytest.mark.parametrize("status", [401, 404, 405])
def test_a_server_that_refuses_every_request_stops_the_run(
    fault_server: Any, tmp_path: Path, status: int
) -> None:
    """A mistyped path, an unknown model or a missing key gets the same 401/404/405 for every
    request: the run stops at the first (exit 2, one line naming the URL) with the samples
    already taken kept, instead of sending every planned request to it."""
    server = fault_server()
    out = tmp_path / "out"
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [
            {"key": "ok", "prompt": "o"},
            {"key": "gone", "prompt": "g", "fault": {"status": status, "times": -1}},
        ],
    )
    result = sample("--base", server.url, "--prompts", prompts, "--repeats", "3", "--out", out)
    assert result.exit_code == 2, result.stdout
    [line] = result.stderr.splitlines()
    assert f"/v1/completions: answered HTTP {status}: " in line
    assert "every request of this run would be refused" in line
    kept = len(read_samples(out)[1])
    assert line.endswith(
        f"; stopped, {kept} samples kept in {out}/samples.jsonl (--resume continues)"
    )
    refused = [r for r in server.requests() if r["status"] == status]
    assert len(refused) == 1  # not retried, not sent again


def test_a_request_the_server_finds_bad_fails_alone(fault_server: Any, tmp_path: Path) -> None:
    """A 400 (a prompt too long, a field out of range) is that request's failure: the run goes
    on and exits 1, the other prompts sampled."""
    server = fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [
            {"key": "ok", "prompt": "o"},
            {"key": "bad", "prompt": "b", "fault": {"status": 400, "times": -1}},
        ],
    )
    result = sample(
        "--base", server.url, "--prompts", prompts, "--repeats", "2", "--out", tmp_path / "o"
    )
    assert result.exit_code == 1, result.stderr
    assert len(read_samples(tmp_path / "o")[1]) == 4
