"""`telemetry` says the samples that failed (triage70): count per side and the most common
error, as `sample` and `triage` say them. Before, without `--expect`, a patch that failed every
request of a record showed only fewer patch samples in the table, nothing saying why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from sample.conftest import fault_server

__all__ = ["fault_server"]

LINE = "failed: 3 of 6 patch samples, not counted above (most common error, 3 of them: HTTP 500: "


def _sample(tmp_path: Path, fault_server: Any) -> None:
    """a and b three times a side; the patch fails every request of b (HTTP 500)."""
    faults: tuple[dict[str, Any], ...] = ({}, {"b": {"status": 500, "times": -1}})
    urls = [fault_server("--faults", json.dumps(f)).url for f in faults]
    (tmp_path / "p.jsonl").write_text('{"key": "a", "prompt": "a"}\n{"key": "b", "prompt": "b"}\n')
    sampled = run_k3diff(
        "sample", "--base", urls[0], "--patch", urls[1], "--prompts", "p.jsonl",
        "--repeats", "3", "--retries", "0", "--out", "run", cwd=tmp_path,
    )  # fmt: skip
    assert sampled.exit_code == 1, sampled.stderr


def test_telemetry_without_expect_says_the_failed_samples_per_side(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on base70: no word of the 3 failed patch samples, in any format."""
    _sample(tmp_path, fault_server)
    text = run_k3diff("telemetry", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 0, text.stderr  # it summarises; failing is --expect's to say
    (line,) = [x for x in text.stdout.splitlines() if x.startswith("failed:")]
    assert line.startswith(LINE)
    assert "base samples" not in text.stdout  # the base failed none

    markdown = run_k3diff("telemetry", "run/samples.jsonl", "--format", "markdown", cwd=tmp_path)
    assert LINE in markdown.stdout

    document = run_k3diff("telemetry", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    (failed,) = json.loads(document.stdout)["failed"]
    assert {k: v for k, v in failed.items() if k != "error"} == {
        "side": "patch",
        "samples": 3,
        "of": 6,
        "error_samples": 3,
    }
    assert failed["error"].startswith("HTTP 500")
    rows = {(m["side"], m["mode"]): m["samples"] for m in json.loads(document.stdout)["modes"]}
    assert rows == {("base", "serial"): 6, ("patch", "serial"): 3}  # successes only, as before

    (tmp_path / "tel.json").write_text(document.stdout)
    bundle = run_k3diff("report", "run/samples.jsonl", "tel.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code in (0, 1), bundle.stderr  # run again on the log: the same document
    forged = json.loads(document.stdout)
    forged["failed"] = []
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    refused = run_k3diff("report", "run/samples.jsonl", "forged.json", "--out", "c", cwd=tmp_path)
    assert refused.exit_code == 2 and "failed" in refused.stderr, refused.stderr
