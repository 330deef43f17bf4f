"""`k3diff sample` when requests fail or inputs are unusable, against fault-injecting servers
running as real processes on loopback: transient faults retried and recorded, failures that
survive their retries kept in the log (exit 1), an unreachable server or unusable prompts
refused (exit 2), and the evidence never overwritten by the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .support import inference, read_samples, sample, write_prompts


def test_transient_faults_are_retried_and_recorded(fault_server: Any, tmp_path: Path) -> None:
    base = fault_server()
    faults = {
        "500": {"status": 500, "times": 1},
        "429": {"status": 429, "times": 1, "retry_after": 1},
        "reset": {"reset": 1},
        "malformed": {"malformed": 1},
    }
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": k, "prompt": k, "fault": f} for k, f in faults.items()]
    )
    result = sample(
        "--base",
        base.url,
        "--prompts",
        prompts,
        "--repeats",
        "2",
        "--out",
        tmp_path / "out",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.stderr
    _, samples = read_samples(tmp_path / "out")
    attempts = {s["key"]: s["attempts"] for s in samples if s["repeat"] == 0}
    assert attempts == {"500": 2, "429": 2, "reset": 2, "malformed": 2}
    assert all(s["error"] is None and s["text"] == f"echo:{s['key']}" for s in samples)
    starts = [r["start"] for r in inference(base) if r["prompt"] == '"429"']
    assert starts[1] - starts[0] >= 1.0  # Retry-After honoured
    report = json.loads(result.stdout)
    assert report["verdict"] == {"ok": True, "exit_code": 0}


def test_failures_that_survive_retries_are_in_the_log_and_exit_1(
    fault_server: Any, tmp_path: Path
) -> None:
    base = fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [
            {"key": "down", "prompt": "d", "fault": {"status": 503, "times": -1}},
            {"key": "bad", "prompt": "b", "fault": {"status": 400, "times": -1}},
            {"key": "ok", "prompt": "o"},
        ],
    )
    result = sample(
        "--base",
        base.url,
        "--prompts",
        prompts,
        "--repeats",
        "2",
        "--retries",
        "1",
        "--out",
        tmp_path / "out",
        "--format",
        "json",
    )
    assert result.exit_code == 1, result.stderr
    _, samples = read_samples(tmp_path / "out")
    assert len(samples) == 6
    by_key = {s["key"]: s for s in samples}
    assert by_key["down"]["status"] == 503 and by_key["down"]["attempts"] == 2
    assert by_key["bad"]["status"] == 400 and by_key["bad"]["attempts"] == 1  # 4xx not retried
    assert by_key["down"]["error"].startswith("HTTP 503") and by_key["down"]["text"] is None
    report = json.loads(result.stdout)
    assert report["summary"]["failed"] == 4
    assert report["verdict"] == {"ok": False, "exit_code": 1}


def test_unreachable_server_exits_2_with_one_line_and_no_log(tmp_path: Path) -> None:
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    result = sample(
        "--base",
        "http://127.0.0.1:9",
        "--prompts",
        prompts,
        "--repeats",
        "1",
        "--retries",
        "0",
        "--out",
        tmp_path / "out",
    )
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "http://127.0.0.1:9" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "samples.jsonl").exists()


def test_unusable_prompts_exit_2(fault_server: Any, tmp_path: Path) -> None:
    base = fault_server()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"key": "a", "prompt": "x"}\n{"key": "a", "prompt": "y"}\n')
    for prompts in (bad, tmp_path / "missing.jsonl"):
        result = sample(
            "--base", base.url, "--prompts", prompts, "--repeats", "1", "--out", tmp_path / "out"
        )
        assert result.exit_code == 2 and str(prompts) in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1


def test_report_never_replaces_the_prompts_or_the_evidence(
    fault_server: Any, tmp_path: Path
) -> None:
    base = fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k", "prompt": "x"}])
    before = prompts.read_bytes()
    common = ("--base", base.url, "--prompts", prompts, "--repeats", "1", "--out", tmp_path / "out")
    over_prompts = sample(*common, "-o", prompts)
    assert over_prompts.exit_code == 2
    assert "is the input" in over_prompts.stderr and len(over_prompts.stderr.splitlines()) == 1
    assert prompts.read_bytes() == before
    assert sample(*common).exit_code == 0
    log = tmp_path / "out" / "samples.jsonl"
    taken = log.read_bytes()
    into_evidence = sample(*common, "--resume", "-o", log)
    assert into_evidence.exit_code == 2
    assert "where this command writes its evidence" in into_evidence.stderr
    assert log.read_bytes() == taken
    beside = sample(*common, "--resume", "-o", tmp_path / "report.txt")
    assert beside.exit_code == 0, beside.stderr
