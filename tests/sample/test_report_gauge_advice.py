"""telem68: the bundle's "unproven" sentence words its advice from the gauge probe the triage
document records (`gaugeless`: the sides whose server was asked for its running-requests gauge
and answered without one). Before, the triage document did not record the probe, and the bundle
told the reader to add `--metrics-url` on a server that has no gauge to serve (`transformers
serve` answers 404 on `/metrics`), while triage's own reason said no `--metrics-url` could help.
A document written before the field still reads, with the advice it always had.

Runs are real `k3diff sample` runs (concurrent, streamed) against loopback fault servers: the
streams interleave at the client, which proves no batch without the server's gauge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from triage.helpers import compare_texts

from .support import flat, sample, write_prompts

FAULT = {"delay": 0.3, "chunk_delay": 0.05, "pieces": 6}
ADD_METRICS_URL = "adding --metrics-url URL to the sample command, where it has one"
NO_GAUGE = (
    "the base and patch servers expose no running-requests gauge at their metrics URL (asked, "
    "and answered without one), so co-batching cannot be proven on them and their batched "
    "modes cannot be cleared there: drop them, or sample a server that exports the gauge "
    "(--mode serial still checks batch-1 parity)"
)


def _triage(fault_server: Any, tmp_path: Path, *flags: str) -> dict[str, Any]:
    """triage.json (and the run under it) of a concurrent streamed run against servers started
    with `flags`, its record unproven."""
    base, patch = fault_server(*flags), fault_server(*flags)
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", "fault": FAULT}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "4",
        "--mode", "concurrent", "--concurrency", "4", "--stream", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    comparison = compare_texts(tmp_path, {"k0": ("echo:p0", "echo:p0")})
    triage = run_k3diff(
        "triage", comparison, out / "samples.jsonl", "--format", "json",
        "--output", tmp_path / "triage.json",
    )  # fmt: skip
    assert triage.exit_code in (0, 1), triage.stderr
    doc: dict[str, Any] = json.loads((tmp_path / "triage.json").read_text())
    (record,) = doc["records"]
    assert "unproven" in record["flags"]
    return doc


def _report(tmp_path: Path, doc: dict[str, Any], name: str) -> str:
    """REPORT.md of a bundle of the triage document `doc` alone, on one line."""
    (tmp_path / f"{name}.json").write_text(json.dumps(doc))
    result = run_k3diff("report", tmp_path / f"{name}.json", "--out", tmp_path / name)
    assert result.exit_code in (0, 1), result.stderr
    return flat((tmp_path / name / "REPORT.md").read_text())


def test_a_server_without_a_gauge_is_not_told_to_add_a_metrics_url(
    fault_server: Any, tmp_path: Path
) -> None:
    doc = _triage(fault_server, tmp_path)  # /metrics answers 404
    report = _report(tmp_path, doc, "bundle")
    assert "--metrics-url" not in report
    assert NO_GAUGE in report
    assert doc["gaugeless"] == ["base", "patch"]

    # A document written before the field does not say: the advice it always had.
    del doc["gaugeless"]
    older = _report(tmp_path, doc, "older")
    assert ADD_METRICS_URL in older and NO_GAUGE not in older


def test_a_metrics_url_that_could_not_be_read_is_still_asked_for(
    fault_server: Any, tmp_path: Path
) -> None:
    """Unreadable (garbage) is not 'no gauge': the URL may be the wrong one."""
    doc = _triage(fault_server, tmp_path, "--metrics", "garbage")
    assert doc["gaugeless"] == []
    report = _report(tmp_path, doc, "bundle")
    assert ADD_METRICS_URL in report and "expose no running-requests gauge" not in report
