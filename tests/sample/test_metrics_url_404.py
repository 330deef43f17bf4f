"""A `--metrics-url` the user gave that answers 404 is said as such: check it. Before, it read
as the default probe's 404 (a server such as `transformers serve`, which has no `/metrics`):
a mistyped path on a server that serves its gauge at `/metrics` got the advice that no
`--metrics-url` can prove its batches, in `sample`'s summary and `triage`'s reasons, and
`telemetry` said the side's engine sent nothing; then (triage69) triage's reason told the user
to add the `--metrics-url` they had given.

Runs are real `k3diff sample` runs against loopback fault servers serving `/metrics`
(`--metrics vllm`) and answering 404 on every other path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff, run_telemetry
from triage.helpers import compare_texts

from .support import read_samples, sample, write_prompts

FAULT = {"delay": 0.3, "chunk_delay": 0.05, "pieces": 6}
GIVEN = "HTTP 404 at the --metrics-url given: check it"
NO_GAUGE = "expose no running-requests gauge"


def _sample(fault_server: Any, tmp_path: Path, *options: str) -> tuple[Path, str]:
    base, patch = fault_server("--metrics", "vllm"), fault_server("--metrics", "vllm")
    urls = [f"base={base.url}/metricz", f"patch={patch.url}/metricz"]
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", "fault": FAULT}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "4",
        "--mode", "concurrent", "--concurrency", "4", "--stream", "--out", out,
        "--metrics-url", urls[0], "--metrics-url", urls[1], *options,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out, " ".join(result.stdout.split())


def test_a_given_metrics_url_that_answers_404_is_said_to_be_checked(
    fault_server: Any, tmp_path: Path
) -> None:
    out, said = _sample(fault_server, tmp_path)
    header, _ = read_samples(out)
    assert [header["metrics"][side]["problem"] for side in ("base", "patch")] == [GIVEN, GIVEN]
    assert (
        "the --metrics-url given for the base and patch answered HTTP 404: check them (the "
        "default is the server's /metrics); --mode serial still checks batch-1 parity"
    ) in said
    assert NO_GAUGE not in said
    comparison = compare_texts(tmp_path, {"k0": ("echo:p0", "echo:p0")})
    samples = str(out / "samples.jsonl")
    triaged = run_k3diff("triage", str(comparison), samples, "--format", "json")
    document = json.loads(triaged.stdout)
    assert document["gaugeless"] == []
    (record,) = document["records"]
    assert record["category"] == "inconclusive" and "unproven" in record["flags"]
    assert NO_GAUGE not in record["reason"]
    # triage69: it said "sample again, adding --metrics-url URL to the sample command", the
    # advice for a run that gave none.
    assert "adding --metrics-url URL" not in record["reason"]
    assert (
        "the --metrics-url given for the base and patch answered HTTP 404: check them (the "
        "default is the server's /metrics)"
    ) in record["reason"]
    text = run_k3diff("triage", str(comparison), samples, "--format", "text").stdout
    assert f"gauge: not exposed ({GIVEN})" in " ".join(text.split())


def test_telemetry_says_a_given_metrics_url_that_answered_404_could_not_be_read(
    fault_server: Any, tmp_path: Path
) -> None:
    out, _ = _sample(fault_server, tmp_path)
    probe = read_samples(out)[0]["metrics"]["base"]
    code, _, text = run_telemetry(out / "samples.jsonl")
    assert code == 0
    assert (
        "speculation, base: could not be read (its /metrics failed when sample probed it: "
        f"{probe['url']}: {GIVEN}; no other source sent draft counts)"
    ) in text.splitlines()


def test_a_log_before_stop_68_reads_its_given_url_404_as_no_gauge_and_passes_nothing(
    fault_server: Any, tmp_path: Path
) -> None:
    """telem69: a log written before stop 68 recorded a given `--metrics-url`'s 404 as
    `HTTP 404`, the default probe's words, so its readers take the server for one without a
    gauge: the advice is the gaugeless one, and telemetry says "not reported". That is
    wording only: the concurrent mode stays unproven (inconclusive, clearing nothing), and
    `--expect speculation` still fails the sides. (A guard: it held before telem69 too.)"""
    out, _ = _sample(fault_server, tmp_path)
    log = out / "samples.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    for probe in lines[0]["run"]["metrics"].values():
        probe["problem"] = "HTTP 404"  # as written before stop 68, which did not say `given`
        del probe["given"]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    comparison = compare_texts(tmp_path, {"k0": ("echo:p0", "echo:p0")})
    triaged = run_k3diff("triage", str(comparison), str(log), "--format", "json")
    document = json.loads(triaged.stdout)
    assert document["gaugeless"] == ["base", "patch"]
    (record,) = document["records"]
    assert record["category"] == "inconclusive" and "unproven" in record["flags"]
    assert triaged.exit_code != 0
    code, doc, text = run_telemetry(log, "--expect", "speculation")
    assert code == 1, text
    assert {n["side"] for n in doc["not_exercised"]} == {"base", "patch"}
