"""`telemetry` of a run that stopped part-way (telstop65): it says so, in text, JSON and
Markdown, with the stop's reason, time and whether `--resume` takes the rest.

newuser65: a run stopped before its first patch sample read, without `--expect`, as a base row
and `Verdict: OK (exit 0): telemetry summarised`, nothing saying the run stopped; a run stopped
before its first sample read `no sample in the log` without why. Without `--expect` telemetry
summarises (exit 0 by design: it fails only an axis the run was meant to exercise, and triage
holds the stopped run's records to their evidence); with it, the unsampled side is
`not-exercised` (review65)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff, run_telemetry

from .test_vllm_counters import RATES, _sample

STOP = {
    "schema": "k3diff.samples/1",
    "stopped": "2025-01-01T00:01:00Z",
    "reason": "no-answer",
    "resumable": True,
    "message": "3 requests in a row got no answer",
    "side": "patch",
}
SAID = (
    "no-answer, patch side at 2025-01-01T00:01:00Z (3 requests in a row got no answer); "
    "resumable: the same command with --resume takes the rest"
)


def _stopped(tmp_path: Path, keep: str | None, stop: dict[str, object] = STOP) -> Path:
    """The run's log cut to the samples of side `keep` (none where None), then its stop line."""
    tmp_path.mkdir(exist_ok=True)
    log = _sample(tmp_path / "run", (RATES, "1"), (RATES, "2"), repeats=1)
    header, *lines = log.read_text().splitlines()
    kept = [x for x in lines if json.loads(x)["side"] == keep]
    stopped = tmp_path / "stopped" / "samples.jsonl"
    stopped.parent.mkdir()
    stopped.write_text("\n".join([header, *kept, json.dumps(stop)]) + "\n")
    return stopped


def test_a_run_stopped_before_its_patch_samples_says_so(tmp_path: Path) -> None:
    log = _stopped(tmp_path, "base")
    code, doc, text = run_telemetry(log)
    assert code == 0, text  # nothing expected: a summary (the patch side is not held to anything)
    assert doc["stopped"] == [{"log": str(log), **{k: v for k, v in STOP.items() if k != "schema"}}]
    assert doc["unsampled"] == ["patch"]
    assert f"stopped part-way ({log}): {SAID}" in text.splitlines()
    assert "no sample, patch side: the run's header lists it" in text.splitlines()
    assert text.splitlines()[-1].endswith("; the run stopped part-way")
    markdown = run_k3diff("telemetry", log, "--format", "markdown").stdout
    assert "no-answer, patch side at 2025-01-01T00:01:00Z" in markdown
    assert markdown.rstrip().endswith("the run stopped part-way**")

    expected = run_telemetry(log, "--expect", "speculation")
    assert expected[0] == 1  # the side never sampled is coverage debt
    assert expected[2].splitlines()[-1] == (
        "Verdict: FAIL (exit 1): not exercised (coverage debt): speculation on the patch side; "
        "the run stopped part-way"
    )


def test_a_run_stopped_before_its_first_sample_says_why(tmp_path: Path) -> None:
    log = _stopped(tmp_path, None)
    result = run_k3diff("telemetry", log)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line == f"k3diff: error: {log}: no sample in the log; the run stopped part-way: {SAID}"


def test_a_resumed_run_is_not_stopped(tmp_path: Path) -> None:
    """A stop speaks for the log only while it is the last line: the whole run after it is not
    said to have stopped."""
    log = _sample(tmp_path / "run", (RATES, "1"), (RATES, "2"), repeats=1)
    header, *lines = log.read_text().splitlines()
    log.write_text("\n".join([header, json.dumps(STOP), *lines]) + "\n")
    code, doc, text = run_telemetry(log)
    assert code == 0 and "stopped" not in doc and "unsampled" not in doc
    assert "stopped part-way" not in text


INTERRUPTED = {
    "schema": "k3diff.samples/1",
    "stopped": "2025-01-02T00:00:00Z",
    "reason": "interrupted",
    "resumable": True,
    "message": "Ctrl-C",
}


def test_runs_pooled_name_the_log_of_each_stop(tmp_path: Path) -> None:
    """Two runs pooled (`--pool-runs`), each stopped: each stop is named with its log, in
    text, JSON and the bundle's telemetry row, which says the run stopped as the sampling row
    does (report66: the stops were listed without their logs, and the row said nothing)."""
    first = _stopped(tmp_path / "a", "base").relative_to(tmp_path)
    second = _stopped(tmp_path / "b", "base", INTERRUPTED).relative_to(tmp_path)
    both = ("telemetry", first, second, "--pool-runs")
    text = run_k3diff(*both, cwd=tmp_path)
    assert text.exit_code == 0, text.stderr
    assert f"stopped part-way ({first}): {SAID}" in text.stdout.splitlines()
    assert (
        f"stopped part-way ({second}): interrupted at 2025-01-02T00:00:00Z (Ctrl-C); resumable: "
        "the same command with --resume takes the rest"
    ) in text.stdout.splitlines()
    made = run_k3diff(*both, "--format", "json", "-o", "telemetry.json", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr
    doc = json.loads((tmp_path / "telemetry.json").read_text())
    assert [(s["log"], s["reason"]) for s in doc["stopped"]] == [
        (str(first), "no-answer"),
        (str(second), "interrupted"),
    ]
    bundled = run_k3diff(
        "report", "telemetry.json", first, second, "--pool-runs", "--out", "bundle", cwd=tmp_path
    )
    assert bundled.exit_code in (0, 1), bundled.stderr
    summary = json.loads((tmp_path / "bundle/summary.json").read_text())
    (row,) = [s for s in summary["stages"] if s["source"] == "telemetry.json"]
    assert row["headline"].endswith(
        f"; the run stopped part-way ({first}: no-answer; {second}: interrupted)"
    ), row["headline"]
    # A document written before its stops named their logs is run again as it is (older);
    # it lacks `failed`, `unlogged`, `unlisted` and `one_server` too, added after (triage70,
    # newuser70, samples72, telem72).
    for stop in doc["stopped"]:
        del stop["log"]
    del doc["failed"], doc["unlogged"], doc["unlisted"], doc["one_server"]
    (tmp_path / "telemetry.json").write_text(json.dumps(doc))
    older = run_k3diff(
        "report", "telemetry.json", first, second, "--pool-runs", "--out", "older", cwd=tmp_path
    )
    assert older.exit_code in (0, 1), older.stderr
    summary = json.loads((tmp_path / "older/summary.json").read_text())
    (row,) = [s for s in summary["stages"] if s["source"] == "telemetry.json"]
    assert row["headline"].endswith("; the run stopped part-way (no-answer; interrupted)")


def test_runs_pooled_with_no_sample_name_each_stops_log(tmp_path: Path) -> None:
    first = _stopped(tmp_path / "a", None)
    second = _stopped(tmp_path / "b", None, INTERRUPTED)
    result = run_k3diff("telemetry", first, second, "--pool-runs")
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        f"k3diff: error: {first}, {second}: no sample in the log; the run stopped part-way "
        f"({first}): {SAID}; the run stopped part-way ({second}): interrupted at"
    ), line
