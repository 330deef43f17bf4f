"""`telemetry` says the records the run asked that its log has no line of (newuser70).

Both servers fail every request of b (HTTP 500) and the log is filtered as `jq -c
'select(.error == null)'` does (the header has no `error`, so it is kept): no line of b is left.
`triage` holds b `unanswered` (exit 1); `telemetry` without `--expect` said nothing of it: no
`failed:` line (the failed lines are gone) and a table one record short, where the log as
written says 3 failed samples a side. The header lists the records the run asked (`run.keys`),
so telemetry says per side which it lacks and why a log comes to lack them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from sample.conftest import fault_server

__all__ = ["fault_server"]

LOG = "run/samples.jsonl"
LINE = (
    "unlogged: 1 of 3 records the run asked lacks base or patch lines in its log (b), not "
    "counted above: the lines were removed from the log (a filter such as jq's "
    "select(.error == null) drops the failed ones: give the log as sample wrote it) or the run "
    "was killed before them (its sample command with --resume takes them)"
)


def _sample(tmp_path: Path, fault_server: Any, faults: tuple[dict[str, Any], ...]) -> None:
    """a, b and c three times a side, each server failing as its `faults` say."""
    urls = [fault_server("--faults", json.dumps(f)).url for f in faults]
    prompts = "".join(json.dumps({"key": k, "prompt": k}) + "\n" for k in "abc")
    (tmp_path / "p.jsonl").write_text(prompts)
    sampled = run_k3diff(
        "sample", "--base", urls[0], "--patch", urls[1], "--prompts", "p.jsonl",
        "--repeats", "3", "--retries", "0", "--out", "run", cwd=tmp_path,
    )  # fmt: skip
    assert sampled.exit_code == 1, sampled.stderr


def _jq_successes(tmp_path: Path) -> None:
    """The log as `jq -c 'select(.error == null)'` leaves it."""
    path = tmp_path / LOG
    values = [json.loads(line) for line in path.read_text().splitlines()]
    kept = [v for v in values if v.get("error") is None]
    path.write_text("".join(json.dumps(v, separators=(",", ":")) + "\n" for v in kept))


def test_telemetry_says_a_record_whose_failed_lines_were_filtered_out(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on base70: nothing said of b once its failed lines were filtered out."""
    fail_b = {"b": {"status": 500, "times": -1}}
    _sample(tmp_path, fault_server, (fail_b, fail_b))
    written = run_k3diff("telemetry", LOG, cwd=tmp_path)
    assert "failed: 3 of 9 base samples" in written.stdout
    assert "unlogged:" not in written.stdout  # the log as written holds every record

    _jq_successes(tmp_path)
    assert '"key":"b"' not in (tmp_path / LOG).read_text()
    text = run_k3diff("telemetry", LOG, cwd=tmp_path)
    assert text.exit_code == 0, text.stderr  # it summarises; failing is --expect's to say
    assert "failed:" not in text.stdout
    (line,) = [x for x in text.stdout.splitlines() if x.startswith("unlogged:")]
    assert line == LINE
    markdown = run_k3diff("telemetry", LOG, "--format", "markdown", cwd=tmp_path)
    assert LINE in markdown.stdout

    document = run_k3diff("telemetry", LOG, "--format", "json", cwd=tmp_path)
    assert json.loads(document.stdout)["unlogged"] == [
        {"side": "base", "records": ["b"], "of": 3},
        {"side": "patch", "records": ["b"], "of": 3},
    ]
    (tmp_path / "tel.json").write_text(document.stdout)
    bundle = run_k3diff("report", LOG, "tel.json", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code in (0, 1), bundle.stderr  # run again on the log: the same document
    forged = json.loads(document.stdout)
    forged["unlogged"] = []
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    refused = run_k3diff("report", LOG, "forged.json", "--out", "c", cwd=tmp_path)
    assert refused.exit_code == 2 and "unlogged" in refused.stderr, refused.stderr


def test_each_side_is_said_with_the_records_it_lacks(tmp_path: Path, fault_server: Any) -> None:
    """Only the patch fails b and c: the filtered log lacks them on the patch side alone."""
    _sample(tmp_path, fault_server, ({}, {k: {"status": 500, "times": -1} for k in "bc"}))
    _jq_successes(tmp_path)
    text = run_k3diff("telemetry", LOG, cwd=tmp_path)
    assert text.exit_code == 0, text.stderr
    (line,) = [x for x in text.stdout.splitlines() if x.startswith("unlogged:")]
    assert line.startswith(
        "unlogged: 2 of 3 records the run asked lack patch lines in its log (b, c), "
    )
    document = run_k3diff("telemetry", LOG, "--format", "json", cwd=tmp_path)
    assert json.loads(document.stdout)["unlogged"] == [
        {"side": "patch", "records": ["b", "c"], "of": 3}
    ]
