"""The latency table of `k3diff telemetry`: every cell of a column has the same precision, so
0.030 never stands beside 0.028 as 0.03 (tabulate must not re-read the figures as numbers)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff
from triage.helpers import S, write_samples


def test_every_latency_cell_has_three_decimals(tmp_path: Path) -> None:
    log = write_samples(tmp_path / "run" / "samples.jsonl", [S("base", "a", "x")] * 3)
    header, *lines = log.read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    for row, latency in zip(rows, (0.03, 0.028, 0.5), strict=True):
        row["latency_s"] = latency
    log.write_text("\n".join([header, *map(json.dumps, rows)]) + "\n")
    for fmt in ("text", "markdown"):
        result = run_k3diff("telemetry", log, "--format", fmt)
        assert result.exit_code == 0, result.stderr
        row = next(line for line in result.stdout.splitlines() if "serial" in line)
        cells = row.replace("|", " ").split()
        # side, mode, samples, then p50, p90, p99: numpy's percentiles of 0.028, 0.03, 0.5
        assert cells[3:6] == ["0.030", "0.406", "0.491"], row


def test_without_expect_the_verdict_says_no_expectation_was_checked(tmp_path: Path) -> None:
    """words72: 'telemetry summarised, nothing expected (--expect)' read as a finding, and the
    demo printed a line of its own to explain it. Failed on base72."""
    log = write_samples(tmp_path / "run" / "samples.jsonl", [S("base", "a", "x")] * 3)
    result = run_k3diff("telemetry", log)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.endswith(
        "Verdict: OK (exit 0): telemetry summarised; no --expect was given, so no expectation "
        "was checked\n"
    )
