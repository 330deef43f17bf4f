"""`k3diff sample`'s text and Markdown summary end with the line that decides its exit code, as
`triage` and `responses` do (`result: ... (exit N)`): before more80 the headline began `OK:` or
`FAILED:` and no line named the exit code, nor, of a run that took every sample, what failed
it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from .support import sample, write_prompts


def _run(servers: tuple[Any, Any], tmp_path: Path, *args: str) -> Any:
    base, patch = servers
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}])
    return sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "3",
        "--retries", "0", "--out", tmp_path / "out", *args,
    )  # fmt: skip


def test_a_run_that_took_every_sample_says_exit_0_last(fault_server: Any, tmp_path: Path) -> None:
    result = _run((fault_server(), fault_server()), tmp_path)
    assert result.exit_code == 0, result.stderr
    last = result.stdout.rstrip("\n").splitlines()[-1]
    assert last == "result: every planned sample taken, none failed (exit 0)", result.stdout
    (tmp_path / "md").mkdir()
    markdown = _run((fault_server(), fault_server()), tmp_path / "md", "--format", "markdown")
    assert markdown.stdout.rstrip("\n").split("\n\n")[-1] == last, markdown.stdout


def test_a_run_whose_patch_failed_says_why_it_exits_1(fault_server: Any, tmp_path: Path) -> None:
    failing = fault_server("--faults", json.dumps({"p0": {"status": 500, "times": -1}}))
    result = _run((fault_server(), failing), tmp_path)
    assert result.exit_code == 1, result.stderr
    last = result.stdout.rstrip("\n").splitlines()[-1]
    assert last == "result: FAIL: 3 of 6 samples failed (their errors are in the log) (exit 1)"


def test_exit_0_of_unproven_batches_says_triage_holds_them_and_exit_1_names_each_cause() -> None:
    from k3diff.output import OutputFormat
    from k3diff.report.sample import render
    from k3diff.sample.model import RecordStats, SampleResult

    rows = (RecordStats("q1", "base", "concurrent", 8, 0, 1, 1.0, batches=2, unproven=2),)
    unproven = SampleResult(Path("out"), rows, 8, 8, 0, 8, False, 0)
    text = render(unproven, OutputFormat.TEXT).rstrip("\n").splitlines()
    assert text[-1] == (
        "result: every planned sample taken, none failed; triage holds the unproven batches' "
        "modes (exit 0)"
    )
    short = dataclasses.replace(unproven, planned=10, failed=2, vacuous=("patch",))
    text = render(short, OutputFormat.TEXT).rstrip("\n").splitlines()
    assert text[-1] == (
        "result: FAIL: 2 of 8 samples failed (their errors are in the log); 2 of 10 planned "
        "samples not taken; the patch control came back identical (vacuous: the run could not "
        "have shown a difference) (exit 1)"
    )
