"""`--adaptive` runs resumed: a stop leaves whole rounds, so nothing unedited is held (samples72).

An adaptive run stops a decided record between rounds (a serial repeat of each side, or a
concurrent batch of `--concurrency` a side), and the readers read a stop only so
(`k3diff.sample.owed`): lines that end part-way through a round were removed or never written.
A resumed run could stop part-way through one: resumed after a kill between the base's batch
and the patch's, or with `--repeats` grown past a short last round (3 at concurrency 2, grown
to 5). Then triage and telemetry held the record `unlogged` where nothing was edited, and
`--resume`, which telemetry points to, took nothing more. Now the stop first finishes every
round a side has a line of.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cli_support import run_telemetry

from .support import read_samples, sample, write_prompts


def _args(base: str, patch: str, prompts: Path, out: Path, repeats: int) -> list[str]:
    return [
        "--base", base, "--patch", patch, "--prompts", str(prompts), "--mode", "concurrent",
        "--concurrency", "2", "--adaptive", "--repeats", str(repeats), "--control", "off",
        "--out", str(out),
    ]  # fmt: skip


def _unlogged(out: Path) -> list[Any]:
    code, document, text = run_telemetry(out / "samples.jsonl")
    assert code == 0, text
    assert "unlogged" not in text, text
    return list(document["unlogged"])


def test_repeats_grown_past_a_short_last_batch_stop_on_a_whole_batch(
    fault_server: Any, tmp_path: Path
) -> None:
    """Failed on main at 75ea4965: a, decided after its 3 repeats (the patch's seeded draw
    differs), grown to 5: the resume stopped at 3 of 5 lines a side, held `unlogged`."""
    base, patch = fault_server(), fault_server("--seed-salt", "patched")
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": "a", "prompt": "a", "fault": {"output": "seeded"}}]
    )
    out = tmp_path / "out"
    first = sample(*_args(base.url, patch.url, prompts, out, 3), "--param", "seed=1")
    assert first.exit_code == 0, first.stderr
    grown = sample(*_args(base.url, patch.url, prompts, out, 5), "--param", "seed=1", "--resume")
    assert grown.exit_code == 0, grown.stderr
    _, lines = read_samples(out)
    taken = sorted((line["side"], line["repeat"]) for line in lines)
    assert taken == [(side, r) for side in ("base", "patch") for r in range(4)]  # whole batches
    assert _unlogged(out) == []


def test_a_run_killed_between_the_sides_of_a_batch_is_finished_by_resume(
    fault_server: Any, tmp_path: Path
) -> None:
    """Failed on main at 75ea4965: killed (SIGKILL, by pid) after the base's first batch, whose
    two answers differ (decided), the resume took nothing: the patch had no line of a and
    telemetry said `--resume takes them`. Now the resume takes the patch's batch and stops."""
    delay = {"delay": 1.0}
    base = fault_server("--faults", json.dumps({"a": {"output": "rand", **delay}}))
    patch = fault_server("--faults", json.dumps({"a": delay}))
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    out = tmp_path / "out"
    log = out / "samples.jsonl"
    args = _args(base.url, patch.url, prompts, out, 5)
    proc = subprocess.Popen(
        [sys.executable, "-m", "k3diff", "sample", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if log.exists() and log.read_bytes().count(b'"side"') >= 2:
                break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    _, lines = read_samples(out)
    assert sorted((s["side"], s["repeat"]) for s in lines) == [("base", 0), ("base", 1)]
    resumed = sample(*args, "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    _, lines = read_samples(out)
    taken = sorted((s["side"], s["repeat"]) for s in lines)
    assert taken == [("base", 0), ("base", 1), ("patch", 0), ("patch", 1)]
    assert _unlogged(out) == []
