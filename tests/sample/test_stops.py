"""Every way a `k3diff sample` run stops part-way (exit 2) says how many samples the log keeps,
counted from the log: a full disk after some samples, a cache flush that keeps failing, a server
that is no completion server or does not stream (tests/sample/test_unstreamed.py), Ctrl-C
(tests/sample/test_durability.py), SIGTERM. A problem found before the log is opened touched no
log and says nothing of one; Ctrl-C or SIGTERM then says no sample was written."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from k3diff.errors import OutputError, RunStopped
from k3diff.sample.log import SampleLog, read_log
from k3diff.sample.stop import Kept, Terminated

from .support import read_samples, resumes, sample, write_prompts


def _prompts(tmp_path: Path) -> Path:
    return write_prompts(
        tmp_path / "p.jsonl", [{"key": f"k{i}", "prompt": f"p{i}"} for i in (0, 1)]
    )


def _stop(out: Path) -> dict[str, Any] | None:
    """The log's last line where it is a stop line."""
    last = json.loads((out / "samples.jsonl").read_text().splitlines()[-1])
    return last if "stopped" in last else None


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
        f"2 samples kept in {out}/samples.jsonl {resumes(*args)}"
    ]
    assert len(read_samples(out)[1]) == 2
    assert _stop(out) is None  # the log could not be written: nothing more was tried
    monkeypatch.undo()
    resumed = sample(*args, "--resume", "--format", "json")
    assert resumed.exit_code == 0, resumed.stderr
    assert len(read_log(out / "samples.jsonl").samples) == 6


def test_a_flush_that_keeps_failing_stops_the_run_with_the_samples_kept(
    fault_server: Any, tmp_path: Path
) -> None:
    server = fault_server()
    out = tmp_path / "out"
    args = (
        "--base", server.url, "--prompts", _prompts(tmp_path), "--repeats", "1", "--out", out,
        "--flush-url", f"{_closed_port()}/flush", "--retries", "0",
    )  # fmt: skip
    result = sample(*args)
    assert result.exit_code == 2, result.stdout
    [line] = result.stderr.splitlines()
    assert "/flush: the cache flush failed: " in line
    assert line.endswith(f"; stopped, 0 samples kept in {out}/samples.jsonl {resumes(*args)}")
    stop = _stop(out)
    assert stop is not None and (stop["reason"], stop["resumable"]) == ("flush-failed", True)
    assert (
        line == f"k3diff: error: {stop['message']}; stopped, 0 samples kept in {out}/samples.jsonl "
        f"{resumes(*args)}"
    )


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


def test_an_unreachable_patch_is_named_by_its_option_with_what_to_do(
    fault_server: Any, tmp_path: Path
) -> None:
    """newuser79: a patch server given at a wrong port said only `URL: cannot reach the
    server: ConnectError: ...`, naming neither side nor what to do."""
    out = tmp_path / "out"
    wrong = _closed_port()
    result = sample(
        "--base", fault_server().url, "--patch", wrong, "--prompts", _prompts(tmp_path),
        "--repeats", "1", "--retries", "0", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"k3diff: error: {wrong}: cannot reach the server given as --patch: ")
    assert line.endswith("; start it, or correct the URL's host and port"), line
    assert not (out / "samples.jsonl").exists()


def test_a_log_that_cannot_be_resumed_is_refused_as_before(
    fault_server: Any, tmp_path: Path
) -> None:
    server = fault_server()
    out = tmp_path / "out"
    args = ["--base", server.url, "--prompts", _prompts(tmp_path), "--out", out]
    assert sample(*args, "--repeats", "1").exit_code == 0
    refused = sample(*args, "--repeats", "1", "--stream", "--resume")
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
        f"; stopped, {kept} samples kept in {out}/samples.jsonl (--resume sends the same "
        "requests and stops the same way)"
    )
    refused = [r for r in server.requests() if r["status"] == status]
    assert len(refused) == 1  # not retried, not sent again
    stop = _stop(out)
    assert stop is not None and (stop["reason"], stop["resumable"]) == ("refused", False)
    assert stop["side"] == "base" and line.startswith(f"k3diff: error: {stop['message']}; ")


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


