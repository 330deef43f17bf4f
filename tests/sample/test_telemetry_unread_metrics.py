"""telem68: a side that reports no speculation says why: its engine sent no draft counts (its
`/metrics` answered 404, a server that exposes none: "not reported"), or its `/metrics` could
not be read when `sample` probed it ("could not be read", with the error `sample` recorded in
the log's header). Before, a run where neither side reported said only `speculation: not
reported (no engine sent draft counts)`, and a side whose `/metrics` failed read as "not
reported" beside one that did.

Runs are real `k3diff sample` runs against loopback fault servers: `--metrics garbage` answers
a body that is no Prometheus text; without `--metrics` the server answers 404."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine_schemas
from cli_support import run_k3diff, run_telemetry

from .support import read_samples, sample, write_prompts


def _run(fault_server: Any, tmp_path: Path, base_fault: dict[str, Any]) -> Path:
    base, patch = fault_server(), fault_server("--metrics", "garbage")
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "2",
        "--base-param", f"fault={json.dumps(base_fault)}", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out


def _recorded(out: Path, side: str) -> str:
    """`URL: problem` of the side's /metrics as the log's header recorded the probe."""
    probe = read_samples(out)[0]["metrics"][side]
    return f"{probe['url']}: {probe['problem']}"


def test_neither_side_reporting_says_which_metrics_could_not_be_read(
    fault_server: Any, tmp_path: Path
) -> None:
    out = _run(fault_server, tmp_path, {})
    base, patch = _recorded(out, "base"), _recorded(out, "patch")
    assert base.endswith("/metrics: HTTP 404")
    assert ": not Prometheus text (" in patch
    code, doc, text = run_telemetry(out / "samples.jsonl")
    assert code == 0 and doc["speculation"] == []
    lines = text.splitlines()
    assert "speculation: not reported (no engine sent draft counts)" not in lines
    assert f"speculation, base: not reported (no engine sent draft counts; {base})" in lines
    assert (
        f"speculation, patch: could not be read (its /metrics failed when sample probed it: "
        f"{patch}; no other source sent draft counts)"
    ) in lines
    markdown = run_k3diff("telemetry", out / "samples.jsonl", "--format", "markdown").stdout
    assert "speculation, patch: could not be read (its /metrics failed when sample probed" in (
        markdown
    )


def test_a_side_whose_metrics_failed_beside_one_that_reports_is_said_unread(
    fault_server: Any, tmp_path: Path
) -> None:
    meta = engine_schemas.sglang_meta_info([3, 2, 4, 1], draft_per_step=3)
    out = _run(fault_server, tmp_path, {"meta_info": meta})
    code, doc, text = run_telemetry(out / "samples.jsonl")
    assert code == 0 and [s["side"] for s in doc["speculation"]] == ["base"]
    (line,) = [x for x in text.splitlines() if x.startswith("speculation, patch: ")]
    assert line == (
        "speculation, patch: could not be read (its /metrics failed when sample probed it: "
        f"{_recorded(out, 'patch')}; no other source sent draft counts)"
    )
    # --expect speculation holds it, and says why there are no counts.
    code, doc, _ = run_telemetry(out / "samples.jsonl", "--expect", "speculation")
    assert code == 1
    assert [(n["side"], n["detail"]) for n in doc["not_exercised"]] == [
        (
            "patch",
            "no speculation counts reported (TensorRT-LLM /perf_metrics, vLLM /metrics, SGLang "
            f"meta_info); its /metrics could not be read when sample probed it: "
            f"{_recorded(out, 'patch')}",
        )
    ]


def test_pooled_runs_say_every_side_probe_that_failed(fault_server: Any, tmp_path: Path) -> None:
    """telem69: runs pooled with --pool-runs each recorded their own probe. The first run's
    patch /metrics could not be read, the second's answered 404 (a server without the
    counters). Before, the last log's problem replaced the others: the patch read as "not
    reported" on the 404 alone, and `--expect speculation` did not say its /metrics failed."""
    (tmp_path / "one").mkdir()
    failed = _run(fault_server, tmp_path / "one", {})
    patch = fault_server()
    base = fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "b", "prompt": "b"}])
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "2",
        "--out", tmp_path / "two",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    unread, absent = _recorded(failed, "patch"), _recorded(tmp_path / "two", "patch")
    assert absent.endswith("/metrics: HTTP 404") and ": not Prometheus text (" in unread
    logs = (failed / "samples.jsonl", tmp_path / "two" / "samples.jsonl", "--pool-runs")
    code, doc, text = run_telemetry(*logs)
    assert code == 0 and doc["speculation"] == []
    assert (
        f"speculation, patch: could not be read (its /metrics failed when sample probed it: "
        f"{unread}; {absent}; no other source sent draft counts)"
    ) in text.splitlines()
    code, doc, _ = run_telemetry(*logs, "--expect", "speculation")
    assert code == 1
    details = {n["side"]: n["detail"] for n in doc["not_exercised"]}
    assert details["patch"].endswith(
        f"; its /metrics could not be read when sample probed it: {unread}; {absent}"
    )
