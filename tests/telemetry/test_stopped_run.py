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


def _stopped(tmp_path: Path, keep: str | None) -> Path:
    """The run's log cut to the samples of side `keep` (none where None), then its stop line."""
    log = _sample(tmp_path / "run", (RATES, "1"), (RATES, "2"), repeats=1)
    header, *lines = log.read_text().splitlines()
    kept = [x for x in lines if json.loads(x)["side"] == keep]
    stopped = tmp_path / "stopped" / "samples.jsonl"
    stopped.parent.mkdir()
    stopped.write_text("\n".join([header, *kept, json.dumps(STOP)]) + "\n")
    return stopped


def test_a_run_stopped_before_its_patch_samples_says_so(tmp_path: Path) -> None:
    log = _stopped(tmp_path, "base")
    code, doc, text = run_telemetry(log)
    assert code == 0, text  # nothing expected: a summary (the patch side is not held to anything)
    assert doc["stopped"] == [{k: v for k, v in STOP.items() if k != "schema"}]
    assert doc["unsampled"] == ["patch"]
    assert f"stopped part-way: {SAID}" in text.splitlines()
    assert "no sample, patch side: the run's header lists it" in text.splitlines()
    assert text.splitlines()[-1].endswith("; the run stopped part-way")
    markdown = run_k3diff("telemetry", log, "--format", "markdown").stdout
    assert "stopped part-way: no-answer, patch side at 2025-01-01T00:01:00Z" in markdown
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
