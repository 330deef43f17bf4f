"""Runtime evidence from a real inference server: `k3diff logs` on the logs `transformers serve`
really wrote, and `k3diff telemetry` on a run against it.

The two servers of the suite (the shared one and the penalty one) are two clean runs of one
engine: their logs differ in timestamps, pids and ports and must compare clean. A copy of the
patch log with a traceback, a CUDA error and an out-of-memory line appended must fail naming
them. `transformers serve` reports no cached-token count, so a run meant to exercise cache reuse
must come back `not-exercised`, never a pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .serve import InferenceServer

pytestmark = pytest.mark.xdist_group("inference_server")

INJECTED = (
    "Traceback (most recent call last):\n"
    '  File "/srv/engine/model_runner.py", line 812, in execute_model\n'
    "    hidden = self.model(input_ids)\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
)


def _logs(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run_k3diff("logs", *args, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def test_real_server_logs_compare_clean_and_injected_errors_fail(
    inference_server: InferenceServer, penalty_server: InferenceServer, tmp_path: Path
) -> None:
    base, patch = inference_server.log, penalty_server.log
    code, doc = _logs(base, patch)
    assert doc["base"]["lines"] > 0 and doc["patch"]["lines"] > 0
    assert code == 0, doc["verdict"]
    assert doc["summary"]["new_errors_on_patch"] == 0
    broken = tmp_path / "patch-serve.log"
    broken.write_bytes(patch.read_bytes() + INJECTED.encode())
    code, doc = _logs(base, broken)
    assert code == 1
    new = {f["rule"] for f in doc["findings"] if f["side"] == "patch" and f.get("new")}
    # One crash, one finding (polish63): the traceback is the CUDA error's, marked as such.
    assert {"cuda-error", "out-of-memory"} <= new and "traceback" not in new
    (crash,) = [f for f in doc["findings"] if f["side"] == "patch" and f["rule"] == "cuda-error"]
    assert "(in a traceback)" in json.dumps(crash)
    # The same lines on both sides are counted on both and are not new.
    base_too = tmp_path / "base-serve.log"
    base_too.write_bytes(base.read_bytes() + INJECTED.encode())
    code, doc = _logs(base_too, broken)
    assert code == 0
    rules = {r["name"]: r for r in doc["rules"]}
    # The crash, counted once a side.
    assert rules["cuda-error"]["base"] == rules["cuda-error"]["patch"] == 1


def test_telemetry_names_a_cache_run_the_server_could_not_show(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"key": "fox", "prompt": "the quick brown fox"}) + "\n")
    out = tmp_path / "out"
    sampled = run_k3diff(
        "sample", "--base", inference_server.base_url, "--prompts", prompts,
        "--repeats", "2", "--param", "max_tokens=4", "--param", "temperature=0", "--out", out,
    )  # fmt: skip
    assert sampled.exit_code == 0, sampled.stderr
    result = run_k3diff(
        "telemetry", out / "samples.jsonl", "--expect", "cache-reuse", "--format", "json"
    )
    assert result.exit_code == 1, result.stdout
    doc = json.loads(result.stdout)
    assert [(n["expectation"], n["side"]) for n in doc["not_exercised"]] == [
        ("cache-reuse", "base")
    ]
    assert doc["modes"][0]["samples"] == 2
