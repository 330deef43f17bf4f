"""A run whose base and patch were one server: `telemetry` says so under its latency rows.

words72: a one-server run (an A/A calibration, or an A/B of request fields) showed a base row
and a patch row of latencies as any run's, nothing saying both were one server's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from sample.conftest import fault_server

__all__ = ["fault_server"]  # the loopback servers of tests/sample, as triage's tests use them

LOG = "run/samples.jsonl"


def _sample(tmp_path: Path, base: str, patch: str) -> Path:
    tmp_path.mkdir(exist_ok=True)
    prompts = [{"key": "a", "prompt": "a"}, {"key": "b", "prompt": "b"}]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in prompts))
    result = run_k3diff(
        "sample", "--base", base, "--patch", patch, "--prompts", "p.jsonl", "--repeats", "2",
        "--retries", "0", "--control", "off", "--out", "run", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return tmp_path / LOG


def test_the_rows_of_a_one_server_run_say_they_are_one_servers(
    tmp_path: Path, fault_server: Any
) -> None:
    url = fault_server().url
    port = url.rsplit(":", 1)[1]
    log = _sample(tmp_path, url, f"http://localhost:{port}")
    for fmt in ("text", "markdown"):
        result = run_k3diff("telemetry", log, "--format", fmt)
        assert result.exit_code == 0, result.stderr
        lines = result.stdout.splitlines()
        said = next(i for i, line in enumerate(lines) if line.startswith("one server:"))
        assert lines[said - 1] == "" and "patch" in lines[said - 2]  # right under the rows
        assert lines[said] == (
            f"one server: base and patch were sampled from one server ({url} and "
            f"http://localhost:{port}, both loopback port {port}): the rows above are one "
            "server's latencies under two labels, not two builds compared"
        )


def test_two_servers_get_no_such_line(tmp_path: Path, fault_server: Any) -> None:
    log = _sample(tmp_path, fault_server().url, fault_server().url)
    result = run_k3diff("telemetry", log)
    assert result.exit_code == 0 and "one server" not in result.stdout, result.stdout


def test_pooled_logs_name_the_one_server_log(tmp_path: Path, fault_server: Any) -> None:
    server = fault_server()
    one = _sample(tmp_path / "one", server.url, server.url + "/")
    two = _sample(tmp_path / "two", fault_server().url, fault_server().url)
    result = run_k3diff("telemetry", one, two, "--pool-runs")
    assert result.exit_code == 0, result.stderr
    said = [line for line in result.stdout.splitlines() if line.startswith("one server:")]
    assert len(said) == 1 and said[0].startswith(f"one server: {one}: base and patch were"), said
    assert said[0].endswith(
        "its samples in the rows above are one server's latencies under two labels, not two "
        "builds compared"
    )
