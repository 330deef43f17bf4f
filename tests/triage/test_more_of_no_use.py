"""A hold that more samples of the same run cannot lift asks for none, even where the mode is
also held `no-power`: newuser79, on a real `transformers serve` pair at temperature 1 sampled
concurrently (no `/metrics`, so every batch unproven), triage's "more" column read 45 and its
`next:` line said to grow the run to 53 repeats, after which the mode would be as unproven as
before; the bundle said both "45 more samples a side would decide them" and "more samples
would not decide them". Samples of another condition (`--allow-condition-mismatch`) were asked
to grow the same way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from sample.support import sample

from .helpers import S, compare_texts, completion, write_samples


def _unproven_sampled_run(tmp_path: Path) -> Path:
    """Captures that differ, and 8 concurrent samples a side at temperature 1, every answer new
    and none proven overlapped (no gauge reading: `write_samples` logs no batch proof)."""
    compare_texts(tmp_path, {"q": ("the same answer 0", "the same answer 1")})
    samples = [  # alike answers, none repeated: no test tells the sides apart at this n
        S(side, "q", f"the same answer {2 * n + (side == 'patch')}", "concurrent")
        for side in ("base", "patch")
        for n in range(1, 9)
    ]
    return write_samples(
        tmp_path / "run" / "samples.jsonl",
        samples,
        modes=("concurrent",),
        params={"temperature": 1},
    )


def test_an_unproven_mode_without_power_asks_for_no_more_samples(tmp_path: Path) -> None:
    _unproven_sampled_run(tmp_path)
    out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert out.exit_code == 1, out.stderr
    (record,) = json.loads(out.stdout)["records"]
    (mode,) = record["modes"]
    assert {"unproven", "no-power"} <= set(mode["flags"]), mode
    assert mode["more_samples"] is None, mode
    assert record["more_samples"] is None, record
    assert "in a run whose batches are proven to overlap" in mode["reason"]
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1, text.stderr
    assert "next:" not in text.stdout and "--resume" not in text.stdout, text.stdout


def test_the_bundle_says_more_samples_would_not_decide_an_unproven_mode(tmp_path: Path) -> None:
    _unproven_sampled_run(tmp_path)
    triaged = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "triage.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert triaged.exit_code == 1, triaged.stderr
    report = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "triage.json", "--out", "bundle", cwd=tmp_path
    )
    assert report.exit_code == 1, report.stderr
    text = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "1 record held: batches unproven (q)" in text
    assert "would decide them" not in text and "would decide it" not in text, text
    assert "--resume" not in text


def test_samples_of_another_condition_ask_for_no_more(fault_server: Any, tmp_path: Path) -> None:
    for side, text in {"base": "echo:p0", "patch": "echo:p0 changed"}.items():
        line = {
            "custom_id": "k0",
            "request": {"prompt": "p0", "temperature": 0, "max_tokens": 8},
            "response": completion("r", text),
        }
        (tmp_path / f"{side}.jsonl").write_text(json.dumps(line) + "\n")
    compared = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert compared.exit_code == 1, compared.stderr
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(
        json.dumps({"key": "k0", "prompt": "p0", "max_tokens": 8, "fault": {"output": "rand"}})
        + "\n"
    )
    base, patch = fault_server(), fault_server()
    taken = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "3",
        "--param", "temperature=1", "--out", tmp_path / "run",
    )  # fmt: skip
    assert taken.exit_code == 0, taken.stderr
    args = ("triage", "cmp.json", "run/samples.jsonl", "--allow-condition-mismatch")
    shown = run_k3diff(*args, "--format", "json", cwd=tmp_path)
    assert shown.exit_code == 1, shown.stderr
    (record,) = json.loads(shown.stdout)["records"]
    assert record["category"] == "inconclusive"
    assert "samples-of-another-condition" in record["flags"], record
    assert record["more_samples"] is None, record
    plain = run_k3diff(*args, cwd=tmp_path)
    (step,) = [x for x in plain.stdout.splitlines() if x.startswith("next: ")]
    # more80: no more of this run, whose samples are at temperature 1; the captured condition.
    assert "grow the run" not in step and "--resume" not in step, step
    assert "temperature: captured 0, sampled 1" in step, step
    assert "--param temperature=0 --out NEW_DIR (with fault left out of the prompts' own" in step
    assert "temperature=1" not in step, step


def test_a_serial_mode_beside_an_unproven_one_asks_the_record_for_no_more(tmp_path: Path) -> None:
    """review79e: the serial mode held no-power gave the record its 53 more a side, and `next:`
    said to grow the run, after which the concurrent mode was as unproven as before and the
    record as held; the bundle said both "grow the run" and "more samples would not decide
    them". The serial mode still states its own count."""
    compare_texts(tmp_path, {"q": ("the same answer 0", "the same answer 1")})
    samples = [
        S(side, "q", f"the same answer {2 * n + (side == 'patch')}", mode)
        for mode in ("serial", "concurrent")
        for side in ("base", "patch")
        for n in range(1, 9)
    ]
    write_samples(
        tmp_path / "run" / "samples.jsonl",
        samples,
        modes=("serial", "concurrent"),
        params={"temperature": 1},
    )
    out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert out.exit_code == 1, out.stderr
    (record,) = json.loads(out.stdout)["records"]
    serial, concurrent = record["modes"]
    assert "unproven" in concurrent["flags"] and concurrent["more_samples"] is None
    assert "no-power" in serial["flags"] and serial["more_samples"], serial
    assert record["more_samples"] is None, record
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1, text.stderr
    assert "next:" not in text.stdout and "--resume" not in text.stdout, text.stdout


def test_a_triage_written_before_asks_the_bundle_for_no_more(tmp_path: Path) -> None:
    """review79e: a triage written by stop 78 gave the unproven mode and its record 50 more a
    side; judged alone, the bundle said to grow the run beside "more samples would not decide
    them". It now asks nothing of a record held for what more samples cannot lift."""
    _unproven_sampled_run(tmp_path)
    out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert out.exit_code == 1, out.stderr
    document = json.loads(out.stdout)
    (record,) = document["records"]
    record["more_samples"] = record["modes"][0]["more_samples"] = 50  # as stop 78 wrote it
    (tmp_path / "older.json").write_text(json.dumps(document))
    report = run_k3diff("report", "cmp.json", "older.json", "--out", "bundle", cwd=tmp_path)
    assert report.exit_code == 1, report.stderr
    text = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "more samples would not decide them" in text, text
    assert "grow the run" not in text and "--resume" not in text, text
