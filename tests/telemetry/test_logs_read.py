"""What `telemetry` reads of its logs (review65): each sample once, and every side the run sampled.

A samples log given twice, or a copy of it, is refused, and logs of different runs are pooled
only with `--pool-runs`. Before, `telemetry` added up every log it was given: the same log given
four times made four times the vLLM windows, and a gate that could not decide on two windows a
side (`acceptance-undecided`, exit 1) passed (exit 0) on the same two windows counted four
times. And a side the run's header says it sampled is held to `--expect` also when its log holds
none of its samples (a run stopped before its first patch sample): before, only the sides with
lines were, and `--expect speculation` said "every side exercised speculation", exit 0."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli_support import run_k3diff, run_telemetry

from .test_vllm_counters import RATES, _sample

BETTER = "0.95,0.9"
"""The patch's drafter accepts more than the base's: no drop to find."""


def test_a_log_given_twice_is_refused_not_counted_twice(tmp_path: Path) -> None:
    log = _sample(tmp_path / "one", (RATES, "1"), (BETTER, "2"), repeats=1)
    code, doc, _ = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 1  # two windows a side: no permutation reaches alpha
    assert [f["name"] for f in doc["acceptance_gate"]["findings"]] == ["acceptance-undecided"]

    again = run_k3diff("telemetry", log, log, log, log, "--fail-on", "acceptance-drop")
    assert again.exit_code == 2, again.stdout
    (line,) = again.stderr.splitlines()
    # newuser65: it read 'LOG:2: repeat 0 of base ... is already in LOG:2', a line its own twin.
    assert line == f"k3diff: error: {log}: given twice; give each log once"
    aliased = run_k3diff("telemetry", log, log.parent / ".." / log.parent.name / log.name)
    assert aliased.exit_code == 2
    assert aliased.stderr.endswith(f"given twice (the same file as {log}); give each log once\n")

    copy = tmp_path / "copy"
    shutil.copytree(log.parent, copy)
    copied = run_k3diff("telemetry", log, copy / "samples.jsonl", "--pool-runs")
    assert copied.exit_code == 2 and f"is already in {log}:2 (a copy of a log" in copied.stderr


def test_logs_of_two_runs_are_pooled_only_when_asked(tmp_path: Path) -> None:
    first = _sample(tmp_path / "one", (RATES, "1"), (BETTER, "2"), repeats=1)
    second = _sample(tmp_path / "two", (RATES, "3"), (BETTER, "4"), repeats=1)
    mixed = run_k3diff("telemetry", first, second)
    assert mixed.exit_code == 2
    assert "the sample logs are of 2 different runs" in mixed.stderr
    assert "--pool-runs" in mixed.stderr
    code, doc, _ = run_telemetry(first, second, "--pool-runs")
    assert code == 0
    # Each run's two windows a side, once each.
    assert {s["side"]: s["requests"] for s in doc["speculation"]} == {"base": 4, "patch": 4}


def test_a_side_the_run_sampled_is_held_to_expect_without_a_line_in_the_log(
    tmp_path: Path,
) -> None:
    log = _sample(tmp_path, (RATES, "1"), (BETTER, "2"), repeats=1)
    header, *lines = log.read_text().splitlines()
    assert set(json.loads(header)["run"]["servers"]) == {"base", "patch"}
    base_only = tmp_path / "stopped" / "samples.jsonl"
    base_only.parent.mkdir()
    base_only.write_text(
        "\n".join([header, *(x for x in lines if json.loads(x)["side"] == "base")]) + "\n"
    )
    code, doc, text = run_telemetry(base_only, "--expect", "speculation")
    assert code == 1, text
    assert [(n["side"], n["expectation"]) for n in doc["not_exercised"]] == [
        ("patch", "speculation")
    ]
    assert text.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): not exercised (coverage debt): speculation on the patch side"
    )
    assert run_telemetry(log, "--expect", "speculation")[0] == 0  # the whole log: both sides