def test_sigterm_stops_the_run_as_ctrl_c_does(fault_server: Any, tmp_path: Path) -> None:
    """SIGTERM (a cancelled CI job, `timeout`) mid-run: exit 2 and one line saying how many
    samples the log keeps, counted from the log, which ends whole; `--resume` takes the rest.
    Before, the process died with 143 and said nothing."""
    server = fault_server()
    prompts = write_prompts(
        tmp_path / "slow.jsonl",
        [{"key": f"k{i}", "prompt": f"p{i}", "fault": {"delay": 0.1}} for i in range(10)],
    )
    out = tmp_path / "out"
    log = out / "samples.jsonl"
    args = ["--base", server.url, "--prompts", str(prompts), "--repeats", "10", "--out", str(out)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "k3diff", "sample", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # SIGTERM's default action, whatever the test runner's is
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if log.exists() and log.read_bytes().count(b"\n") >= 10:
                break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 2, stderr
    data = log.read_bytes()
    assert data.endswith(b"\n")
    kept = len(read_samples(out)[1])
    stop = _stop(out)
    assert stop is not None and stop["reason"] == "terminated" and stop["resumable"] is True
    assert 0 < kept < 100
    # The run's own command with --resume, started as this process started it.
    said, command = stderr.strip().split(" (--resume continues: ")
    assert said == f"k3diff: error: terminated (SIGTERM); stopped, {kept} samples kept in {log}"
    assert command.endswith(f" sample {shlex.join(args)} --resume)"), stderr
    result = sample(*args, "--resume", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["summary"]["taken_now"] == 100 - kept


@pytest.mark.parametrize(
    ("raised", "said"),
    [(KeyboardInterrupt(), "aborted (Ctrl-C)"), (Terminated(), "terminated (SIGTERM)")],
)
def test_a_stop_before_the_log_is_open_says_no_sample_was_written(
    raised: KeyboardInterrupt, said: str
) -> None:
    """Ctrl-C or SIGTERM while the prompts are read or the servers asked for their models: no
    log was touched, and the line says so instead of pointing at samples that do not exist."""
    with pytest.raises(RunStopped) as stopped, Kept().stops():
        raise raised
    assert str(stopped.value) == f"{said} before the log was opened: no sample written"


def test_sigterm_keeps_a_callers_own_handler() -> None:
    """A library caller's SIGTERM handler is left in place while a run samples, and SIGTERM's
    default action comes back after a run that set its own."""
    seen: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    try:
        with Kept().stops():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
        assert seen == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)
    if previous is signal.SIG_DFL:
        with Kept().stops():
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


@pytest.mark.parametrize("where", ["task", "write"])
@pytest.mark.parametrize("mode", ["serial", "concurrent"])
def test_sigterm_at_any_point_says_one_line_and_the_log_count(
    fault_server: Any, tmp_path: Path, where: str, mode: str
) -> None:
    """SIGTERM handled while a sample's task steps (concurrent: asyncio printed 'Task exception
    was never retrieved' and a traceback after the line), or while a write of the log is in
    flight (the line said fewer samples than the log keeps: the write's count was cancelled)."""
    server = fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": f"k{i}", "prompt": f"p{i}"} for i in range(5)]
    )
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable, str(Path(__file__).with_name("sigterm_driver.py")), where,
            "sample", "--base", server.url, "--prompts", str(prompts), "--repeats", "4",
            "--mode", mode, "--out", str(out),
        ],
        capture_output=True, text=True, timeout=120, start_new_session=True,
    )  # fmt: skip
    log = out / "samples.jsonl"
    kept = len(read_samples(out)[1])
    assert proc.returncode == 2, proc.stderr
    stop = _stop(out)
    assert stop is not None and stop["message"] == "terminated (SIGTERM)"
    [line] = proc.stderr.splitlines()
    said, command = line.split(" (--resume continues: ")
    assert said == f"k3diff: error: terminated (SIGTERM); stopped, {kept} samples kept in {log}"
    assert command.endswith(" --resume)") and f" --mode {mode} --out " in command, line
